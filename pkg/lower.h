/* lower.h - packages lowered to derivations */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef CIX_LOWER_H
#define CIX_LOWER_H

#include "err.h"
#include "hash.h"
#include "store.h"
#include "strvec.h"

/*
 * What a package definition says, in C (scheme/read-package.c fills it from
 * the Scheme records of (guix packages)): lowering turns it into derivations,
 * writes their .drv files to the store (through the daemon when the store
 * is its) and gives their paths. Each node is lowered once (memoised in the
 * node); the same definitions always give the same derivations, and any
 * change of any input changes the hashes.
 */

enum cix_input_kind {
	CIX_INPUT_PACKAGE,   /* a package: its output `output` */
	CIX_INPUT_ORIGIN,    /* a source to download (fixed output) */
	CIX_INPUT_ITEM,      /* a content-addressed store item (bootstrap seeds) */
	CIX_INPUT_FILE,      /* a local file or tree, added to the store */
};

struct cix_package;

/* A download: builtin:fetchurl, as Nix's <nix/fetchurl.nix> writes it. */
struct cix_origin {
	char *url;               /* first of its URIs (mirror:// allowed) */
	struct cix_hash hash;    /* sha256 of the file */
	char *file_name;         /* the store name: from the URL when NULL */
	/* lowered */
	char *drv_path, *out_path;
};

/*
 * A seed made elsewhere (scripts/make-bootstrap), named by its hash: the
 * file (flat) or tree (recursive) that a builtin:bootstrap derivation
 * gives, from the caches or STATE/bootstrap (cix_lower_item).
 */
struct cix_item {
	char *name;
	struct cix_hash hash;    /* sha256: of the file, or of the NAR */
	int recursive;
	char *drv_path;          /* lowered: its builtin:bootstrap derivation */
	char *path;              /* lowered: that derivation's output */
};

/* A file or tree of the machine, added to the store (recursive sha256). */
struct cix_file {
	char *file;
	char *name;
	struct strvec select;    /* with #:select?: the files chosen, relative */
	int selected;            /* whether select holds a selection (maybe empty) */
	char *path;              /* lowered */
};

struct cix_input {
	char *label;
	enum cix_input_kind kind;
	union {
		struct cix_package *package;
		struct cix_origin *origin;
		struct cix_item *item;
		struct cix_file *file;
	} u;
	char *output;            /* of a package: NULL for "out" */
	unsigned native;         /* a native input: for the build machine */
};

/* A string of the build command: text, after the path of an input when labelled. */
struct cix_arg {
	char *label;             /* NULL: text alone */
	char *text;
};

/* An environment variable whose value names an input. */
struct cix_env_ref {
	char *key;
	struct cix_arg value;
};

enum cix_build_system {
	CIX_BS_GNU,      /* builder/gnu-build, the phases of gnu-build-system */
	CIX_BS_TRIVIAL,  /* a command of the package's own */
};

struct cix_package {
	char *name, *version;
	char *location;                /* "FILE:LINE:COLUMN" of its definition, or NULL */
	/*
	 * NULL: built for the build machine. Else the GNU triplet it is
	 * cross-built for: then its native inputs and implicit inputs run on
	 * the build machine (their directories go to buildInputs: PATH...),
	 * its other inputs are for the target (targetInputs: headers and
	 * libraries, CROSS_CPATH and CROSS_LIBRARY_PATH of the builder).
	 */
	char *target;
	struct cix_input source;       /* label NULL; kind ORIGIN, ITEM or FILE; or none */
	int has_source;
	enum cix_build_system build_system;
	struct cix_input *inputs;      /* inputs, native inputs, propagated inputs */
	size_t nr_inputs, alloc_inputs;
	size_t nr_propagated;          /* the last nr_propagated of inputs */
	struct strvec outputs;         /* "out" first */
	/*
	 * The build system's arguments. For gnu: environment variables of the
	 * builder (configureFlags, makeFlags, tests, phases, phase_NAME, ...,
	 * see builder/); for trivial: builder (a program) and args.
	 */
	struct strvec env;             /* KEY=VALUE */
	struct cix_env_ref *env_refs;  /* KEY=an input's path and text, by label */
	size_t nr_env_refs, alloc_env_refs;
	struct cix_arg *builder;       /* trivial: the program (the build system names it) */
	struct cix_arg *args;          /* its arguments */
	size_t nr_args, alloc_args;
	/* The build system's own inputs (bootstrap tools, the builder): none for a seed. */
	struct cix_input *implicit;
	size_t nr_implicit, alloc_implicit;
	/* lowered */
	char *drv_path;
	struct strvec out_paths;       /* in the order of outputs */
	int lowering;                  /* cycle detection */
};

struct cix_lower {
	struct cix_store *store;
	const char *system;            /* "x86_64-linux": by default the machine's own (cix_build_this_system) */
	/*
	 * Set: cix_lower_profile computes the profile's paths without writing
	 * its .drv (for -n: the packages it holds may not be built, and a .drv
	 * is registered only with its references valid).
	 */
	int dry_run;
	/* Not NULL: the local files read (local-file) are added to it. */
	struct strvec *files_read;
};

/* Lower p (and what it needs): p->drv_path and p->out_paths are set. */
int cix_lower_package(struct cix_lower *l, struct cix_package *p, struct cix_err *err);
int cix_lower_origin(struct cix_lower *l, struct cix_origin *o, struct cix_err *err);
int cix_lower_item(struct cix_lower *l, struct cix_item *it, struct cix_err *err);
int cix_lower_file(struct cix_lower *l, struct cix_file *f, struct cix_err *err);

/*
 * A profile generation: the derivation of builtin:profile (lib/profile-build.h)
 * over the store paths given (valid ones: they are its input sources), with
 * the manifest text; its .drv is written to the store.
 */
int cix_lower_profile(struct cix_lower *l, const char *const *paths, size_t n,
		      const char *manifest, char **drv_path, char **out_path, struct cix_err *err);

/*
 * The store path an input stands for, after lowering (the package's output
 * named, "out" by default); NULL if there is no such output.
 */
const char *cix_input_path(const struct cix_input *in);

#endif
