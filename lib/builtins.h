/* builtins.h - the builders cix runs itself ("builtin:NAME"), registered in one table */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef CIX_BUILTINS_H
#define CIX_BUILTINS_H

#include "err.h"
#include <stddef.h>

struct cix_drv;
struct cix_db_graph;
struct cix_build_job;

/* What a builtin is given: the derivation and where its output goes. */
struct cix_builtin_call {
	const struct cix_drv *drv;
	const char *drv_path;
	const char *store_dir;
	const char *state_dir;               /* the store's (builtin:bootstrap reads its seeds) */
	const char *root;                    /* the sandbox's root: outputs as ROOT/STORE/BASE */
	const struct cix_db_graph *inputs;   /* the input closure: all it may read */
	int no_file_urls;                    /* downloads refuse file:// URLs */
};

struct cix_builtin {
	const char *name;       /* NAME of the builder "builtin:NAME" */
	/*
	 * 1: a job run in the sandbox as a build user (job); 0: run as cix
	 * itself, without sandbox (run), for builtins that only link their
	 * inputs.
	 */
	int needs_build_user;
	int is_download;        /* a fixed-output download (listed apart by -n) */
	int (*run)(const struct cix_builtin_call *call, struct cix_err *err);
	int (*job)(const struct cix_builtin_call *call, struct cix_build_job *job,
		   struct cix_err *err);
};

/*
 * The builtin a derivation's builder names, or NULL when it names none
 * that cix has (not "builtin:NAME", or an unknown NAME).
 */
const struct cix_builtin *cix_builtin_find(const char *builder);
/* Is builder "builtin:NAME", known or not? */
int cix_builtin_named(const char *builder);
/* Every builtin, *nr of them, in the order of their names. */
const struct cix_builtin *cix_builtins(size_t *nr);

/* builtin:bootstrap (lib/builtin-bootstrap.c). */
int cix_builtin_bootstrap(const struct cix_builtin_call *call, struct cix_err *err);

#endif
