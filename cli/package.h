/* package.h - cix package: what its options ask (cmd-package.c), done by package-tx.c */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef CIX_CLI_PACKAGE_H
#define CIX_CLI_PACKAGE_H

#include "search-path.h"
#include "strvec.h"
#include "subst-opts.h"

struct pkg_opts {
	const char *profile;          /* -p, or NULL: the user's */
	struct strvec installs;       /* -i SPEC */
	struct strvec removes;        /* -r NAME[:OUTPUT] */
	struct strvec exprs;          /* -e EXPR */
	struct strvec manifests;      /* -m FILE: the profile holds exactly their entries */
	int upgrade;                  /* -u */
	const char *upgrade_rx;       /* -u REGEXP, or NULL: all */
	int search_paths;             /* --search-paths[=KIND] */
	enum cix_search_path_kind search_paths_kind;
	int roll_back, dry_run;
	const char *switch_to;        /* -S N|+N|-N */
	int delete_generations;
	const char *delete_pattern;   /* NULL: all but the current */
	int list_installed;
	const char *installed_rx;
	int list_generations;
	unsigned max_silent;
	struct subst_cli *subst;      /* --substitute-urls, --no-substitutes, --fallback */
	const char *target;           /* --target: -i, -e and -u cross-build for it */
};

/* The transaction and the profile queries; returns an exit code. */
int package_run(const struct pkg_opts *o);

/*
 * The evaluation cache (package-eval.c). pkg_eval_install: -i SPEC from it
 * (1), or 0 when it has no valid answer (then evaluate, and record the
 * result with pkg_eval_record); pkg_eval_save at the end of a transaction
 * that evaluated specs; pkg_eval_files, the list lowering adds the local
 * files it reads to.
 */
struct cix_lower;
struct cix_manifest;
struct cix_manifest_entry;
struct cix_package;
struct cix_err;
int pkg_eval_install(struct cix_lower *l, const char *spec, struct cix_manifest *m,
		     struct strvec *drvs, const struct pkg_opts *o, struct cix_err *err);
void pkg_eval_record(const char *spec, const struct cix_package *p,
		     const struct cix_manifest_entry *e);
void pkg_eval_save(void);
void pkg_eval_release(void);
struct strvec *pkg_eval_files(void);

/* drv added to drvs unless its outputs are all valid and it propagates nothing. */
struct cix_store;
int need_build(struct cix_store *s, const char *drv, const struct strvec *outs,
	       int propagates, struct strvec *drvs, struct cix_err *err);

#endif
