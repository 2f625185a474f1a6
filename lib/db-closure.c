/* db-closure.c - closures through references or referrers, walked in C */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "db-int.h"
#include "id-map.h"
#include "key-sort.h"

#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

/*
 * A recursive SQL query keeps the ids it has seen in a b-tree of its own,
 * so a closure of n paths cost n log n there. Here the walk reads the
 * Refs index one range per path, remembers ids in a hash table, and looks
 * up the paths afterwards in ascending id order.
 *
 * Once the closure is a good part of the store (an eighth of its ids),
 * a look-up per path costs more than reading everything: the walk then
 * reads the whole of Refs in one ordered scan into arrays indexed by id,
 * goes on in memory, and reads the paths in one scan of ValidPaths. Both
 * scans visit the pages in order, so the work stays linear in the store's
 * size where a b-tree descent per path would grow with its depth.
 */

#define DENSE_MIN 64   /* no arrays for closures smaller than this */

struct walk {
	struct cix_db *db;
	int referrers;
	struct cix_db_closure *c;    /* ids in the order met (the queue), paths, edges */
	size_t alloc, alloc_edges;
	sqlite3_stmt *next;          /* one id's neighbours (sparse) */
	struct cix_id_map seen;      /* id -> place + 1 (sparse) */
	int64_t max_id;              /* the largest id of the store (dense) */
	uint32_t *place_of;          /* id -> place + 1, ids 0..max_id (dense) */
	size_t *adj_at;              /* id's neighbours: adj[adj_at[id] .. adj_at[id + 1]) */
	int64_t *adj;
};

static int missing(struct cix_err *err, int64_t id)
{
	return cix_error(err, -CIX_EFORMAT, "database: a reference to the missing path id %lld",
			 (long long)id);
}

/* id's place in the queue, where it is put if new; SIZE_MAX if id cannot be. */
static size_t meet(struct walk *w, int64_t id)
{
	struct cix_db_closure *c = w->c;
	if (w->place_of) {
		if (id < 1 || id > w->max_id)
			return SIZE_MAX;
		if (w->place_of[id])
			return w->place_of[id] - 1;
		w->place_of[id] = (uint32_t)(c->nr + 1);
	} else {
		uintptr_t at = (uintptr_t)cix_id_map_get(&w->seen, id);
		if (at)
			return at - 1;
		cix_id_map_put(&w->seen, id, (void *)(uintptr_t)(c->nr + 1), 0);
	}
	ALLOC_GROW(c->ids, c->nr + 1, w->alloc);
	c->ids[c->nr] = id;
	return c->nr++;
}

static void add_edge(struct walk *w, size_t at, size_t x)
{
	struct cix_db_closure *c = w->c;
	ALLOC_GROW(c->edges, c->nr_edges + 1, w->alloc_edges);
	c->edges[c->nr_edges][0] = w->referrers ? x : at;
	c->edges[c->nr_edges][1] = w->referrers ? at : x;
	c->nr_edges++;
}

static int query_max_id(struct walk *w, struct cix_err *err)
{
	sqlite3_stmt *s;
	int rc = sqlite3_prepare_v2(cix_db_sqlite(w->db), "select max(id) from ValidPaths", -1,
				    &s, NULL);
	if (rc == SQLITE_OK && (rc = sqlite3_step(s)) == SQLITE_ROW)
		w->max_id = sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	return rc == SQLITE_ROW ? 0 : cix_db_error(w->db, err, "cannot query the largest id");
}

/*
 * Every edge of the store into adj, by id, from one scan of Refs in the
 * order of the walk's side (referrers: the index by reference).
 */
static int load_adjacency(struct walk *w, struct cix_err *err)
{
	const char *sql = w->referrers ? "select reference, referrer from Refs order by reference"
				       : "select referrer, reference from Refs order by referrer";
	sqlite3_stmt *s;
	size_t nr = 0, alloc = 0;
	int64_t cur = 0, last = 0;
	int rc, r = 0;
	if (sqlite3_prepare_v2(cix_db_sqlite(w->db), sql, -1, &s, NULL) != SQLITE_OK)
		return cix_db_error(w->db, err, "cannot prepare a query");
	w->adj_at = xcalloc((size_t)w->max_id + 2, sizeof(*w->adj_at));
	while (!r && (rc = sqlite3_step(s)) == SQLITE_ROW) {
		int64_t from = sqlite3_column_int64(s, 0), to = sqlite3_column_int64(s, 1);
		if (from < last || from > w->max_id || to < 1 || to > w->max_id) {
			r = missing(err, from > w->max_id || from < last ? from : to);
			break;
		}
		last = from;
		for (; cur <= from; cur++)
			w->adj_at[cur] = nr;
		ALLOC_GROW(w->adj, nr + 1, alloc);
		w->adj[nr++] = to;
	}
	if (!r && rc != SQLITE_DONE)
		r = cix_db_error(w->db, err, "query failed");
	for (; cur <= w->max_id + 1; cur++)
		w->adj_at[cur] = nr;
	sqlite3_finalize(s);
	return r;
}

/* From the hash table to arrays indexed by id, every edge read at once. */
static int go_dense(struct walk *w, struct cix_err *err)
{
	struct cix_db_closure *c = w->c;
	w->place_of = xcalloc((size_t)w->max_id + 1, sizeof(*w->place_of));
	for (size_t i = 0; i < c->nr; i++) {
		if (c->ids[i] < 1 || c->ids[i] > w->max_id)
			return missing(err, c->ids[i]);
		w->place_of[c->ids[i]] = (uint32_t)(i + 1);
	}
	cix_id_map_release(&w->seen);
	return load_adjacency(w, err);
}

static int dense_worth(const struct walk *w)
{
	size_t nr = w->c->nr;
	return !w->place_of && nr >= DENSE_MIN && (int64_t)nr >= w->max_id / 8 &&
	       w->max_id < (int64_t)UINT32_MAX;
}

static int expand_sparse(struct walk *w, size_t at, struct cix_err *err)
{
	int rc;
	sqlite3_bind_int64(w->next, 1, w->c->ids[at]);
	while ((rc = sqlite3_step(w->next)) == SQLITE_ROW)
		add_edge(w, at, meet(w, sqlite3_column_int64(w->next, 0)));
	sqlite3_reset(w->next);
	return rc == SQLITE_DONE ? 0 : cix_db_error(w->db, err, "query failed");
}

static int expand_dense(struct walk *w, size_t at, struct cix_err *err)
{
	int64_t id = w->c->ids[at];
	for (size_t k = w->adj_at[id]; k < w->adj_at[id + 1]; k++) {
		size_t x = meet(w, w->adj[k]);
		if (x == SIZE_MAX)
			return missing(err, w->adj[k]);
		add_edge(w, at, x);
	}
	return 0;
}

/* Every id of the closure of the queue, breadth first, with its edges. */
static int walk_all(struct walk *w, struct cix_err *err)
{
	const char *next = w->referrers ? "select referrer from Refs where reference = ?"
					: "select reference from Refs where referrer = ?";
	int r = 0;
	if (sqlite3_prepare_v2(cix_db_sqlite(w->db), next, -1, &w->next, NULL) != SQLITE_OK)
		return cix_db_error(w->db, err, "cannot prepare a query");
	for (size_t i = 0; !r && i < w->c->nr; i++) {
		if (dense_worth(w) && (r = go_dense(w, err)) < 0)
			break;
		r = w->place_of ? expand_dense(w, i, err) : expand_sparse(w, i, err);
	}
	return r;
}

/* The paths, by one look-up per id in ascending order. */
static int paths_sparse(struct walk *w, struct cix_err *err)
{
	struct cix_db_closure *c = w->c;
	struct cix_keyed *order = xcalloc(c->nr + 1, sizeof(*order));
	sqlite3_stmt *s;
	int r = 0;
	if (sqlite3_prepare_v2(cix_db_sqlite(w->db), "select path from ValidPaths where id = ?",
			       -1, &s, NULL) != SQLITE_OK) {
		free(order);
		return cix_db_error(w->db, err, "cannot prepare a query");
	}
	for (size_t i = 0; i < c->nr; i++)
		order[i] = (struct cix_keyed){ (uint64_t)c->ids[i], i };
	cix_keyed_sort(order, c->nr);
	for (size_t i = 0; !r && i < c->nr; i++) {
		sqlite3_bind_int64(s, 1, c->ids[order[i].at]);
		int rc = sqlite3_step(s);
		if (rc == SQLITE_ROW)
			c->paths[order[i].at] = xstrdup((const char *)sqlite3_column_text(s, 0));
		else
			r = rc == SQLITE_DONE ? missing(err, c->ids[order[i].at])
					      : cix_db_error(w->db, err, "query failed");
		sqlite3_reset(s);
	}
	sqlite3_finalize(s);
	free(order);
	return r;
}

/* The paths, from one scan of ValidPaths. */
static int paths_dense(struct walk *w, struct cix_err *err)
{
	struct cix_db_closure *c = w->c;
	sqlite3_stmt *s;
	int rc;
	if (sqlite3_prepare_v2(cix_db_sqlite(w->db), "select id, path from ValidPaths", -1, &s,
			       NULL) != SQLITE_OK)
		return cix_db_error(w->db, err, "cannot prepare a query");
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		int64_t id = sqlite3_column_int64(s, 0);
		if (id >= 1 && id <= w->max_id && w->place_of[id])
			c->paths[w->place_of[id] - 1] =
				xstrdup((const char *)sqlite3_column_text(s, 1));
	}
	sqlite3_finalize(s);
	if (rc != SQLITE_DONE)
		return cix_db_error(w->db, err, "query failed");
	for (size_t i = 0; i < c->nr; i++)
		if (!c->paths[i])
			return missing(err, c->ids[i]);
	return 0;
}

int cix_db_closure_walk(struct cix_db *db, const int64_t *starts, size_t n, int referrers,
			struct cix_db_closure *c, struct cix_err *err)
{
	struct walk w = { .db = db, .referrers = referrers, .c = c };
	int r;
	memset(c, 0, sizeof(*c));
	cix_id_map_init(&w.seen, n < 1024 ? 1024 : n);
	for (size_t i = 0; i < n; i++)
		meet(&w, starts[i]);
	r = query_max_id(&w, err);
	if (!r)
		r = walk_all(&w, err);
	if (!r) {
		c->paths = xcalloc(c->nr + 1, sizeof(*c->paths));
		r = w.place_of ? paths_dense(&w, err) : paths_sparse(&w, err);
	}
	sqlite3_finalize(w.next);
	cix_id_map_release(&w.seen);
	free(w.place_of);
	free(w.adj_at);
	free(w.adj);
	if (r < 0)
		cix_db_closure_release(c);
	return r;
}

void cix_db_closure_release(struct cix_db_closure *c)
{
	for (size_t i = 0; c->paths && i < c->nr; i++)
		free(c->paths[i]);
	free(c->paths);
	free(c->ids);
	free(c->edges);
	memset(c, 0, sizeof(*c));
}
