/* store-ops.h - the operations of cix store that work on the store itself */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef CIX_STORE_OPS_H
#define CIX_STORE_OPS_H

#include "store.h"
#include "strvec.h"

/* Flags set by cix store's modifier options. */
struct store_flags {
	int recursive;       /* --recursive (for --add-fixed) */
	int print_invalid;   /* --print-invalid (for --check-validity) */
	int query;           /* the query mode, a QUERY_* */
	int check_contents;  /* --check-contents (for --verify) */
	int repair;          /* --repair (for --verify) */
	int keep_failed;     /* -K, --keep-failed (for --realise) */
	int keep_going;      /* -k, --keep-going (for --realise) */
	int check;           /* --check (for --realise) */
	unsigned max_jobs;   /* -j, --max-jobs (for --realise) */
	int no_build;         /* -j0: build nothing here (offload, or fail) */
	unsigned cores;      /* --cores (for --realise) */
	unsigned timeout;    /* --timeout (for --realise) */
	unsigned max_silent; /* --max-silent-time (for --realise) */
	unsigned long long max_log; /* --max-build-log-size (for --realise) */
	const char *substitute_urls; /* --substitute-urls (for --realise) */
	int no_subst;        /* --no-substitutes (for --realise) */
	const char *builders; /* --builders (for --realise) */
	int fallback;        /* --fallback (for --realise) */
};

enum {
	QUERY_NONE, QUERY_REFERENCES, QUERY_REFERRERS, QUERY_REQUISITES,
	QUERY_REFERRERS_CLOSURE, QUERY_DERIVER, QUERY_HASH, QUERY_SIZE,
	QUERY_VALID_DERIVERS, QUERY_OUTPUTS, QUERY_TREE, QUERY_GRAPH,
};

/* A sorted set of store paths (a strvec kept sorted): the cix_path_fn of it. */
int set_add(const char *path, void *opaque /* struct strvec * */);
/*
 * The paths of ps in nix-store's order: depth-first in sorted order, each
 * after the paths of ps it refers to. Lines go to out, or stdout if NULL.
 */
int topo_print(struct cix_store *s, const struct strvec *ps, struct strbuf *out,
	       struct cix_err *err);
/* The same order as node indices of g, into order[0..g->nr). */
void graph_order(const struct cix_db_graph *g, size_t *order);

int op_export(struct cix_store *s, const struct store_flags *f, char **args, int nargs);
int op_import(struct cix_store *s, const struct store_flags *f, char **args, int nargs);
int op_add(struct cix_store *s, const struct store_flags *f, char **args, int nargs);
int op_add_fixed(struct cix_store *s, const struct store_flags *f, char **args, int nargs);
int op_query(struct cix_store *s, const struct store_flags *f, char **args, int nargs);
int op_check_validity(struct cix_store *s, const struct store_flags *f, char **args, int nargs);
int op_substitute(struct cix_store *s, const struct store_flags *f, char **args, int nargs);
int op_verify(struct cix_store *s, const struct store_flags *f, char **args, int nargs);
int op_verify_path(struct cix_store *s, const struct store_flags *f, char **args, int nargs);
int op_realise(struct cix_store *s, const struct store_flags *f, char **args, int nargs);
int op_read_log(struct cix_store *s, const struct store_flags *f, char **args, int nargs);
int op_optimise(struct cix_store *s, const struct store_flags *f, char **args, int nargs);
int op_delete(struct cix_store *s, const struct store_flags *f, char **args, int nargs);

#endif
