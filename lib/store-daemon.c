/* store-daemon.c - a daemon's store as a backend: every operation a request to it */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "store-backend.h"
#include "gc.h"
#include "remote.h"
#include "store-path.h"
#include "strvec.h"
#include "util.h"

#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The backend's state: the connection, and what closing it also ends. */
struct daemon_store {
	struct cix_remote *conn;
	void (*after_close)(void *opaque);
	void *opaque;
};

/* A store whose daemon answers on conn (NULL: connect to socket_path). */
static int open_store(const char *socket_path, struct cix_remote *conn,
		      void (*after_close)(void *), void *opaque, struct cix_store **out,
		      struct cix_err *err)
{
	struct cix_store *s = xcalloc(1, sizeof(*s));
	struct daemon_store *d = xcalloc(1, sizeof(*d));
	int r;
	s->ops = &cix_store_daemon_ops;
	s->backend = d;
	d->conn = conn;
	d->after_close = after_close;
	d->opaque = opaque;
	s->store_fd = s->tmp_fd = s->temproots_fd = -1;
	s->store_dir = xstrdup(cix_store_dir());
	s->state_dir = xstrdup(cix_state_dir());
	if ((r = cix_store_dir_check(s->store_dir, err)) < 0 ||
	    (!d->conn && (r = cix_remote_open(socket_path, &d->conn, err)) < 0)) {
		cix_store_close(s);
		return r;
	}
	/* A daemon of this machine: its files are read here directly (NARs, profiles). */
	if (socket_path)
		s->store_fd = open(s->store_dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	*out = s;
	return 0;
}

int cix_store_open_daemon(const char *socket_path, struct cix_store **out, struct cix_err *err)
{
	return open_store(socket_path, NULL, NULL, NULL, out, err);
}

int cix_store_open_connection(int fd, const char *name, int timeout_ms,
			      void (*after_close)(void *opaque), void *opaque,
			      struct cix_store **out, struct cix_err *err)
{
	struct cix_remote *conn;
	int r = cix_remote_open_fd(fd, name, timeout_ms, &conn, err);
	if (r < 0) {
		if (after_close)
			after_close(opaque);
		return r;
	}
	return open_store(NULL, conn, after_close, opaque, out, err);
}

struct cix_remote *cix_store_daemon_conn(struct cix_store *s)
{
	return ((struct daemon_store *)s->backend)->conn;
}

static struct cix_remote *conn_of(struct cix_store *s)
{
	return cix_store_daemon_conn(s);
}

static void daemon_close(struct cix_store *s)
{
	struct daemon_store *d = s->backend;
	if (!d)
		return;
	cix_remote_close(d->conn);
	if (d->after_close)
		d->after_close(d->opaque);
	free(d);
	s->backend = NULL;
}

/* ---- Queries ---- */

static int daemon_is_valid(struct cix_store *s, const char *path, struct cix_err *err)
{
	return cix_remote_is_valid(conn_of(s), path, err);
}

static int daemon_query(struct cix_store *s, const char *path, struct cix_path_info *info,
			struct cix_err *err)
{
	return cix_remote_query(conn_of(s), path, info, err);
}

static int daemon_query_many(struct cix_store *s, const char *const *paths, size_t n,
			     struct cix_path_info *infos, void (*all_valid)(void *opaque),
			     void *opaque, struct cix_err *err)
{
	int r = 0;
	memset(infos, 0, n * sizeof(*infos));
	for (size_t i = 0; !r && i < n; i++)
		r = cix_remote_query(conn_of(s), paths[i], &infos[i], err);
	if (!r && all_valid)
		all_valid(opaque);
	for (size_t i = 0; r < 0 && i < n; i++)
		cix_path_info_release(&infos[i]);
	return r;
}

static int daemon_references(struct cix_store *s, const char *path, cix_path_fn fn,
			     void *opaque, struct cix_err *err)
{
	struct cix_path_info info;
	int r;
	if ((r = cix_remote_query(conn_of(s), path, &info, err)) < 0)
		return r;
	for (size_t i = 0; !r && i < info.nr_refs; i++)
		r = fn(info.refs[i], opaque);
	cix_path_info_release(&info);
	return r;
}

static int daemon_referrers(struct cix_store *s, const char *path, cix_path_fn fn,
			    void *opaque, struct cix_err *err)
{
	return cix_remote_list(conn_of(s), CIX_OP_QUERY_REFERRERS, path, fn, opaque, err);
}

static int daemon_valid_derivers(struct cix_store *s, const char *path, cix_path_fn fn,
				 void *opaque, struct cix_err *err)
{
	return cix_remote_list(conn_of(s), CIX_OP_QUERY_VALID_DERIVERS, path, fn, opaque, err);
}

static int daemon_drv_outputs(struct cix_store *s, const char *drv_path, cix_path_fn fn,
			      void *opaque, struct cix_err *err)
{
	return cix_remote_list(conn_of(s), CIX_OP_QUERY_DERIVATION_OUTPUTS, drv_path, fn, opaque,
			       err);
}

static int daemon_dump(struct cix_store *s, const char *path, cix_sink_fn sink, void *opaque,
		       struct cix_err *err)
{
	return cix_remote_nar(conn_of(s), path, sink, opaque, err);
}

/* ---- Adding ---- */

static int daemon_add(struct cix_store *s, const char *src, const char *name,
		      enum cix_add_method method, enum cix_hash_algo algo, struct strbuf *out,
		      struct cix_err *err)
{
	return cix_remote_add(conn_of(s), src, name, method, algo, out, err);
}

static int daemon_add_text(struct cix_store *s, const char *name, const void *text, size_t len,
			   const char *const *refs, size_t nr_refs, struct strbuf *out,
			   struct cix_err *err)
{
	return cix_remote_add_text(conn_of(s), name, text, len, refs, nr_refs, out, err);
}

static int daemon_add_with_info(struct cix_store *s, struct cix_path_info *info,
				const struct cix_nar_input *in, struct cix_err *err)
{
	return cix_remote_add_nar(conn_of(s), info, in, err);
}

static int daemon_valid_paths(struct cix_store *s, const char *const *paths, size_t n,
			      struct strvec *valid, struct cix_err *err)
{
	return cix_remote_valid_paths(conn_of(s), paths, n, valid, err);
}

/* AddMultipleToStore came with protocol 1.32. */
static int daemon_add_many(struct cix_store *s, struct cix_path_info *infos, size_t n,
			   const struct cix_nar_provider *np, struct cix_err *err)
{
	if (conn_of(s)->minor < 32)
		return cix_store_add_each(s, infos, n, np, err);
	return cix_remote_add_multiple(conn_of(s), infos, n, np, err);
}

/* ---- Building: the daemon's, with its caches ---- */

static int daemon_build(struct cix_store *s, const char *const *drvs, size_t n,
			const struct cix_build_opts *opts, struct cix_err *err)
{
	return cix_remote_build(conn_of(s), drvs, n, opts, err);
}

static int daemon_plan(struct cix_store *s, const char *const *drvs, size_t n,
		       const struct cix_build_opts *opts, struct cix_build_missing *m,
		       struct cix_err *err)
{
	return cix_remote_query_missing(conn_of(s), drvs, n, opts, m, err);
}

static int daemon_ensure_paths(struct cix_store *s, const char *const *paths, size_t n,
			       const struct cix_build_opts *opts, struct cix_err *err)
{
	int r = 0;
	for (size_t i = 0; r >= 0 && i < n; i++)
		r = cix_remote_ensure_path(conn_of(s), paths[i], err);
	return r < 0 ? r : 0;
}

/* ---- Keeping ---- */

/* A path's NAR hash, computed here, against the daemon's record. */
static int verify_one(struct cix_store *s, const char *path, struct cix_err *err)
{
	struct cix_path_info info;
	struct cix_hash h;
	int r = cix_store_check_path(s, path, err);
	if (!r && !(r = cix_remote_query(conn_of(s), path, &info, err))) {
		if (!(r = cix_nar_hash_path(path, CIX_HASH_SHA256, &h, NULL, err)) &&
		    memcmp(h.bytes, info.nar_hash.bytes, 32))
			r = cix_error(err, -CIX_EMISMATCH, "path '%s' was modified! (its hash differs)",
				      path);
		cix_path_info_release(&info);
	}
	return r;
}

/*
 * The whole store: the daemon checks it (and refuses repair to most),
 * saying only whether something was wrong. Given paths: checked here.
 */
static int daemon_verify(struct cix_store *s, const char *const *paths, size_t n,
			 int check_contents, const struct cix_build_opts *repair,
			 cix_report_fn report, void *opaque, struct cix_err *err)
{
	int errors = 0, r;
	if (!paths) {
		r = cix_remote_verify(conn_of(s), check_contents, repair != NULL, &errors, err);
		return r < 0 ? r : errors != 0;
	}
	for (size_t i = 0; i < n; i++) {
		struct cix_err e = { 0 };
		if (verify_one(s, paths[i], &e) < 0) {
			report(opaque, 1, e.msg);
			errors++;
		}
	}
	return errors;
}

static int daemon_optimise(struct cix_store *s, struct cix_store_optimise_stats *st,
			   struct cix_err *err)
{
	st->files_linked = st->bytes_freed = UINT64_MAX;
	return cix_remote_optimise(conn_of(s), err);
}

static int daemon_collect_garbage(struct cix_store *s, const struct cix_gc_opts *o,
				  struct cix_gc_result *res, struct cix_err *err)
{
	struct strvec out = STRVEC_INIT;
	int r;
	*res = (struct cix_gc_result){ 0 };
	r = cix_remote_collect_garbage(conn_of(s), o->action, o->paths, o->nr_paths,
					   o->max_freed ? o->max_freed : UINT64_MAX, &out,
					   &res->bytes_freed, err);
	for (size_t i = 0; !r && o->each && i < out.nr; i++)
		r = o->each(out.v[i], o->opaque);
	res->nr_deleted = out.nr;
	strvec_clear(&out);
	return r;
}

static int daemon_find_roots(struct cix_store *s, struct strvec *links, struct strvec *paths,
			     struct cix_err *err)
{
	return cix_remote_find_roots(conn_of(s), links, paths, err);
}

/* Each lasts as long as the connection. */
static int daemon_add_temp_roots(struct cix_store *s, const char *const *paths, size_t n,
				 struct cix_err *err)
{
	int r = 0;
	for (size_t i = 0; !r && i < n; i++)
		r = cix_remote_add_temp_root(conn_of(s), paths[i], err);
	return r;
}

static int daemon_add_indirect_root(struct cix_store *s, const char *link, struct cix_err *err)
{
	return cix_remote_add_indirect_root(conn_of(s), link, err);
}

const struct cix_store_ops cix_store_daemon_ops = {
	.name = "daemon",
	.traits = 0,
	.close = daemon_close,
	.is_valid = daemon_is_valid,
	.query = daemon_query,
	.query_many = daemon_query_many,
	.references = daemon_references,
	.referrers = daemon_referrers,
	.valid_derivers = daemon_valid_derivers,
	.drv_outputs = daemon_drv_outputs,
	.graph = cix_store_graph_by_queries,
	.dump = daemon_dump,
	.add = daemon_add,
	.add_text = daemon_add_text,
	.import = cix_daemon_import,
	.add_with_info = daemon_add_with_info,
	.valid_paths = daemon_valid_paths,
	.add_many = daemon_add_many,
	.build = daemon_build,
	.plan = daemon_plan,
	.ensure_paths = daemon_ensure_paths,
	.verify = daemon_verify,
	.optimise = daemon_optimise,
	.collect_garbage = daemon_collect_garbage,
	.find_roots = daemon_find_roots,
	.add_temp_roots = daemon_add_temp_roots,
	.add_indirect_root = daemon_add_indirect_root,
};
