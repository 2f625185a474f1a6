/* store-backend.h - what a kind of store provides: the table behind struct cix_store */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef CIX_STORE_BACKEND_H
#define CIX_STORE_BACKEND_H

#include "store.h"

struct cix_build_opts;
struct cix_build_missing;
struct cix_gc_opts;
struct cix_gc_result;
struct strvec;

/*
 * A kind of store is one table of these operations, chosen when the
 * store is opened (lib/store-local.c, lib/store-daemon.c); commands call
 * the cix_store_* functions of store.h, which dispatch here. Each entry
 * behaves as the store.h function of the same name says.
 */
struct cix_store_ops {
	const char *name;     /* "local", "daemon" */
	unsigned traits;      /* CIX_STORE_* of store.h */
	/* Release what the backend keeps in s->backend. */
	void (*close)(struct cix_store *s);

	int (*is_valid)(struct cix_store *s, const char *path, struct cix_err *err);
	int (*query)(struct cix_store *s, const char *path, struct cix_path_info *info,
		     struct cix_err *err);
	int (*query_many)(struct cix_store *s, const char *const *paths, size_t n,
			  struct cix_path_info *infos, void (*all_valid)(void *opaque),
			  void *opaque, struct cix_err *err);
	int (*references)(struct cix_store *s, const char *path, cix_path_fn fn, void *opaque,
			  struct cix_err *err);
	int (*referrers)(struct cix_store *s, const char *path, cix_path_fn fn, void *opaque,
			 struct cix_err *err);
	int (*valid_derivers)(struct cix_store *s, const char *path, cix_path_fn fn,
			      void *opaque, struct cix_err *err);
	int (*drv_outputs)(struct cix_store *s, const char *drv_path, cix_path_fn fn,
			   void *opaque, struct cix_err *err);
	int (*graph)(struct cix_store *s, const char *const *paths, size_t n,
		     enum cix_db_edges_mode mode, struct cix_db_graph *g, struct cix_err *err);
	int (*read_begin)(struct cix_store *s, struct cix_err *err);
	void (*read_end)(struct cix_store *s);
	int (*dump)(struct cix_store *s, const char *path, cix_sink_fn sink, void *opaque,
		    struct cix_err *err);

	int (*add)(struct cix_store *s, const char *src, const char *name,
		   enum cix_add_method method, enum cix_hash_algo algo, struct strbuf *out,
		   struct cix_err *err);
	int (*add_text)(struct cix_store *s, const char *name, const void *text, size_t len,
			const char *const *refs, size_t nr_refs, struct strbuf *out,
			struct cix_err *err);
	int (*import)(struct cix_store *s, cix_source_fn src, void *src_opaque,
		      cix_path_fn imported, void *opaque, struct cix_err *err);
	int (*add_with_info)(struct cix_store *s, struct cix_path_info *info,
			     const struct cix_nar_input *in, struct cix_err *err);
	/* May be NULL: is_valid, add_with_info for each. */
	int (*valid_paths)(struct cix_store *s, const char *const *paths, size_t n,
			   struct strvec *valid, struct cix_err *err);
	int (*add_many)(struct cix_store *s, struct cix_path_info *infos, size_t n,
			const struct cix_nar_provider *np, struct cix_err *err);

	int (*build)(struct cix_store *s, const char *const *drvs, size_t n,
		     const struct cix_build_opts *opts, struct cix_err *err);
	int (*plan)(struct cix_store *s, const char *const *drvs, size_t n,
		    const struct cix_build_opts *opts, struct cix_build_missing *m,
		    struct cix_err *err);
	int (*ensure_paths)(struct cix_store *s, const char *const *paths, size_t n,
			    const struct cix_build_opts *opts, struct cix_err *err);

	int (*verify)(struct cix_store *s, const char *const *paths, size_t n,
		      int check_contents, const struct cix_build_opts *repair,
		     cix_report_fn report, void *opaque,
		      struct cix_err *err);
	int (*optimise)(struct cix_store *s, struct cix_store_optimise_stats *st,
			struct cix_err *err);
	int (*collect_garbage)(struct cix_store *s, const struct cix_gc_opts *o,
			       struct cix_gc_result *res, struct cix_err *err);
	int (*find_roots)(struct cix_store *s, struct strvec *links, struct strvec *paths,
			  struct cix_err *err);
	int (*add_temp_roots)(struct cix_store *s, const char *const *paths, size_t n,
			      struct cix_err *err);
	int (*add_indirect_root)(struct cix_store *s, const char *link, struct cix_err *err);
};

extern const struct cix_store_ops cix_store_local_ops;
extern const struct cix_store_ops cix_store_daemon_ops;

/*
 * A store whose daemon answers over fd, a connection made elsewhere (a
 * socket to `ssh HOST cix-daemon --stdio`: what a store reached over SSH
 * adds to the daemon's backend is the way it connects), named name in
 * messages, whose files are elsewhere (store_fd -1); the handshake may
 * wait timeout_ms for each answer (0: forever). after_close(opaque), when not NULL, runs once the connection
 * is closed (the store closed, or this failing): to reap a process.
 */
int cix_store_open_connection(int fd, const char *name, int timeout_ms,
			      void (*after_close)(void *opaque), void *opaque,
			      struct cix_store **out, struct cix_err *err);

/*
 * The store of REMOTE-PROGRAM --stdio run by ssh as uri says
 * (ssh-ng://..., lib/ssh-uri.h), which must have this store's directory.
 * A failure is one line naming uri, with what ssh said if it failed.
 */
int cix_store_open_ssh(const char *uri, struct cix_store **out, struct cix_err *err);

/*
 * For a backend whose queries are round trips: the graph cix_db_graph
 * gives, built from cix_store_references/referrers, one per path of the
 * closure (lib/store-graph.c).
 */
int cix_store_graph_by_queries(struct cix_store *s, const char *const *paths, size_t n,
			       enum cix_db_edges_mode mode, struct cix_db_graph *g,
			       struct cix_err *err);

struct cix_remote;
/* The connection of a daemon's store (cix_store_daemon_ops). */
struct cix_remote *cix_store_daemon_conn(struct cix_store *s);

/*
 * An export stream into a daemon's store: read and checked whole first
 * (each entry restored in a private temporary directory), then sent path
 * by path as AddToStoreNar (lib/store-daemon-import.c).
 */
int cix_daemon_import(struct cix_store *s, cix_source_fn src, void *src_opaque,
		      cix_path_fn imported, void *opaque, struct cix_err *err);

/* cix_store_add_many as add_with_info of each path in turn. */
int cix_store_add_each(struct cix_store *s, struct cix_path_info *infos, size_t n,
		       const struct cix_nar_provider *np, struct cix_err *err);

/* The local store's implementations that share a name with a dispatcher. */
int cix_local_add(struct cix_store *s, const char *src, const char *name,
		  enum cix_add_method method, enum cix_hash_algo algo, struct strbuf *out,
		  struct cix_err *err);
int cix_local_import(struct cix_store *s, cix_source_fn src, void *src_opaque,
		     cix_path_fn imported, void *opaque, struct cix_err *err);
int cix_local_optimise(struct cix_store *s, struct cix_store_optimise_stats *st,
		       struct cix_err *err);
int cix_local_add_temp_roots(struct cix_store *s, const char *const *paths, size_t n,
			     struct cix_err *err);
int cix_local_add_indirect_root(struct cix_store *s, const char *link, struct cix_err *err);

#endif
