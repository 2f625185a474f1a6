/* store-api.c - the store as a command sees it: local, or through the daemon */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "store.h"
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
	s->store_fd = s->tmp_fd = -1;
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

int cix_store_open_client(struct cix_store **out, struct cix_err *err)
{
	const char *sock = getenv("CIX_DAEMON_SOCKET");
	if (sock && *sock)
		return open_remote(sock, out, err);
	/* A store that exists but is not ours to write: the daemon's. */
	struct strbuf db = STRBUF_INIT;
	strbuf_addf(&db, "%s/db/db.sqlite", cix_state_dir());
	int theirs = (access(cix_store_dir(), F_OK) == 0 && access(cix_store_dir(), W_OK) < 0) ||
		     (access(db.buf, F_OK) == 0 && access(db.buf, W_OK) < 0);
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

static long find(char **v, size_t n, const char *p)
{
	char **hit = n ? bsearch(&p, v, n, sizeof(*v), cix_cmp_str) : NULL;
	return hit ? hit - v : -1;
}

/* Edges as pairs of paths, collected while walking. */
struct walk {
	struct strvec seen;     /* every path met, in order met */
	struct strvec from, to; /* edge i: from[i] refers to to[i] */
};

static int remote_graph(struct cix_store *s, const char *const *paths, size_t n,
			enum cix_db_edges_mode mode, struct cix_db_graph *g, struct cix_err *err)
{
	struct walk w = { STRVEC_INIT, STRVEC_INIT, STRVEC_INIT };
	int r = 0;

	for (size_t i = 0; i < n; i++)
		strvec_push(&w.seen, paths[i]);
	for (size_t k = 0; !r && k < w.seen.nr; k++) {
		struct strvec next = STRVEC_INIT;
		const char *p = w.seen.v[k];
		if (mode == CIX_DB_EDGES_REFERRERS_CLOSURE) {
			if ((r = cix_store_is_valid(s, p, err)) == 0)
				r = cix_error(err, -CIX_ENOTFOUND, "path '%s' is not valid", p);
			if (r > 0)
				r = cix_store_referrers(s, p, strvec_push_fn, &next, err);
		} else {
			struct cix_path_info info;
			r = cix_remote_query(s->remote, p, &info, err);
			if (r == -CIX_ENOTFOUND && mode == CIX_DB_EDGES_PATH) {
				r = 0;   /* an invalid path refers to nothing */
			} else if (!r) {
				for (size_t i = 0; i < info.nr_refs; i++)
					strvec_push(&next, info.refs[i]);
				cix_path_info_release(&info);
			}
		}
		for (size_t i = 0; !r && i < next.nr; i++) {
			/* referrers closure: edges point from referrer to reference */
			int rev = mode == CIX_DB_EDGES_REFERRERS_CLOSURE;
			strvec_push(&w.from, rev ? next.v[i] : p);
			strvec_push(&w.to, rev ? p : next.v[i]);
			if (mode == CIX_DB_EDGES_PATH)
				continue;
			int known = 0;
			for (size_t j = 0; !known && j < w.seen.nr; j++)
				known = !strcmp(w.seen.v[j], next.v[i]);
			if (!known)
				strvec_push(&w.seen, next.v[i]);
			p = w.seen.v[k];   /* the array may have moved */
		}
		strvec_clear(&next);
	}
	if (r >= 0) {
		/* The set, sorted and unique; then the edges within it, by index. */
		char **v = xcalloc(w.seen.nr + 1, sizeof(*v));
		size_t nr = 0;
		for (size_t i = 0; i < w.seen.nr; i++)
			v[nr++] = xstrdup(w.seen.v[i]);
		nr = cix_sort_unique(v, nr);
		size_t *cnt = xcalloc(nr + 1, sizeof(*cnt));
		size_t *ea = xcalloc(w.from.nr + 1, sizeof(*ea)), *eb = xcalloc(w.from.nr + 1, sizeof(*eb));
		size_t ne = 0;
		for (size_t i = 0; i < w.from.nr; i++) {
			long a = find(v, nr, w.from.v[i]), b = find(v, nr, w.to.v[i]);
			if (a < 0 || b < 0)
				continue;
			ea[ne] = (size_t)a;
			eb[ne++] = (size_t)b;
			cnt[a]++;
		}
		g->nr = nr;
		g->paths = v;
		g->refs_at = xcalloc(nr + 1, sizeof(*g->refs_at));
		for (size_t i = 0; i < nr; i++)
			g->refs_at[i + 1] = g->refs_at[i] + cnt[i];
		g->refs = xcalloc(ne + 1, sizeof(*g->refs));
		size_t *fill = xcalloc(nr + 1, sizeof(*fill));
		for (size_t i = 0; i < ne; i++)
			g->refs[g->refs_at[ea[i]] + fill[ea[i]]++] = eb[i];
		/* each node's references ascending, without duplicates */
		for (size_t i = 0; i < nr; i++) {
			size_t *b = g->refs + g->refs_at[i], len = fill[i];
			for (size_t x = 1; x < len; x++)
				for (size_t y = x; y > 0 && b[y - 1] > b[y]; y--) {
					size_t t = b[y];
					b[y] = b[y - 1];
					b[y - 1] = t;
				}
			(void)b;
		}
		/* drop duplicates by compacting */
		size_t out = 0;
		size_t *at = xcalloc(nr + 1, sizeof(*at));
		for (size_t i = 0; i < nr; i++) {
			at[i] = out;
			for (size_t k = g->refs_at[i]; k < g->refs_at[i] + fill[i]; k++)
				if (k == g->refs_at[i] || g->refs[k] != g->refs[k - 1])
					g->refs[out++] = g->refs[k];
		}
		at[nr] = out;
		free(g->refs_at);
		g->refs_at = at;
		free(fill);
		free(cnt);
		free(ea);
		free(eb);
		r = 0;
	}
	strvec_clear(&w.seen);
	strvec_clear(&w.from);
	strvec_clear(&w.to);
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
