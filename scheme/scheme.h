/* scheme.h - the package language (GNU Guile embedded, in scheme/), for the commands */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef CIX_SCHEME_H
#define CIX_SCHEME_H

#include "err.h"
#include "lower.h"
#include "search-path.h"
#include "strbuf.h"

/*
 * Guile runs in the process once initialised, with the modules found
 * through $CIX_SCHEME_PATH (colon-separated; default DATADIR/scheme and
 * DATADIR/distro) and compiled ones through $CIX_SCHEME_COMPILED_PATH.
 */
int cix_scheme_init(struct cix_err *err);

/* A package named on the command line, read into C for lowering. */
struct cix_scheme_target {
	struct cix_package *package;
	/*
	 * Or, from an expression or a file that gives a derivation's file name
	 * (package-derivation, package-cross-derivation): that name.
	 */
	char *drv_path;
	char *output;              /* the output asked for ("glib:doc"), or NULL */
	/* A manifest's entry: its name and version, or NULL: the package's. */
	char *name, *version;
	/* What the package and those it propagates declare (native ones). */
	struct cix_search_path *search_paths;
	size_t nr_search_paths;
};

/* Free what the target owns (not the package: Guile's records keep it). */
void cix_scheme_target_release(struct cix_scheme_target *t);

/*
 * A session: what one command reads its packages with. l is the lowering
 * that package-derivation and package-cross-derivation of (guix packages)
 * use while the session reads (NULL: none, and they fail); triplet (a GNU
 * triplet such as "aarch64-linux-gnu", or NULL: natively) the target the
 * packages it reads are cross-built for (%current-target-system is set to
 * it while they are evaluated and lowered). The packages read are
 * memoised in the session: each is read into C once.
 */
struct cix_lower;
struct cix_scheme_session;
struct cix_scheme_session *cix_scheme_session_new(struct cix_lower *l, const char *triplet);
/* The targets it gave keep their packages (they live as long as the process). */
void cix_scheme_session_free(struct cix_scheme_session *ss);

/*
 * spec: NAME, NAME-VERSION, NAME:OUTPUT or NAME-VERSION:OUTPUT, found in
 * the (gnu packages ...) modules (the newest version when several).
 * expr: a Scheme expression giving a package. file: a file whose last
 * value is a package. Scheme errors come back as one line with their place
 * (FILE:LINE:COLUMN) when Guile knows it.
 */
int cix_scheme_read_spec(struct cix_scheme_session *ss, const char *spec,
			 struct cix_scheme_target *t, struct cix_err *err);
int cix_scheme_read_expr(struct cix_scheme_session *ss, const char *expr,
			 struct cix_scheme_target *t, struct cix_err *err);
int cix_scheme_read_file(struct cix_scheme_session *ss, const char *file,
			 struct cix_scheme_target *t, struct cix_err *err);

/*
 * The entries of the manifest a file gives (its last value, as
 * (specifications->manifest ...) or (packages->manifest ...) of (guix
 * profiles)): *v receives *n targets, their output always set. An error
 * names the file. Free each with cix_scheme_target_release, then *v.
 */
int cix_scheme_read_manifest(struct cix_scheme_session *ss, const char *file,
			     struct cix_scheme_target **v, size_t *n, struct cix_err *err);

/* The search path of the package modules: $CIX_SCHEME_PATH, or the installed
 * DATADIR/scheme:DATADIR/distro. Guile is not started for it. */
void cix_scheme_search_path(struct strbuf *sb);
/* The compiled modules' path: $CIX_SCHEME_COMPILED_PATH, or where make install puts them. */
void cix_scheme_compiled_path(struct strbuf *sb);

/*
 * Evaluate the package module m->rel (gnu/packages/NAME.scm) and add the
 * packages it exports to m, for the package index; when the module cannot
 * be evaluated, m->error says why (and 0 is returned). Fails only when
 * Guile or cix's modules cannot be loaded at all.
 */
struct cix_pkg_module;
int cix_scheme_index_module(struct cix_pkg_module *m, struct cix_err *err);

/*
 * Lookups of packages by name (and by full name) load only the modules the
 * index says export them, and every module for a name it does not have.
 * The index must be up to date with every module file.
 */
struct cix_pkg_index;
void cix_scheme_hint_modules(const struct cix_pkg_index *idx);

/* ---- refresh ---- */

/* A package as `cix refresh` sees it (cix_scheme_refresh_packages). */
struct cix_refresh_pkg {
	char *name, *version;
	char *uri;              /* its source's first URL; NULL: no url-fetch origin */
	struct cix_hash hash;   /* that source's sha256 (len 0: none) */
	char *location;         /* FILE:LINE:COLUMN as Guile records it, or "" */
};

/*
 * The package spec names (NAME, NAME@VERSION or NAME-VERSION, the newest
 * when several), or every package of the distribution when spec is NULL:
 * *v receives *n of them, freed with cix_refresh_pkgs_free.
 */
int cix_scheme_refresh_packages(const char *spec, struct cix_refresh_pkg **v, size_t *n,
				struct cix_err *err);
void cix_refresh_pkgs_free(struct cix_refresh_pkg *v, size_t n);

/* ---- pull ---- */

/*
 * Compile every module (FILE.scm) below each of dirs[0..nr_dirs) into
 * go_dir/FILE.go, with only dirs on the load path ((cix primitives) given
 * as usual): all of them are loaded first, then compiled; *count receives
 * how many. The first that does not load or compile is the error, as one
 * line naming it. For a process that has not started Guile and will not
 * use it after (cix pull forks one): the modules stay loaded in it.
 */
int cix_scheme_compile_modules(const char *const *dirs, size_t nr_dirs, const char *go_dir,
			       size_t *count, struct cix_err *err);

#endif
