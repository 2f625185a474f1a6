/* store-api.c - the store as a command sees it: local, or through the daemon */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "store.h"
#include "db-int.h"
#include "nar.h"
#include "remote.h"
#include "store-path.h"
#include "strvec.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int open_remote(const char *socket_path, struct cix_store **out, struct cix_err *err)
{
	struct cix_store *s = xcalloc(1, sizeof(*s));
	int r;
	s->store_fd = s->tmp_fd = s->temproots_fd = -1;
	s->store_dir = xstrdup(cix_store_dir());
	s->state_dir = xstrdup(cix_state_dir());
	if ((r = cix_store_dir_check(s->store_dir, err)) < 0 ||
	    (r = cix_remote_open(socket_path, &s->remote, err)) < 0) {
		cix_store_close(s);
		return r;
	}
	s->store_fd = open(s->store_dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	*out = s;
	return 0;
}

/*
 * path exists but this user may not write it. A read-only file system is
 * nobody's to write, the daemon's no more: that store is opened here,
 * where queries work and writes fail with EROFS.
 */
static int not_ours(const char *path)
{
	return access(path, F_OK) == 0 && access(path, W_OK) < 0 && errno != EROFS;
}

int cix_store_open_client(struct cix_store **out, struct cix_err *err)
{
	const char *sock = getenv("CIX_DAEMON_SOCKET");
	if (sock && *sock)
		return open_remote(sock, out, err);
	/* A store that exists but is not ours to write: the daemon's. */
	struct strbuf db = STRBUF_INIT;
	strbuf_addf(&db, "%s/db/db.sqlite", cix_state_dir());
	int theirs = not_ours(cix_store_dir()) || not_ours(db.buf);
	if (theirs) {
		strbuf_reset(&db);
		strbuf_addf(&db, "%s/daemon-socket/socket", cix_state_dir());
		int r = open_remote(db.buf, out, err);
		strbuf_release(&db);
		return r;
	}
	strbuf_release(&db);
	return cix_store_open(NULL, NULL, out, err);
}

int cix_store_add_text(struct cix_store *s, const char *name, const void *text, size_t len,
		       const char *const *refs, size_t nr_refs, struct strbuf *out,
		       struct cix_err *err)
{
	if (s->remote)
		return cix_remote_add_text(s->remote, name, text, len, refs, nr_refs, out, err);
	struct cix_mem_source src = { text, len, 0 };
	return cix_store_add_source(s, name, CIX_ADD_TEXT, CIX_HASH_SHA256, refs, nr_refs,
				    cix_mem_source_read, &src, out, NULL, err);
}

int cix_store_is_valid(struct cix_store *s, const char *path, struct cix_err *err)
{
	return s->remote ? cix_remote_is_valid(s->remote, path, err)
			 : cix_db_is_valid(s->db, path, err);
}

int cix_store_query(struct cix_store *s, const char *path, struct cix_path_info *info,
		    struct cix_err *err)
{
	return s->remote ? cix_remote_query(s->remote, path, info, err)
			 : cix_db_query(s->db, path, info, err);
}

int cix_store_query_many(struct cix_store *s, const char *const *paths, size_t n,
			 struct cix_path_info *infos, void (*all_valid)(void *opaque),
			 void *opaque, struct cix_err *err)
{
	int r = 0;
	if (!s->remote)
		return cix_db_query_many(s->db, paths, n, infos, all_valid, opaque, err);
	memset(infos, 0, n * sizeof(*infos));
	for (size_t i = 0; !r && i < n; i++)
		r = cix_remote_query(s->remote, paths[i], &infos[i], err);
	if (!r && all_valid)
		all_valid(opaque);
	for (size_t i = 0; r < 0 && i < n; i++)
		cix_path_info_release(&infos[i]);
	return r;
}

int cix_store_read_begin(struct cix_store *s, struct cix_err *err)
{
	if (s->remote)
		return 0;
	cix_db_snapshot_release(s->db);
	return cix_db_exec(s->db, "begin", err);
}

void cix_store_read_end(struct cix_store *s)
{
	if (!s->remote)
		cix_db_exec(s->db, "commit", NULL);
}

int cix_store_references(struct cix_store *s, const char *path, cix_path_fn fn, void *opaque,
			 struct cix_err *err)
{
	struct cix_path_info info;
	int r;
	if (!s->remote)
		return cix_db_references(s->db, path, fn, opaque, err);
	if ((r = cix_remote_query(s->remote, path, &info, err)) < 0)
		return r;
	for (size_t i = 0; !r && i < info.nr_refs; i++)
		r = fn(info.refs[i], opaque);
	cix_path_info_release(&info);
	return r;
}

int cix_store_referrers(struct cix_store *s, const char *path, cix_path_fn fn, void *opaque,
			struct cix_err *err)
{
	return s->remote ? cix_remote_list(s->remote, CIX_REMOTE_REFERRERS, path, fn, opaque, err)
			 : cix_db_referrers(s->db, path, fn, opaque, err);
}

int cix_store_valid_derivers(struct cix_store *s, const char *path, cix_path_fn fn,
			     void *opaque, struct cix_err *err)
{
	return s->remote ? cix_remote_list(s->remote, CIX_REMOTE_VALID_DERIVERS, path, fn, opaque, err)
			 : cix_db_valid_derivers(s->db, path, fn, opaque, err);
}

int cix_store_drv_outputs_list(struct cix_store *s, const char *drv_path, cix_path_fn fn,
			       void *opaque, struct cix_err *err)
{
	return s->remote ? cix_remote_list(s->remote, CIX_REMOTE_DRV_OUTPUTS, drv_path, fn, opaque, err)
			 : cix_db_drv_outputs(s->db, drv_path, fn, opaque, err);
}

/* ---- Graphs through the daemon: one query per path ---- */

/* An edge of the graph, by the indices of its paths. */
struct edge {
	size_t from, to;
};

static int cmp_edge(const void *a, const void *b)
{
	const struct edge *x = a, *y = b;
	if (x->from != y->from)
		return x->from < y->from ? -1 : 1;
	return x->to < y->to ? -1 : x->to > y->to;
}

/* Is p in the sorted set? If not, put it there (and in order, to walk). */
static void add_new(struct strvec *sorted, struct strvec *order, const char *p)
{
	if (strvec_insert_sorted(sorted, p))
		strvec_push(order, p);
}

/*
 * The graph cix_db_graph gives, from the daemon's answers: one query per
 * path of the closure (or of the set, for CIX_DB_EDGES_PATH).
 */
static int remote_graph(struct cix_store *s, const char *const *paths, size_t n,
			enum cix_db_edges_mode mode, struct cix_db_graph *g, struct cix_err *err)
{
	struct strvec sorted = STRVEC_INIT, order = STRVEC_INIT, from = STRVEC_INIT,
		      to = STRVEC_INIT;
	int rev = mode == CIX_DB_EDGES_REFERRERS_CLOSURE, r = 0;

	for (size_t i = 0; i < n; i++)
		add_new(&sorted, &order, paths[i]);
	for (size_t k = 0; !r && k < order.nr; k++) {
		struct strvec next = STRVEC_INIT;
		const char *p = order.v[k];
		if (rev) {
			if ((r = cix_store_is_valid(s, p, err)) == 0)
				r = cix_error(err, -CIX_ENOTFOUND, "path '%s' is not valid", p);
			if (r > 0)
				r = cix_store_referrers(s, p, strvec_push_fn, &next, err);
		} else {
			r = cix_store_references(s, p, strvec_push_fn, &next, err);
			if (r == -CIX_ENOTFOUND && mode == CIX_DB_EDGES_PATH)
				r = 0;   /* an invalid path refers to nothing */
		}
		for (size_t i = 0; !r && i < next.nr; i++) {
			/* referrers closure: edges still point from referrer to reference */
			strvec_push(&from, rev ? next.v[i] : order.v[k]);
			strvec_push(&to, rev ? order.v[k] : next.v[i]);
			if (mode != CIX_DB_EDGES_PATH)
				add_new(&sorted, &order, next.v[i]);
		}
		strvec_clear(&next);
	}
	if (r >= 0) {
		/* The edges within the set, by index, sorted and unique. */
		struct edge *e = xcalloc(from.nr + 1, sizeof(*e));
		size_t ne = 0;
		for (size_t i = 0; i < from.nr; i++) {
			long a = strvec_find_sorted(&sorted, from.v[i]), b = strvec_find_sorted(&sorted, to.v[i]);
			if (a >= 0 && b >= 0)
				e[ne++] = (struct edge){ (size_t)a, (size_t)b };
		}
		if (ne)
			qsort(e, ne, sizeof(*e), cmp_edge);
		g->nr = sorted.nr;
		g->paths = sorted.v;
		g->refs_at = xcalloc(sorted.nr + 1, sizeof(*g->refs_at));
		g->refs = xcalloc(ne + 1, sizeof(*g->refs));
		size_t out = 0;
		for (size_t i = 0; i < ne; i++) {
			if (i && !cmp_edge(&e[i], &e[i - 1]))
				continue;
			g->refs[out++] = e[i].to;
			g->refs_at[e[i].from + 1]++;
		}
		for (size_t i = 0; i < sorted.nr; i++)
			g->refs_at[i + 1] += g->refs_at[i];
		free(e);
		sorted = (struct strvec)STRVEC_INIT;   /* now g's */
		r = 0;
	}
	strvec_clear(&sorted);
	strvec_clear(&order);
	strvec_clear(&from);
	strvec_clear(&to);
	return r;
}

int cix_store_graph(struct cix_store *s, const char *const *paths, size_t n,
		    enum cix_db_edges_mode mode, struct cix_db_graph *g, struct cix_err *err)
{
	if (!s->remote)
		return cix_db_graph(s->db, paths, n, mode, g, err);
	memset(g, 0, sizeof(*g));
	return remote_graph(s, paths, n, mode, g, err);
}

int cix_store_dump(struct cix_store *s, const char *path, cix_sink_fn sink, void *opaque,
		   struct cix_err *err)
{
	if (s->remote)
		return cix_remote_nar(s->remote, path, sink, opaque, err);
	return cix_nar_dump(path, sink, opaque, err);
}
