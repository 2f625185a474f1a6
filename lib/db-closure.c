/* db-closure.c - closures through references or referrers, walked in C */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "db-int.h"
#include "id-map.h"

#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

/*
 * A recursive SQL query keeps the ids it has seen in a b-tree of its own,
 * so a closure of n paths cost n log n there, and a path's row was looked
 * up in the order the walk met it. Here the walk reads only the Refs
 * index (one range per path), remembers ids in a hash table, and looks up
 * the paths afterwards in ascending id order, visiting the table's pages
 * in order.
 */

struct walk {
	struct cix_db *db;
	sqlite3_stmt *next, *path_of;
	struct cix_id_map seen;          /* id -> its place in queue, + 1 */
	int64_t *queue;                  /* ids in the order met */
	char **paths;                    /* their paths, once looked up */
	size_t nr, alloc;
	size_t (*edges)[2];              /* (referrer, reference), places in queue */
	size_t nr_edges, alloc_edges;
};

static int prepare(struct walk *w, int referrers, struct cix_err *err)
{
	const char *next = referrers ? "select referrer from Refs where reference = ?"
				     : "select reference from Refs where referrer = ?";
	if (sqlite3_prepare_v2(cix_db_sqlite(w->db), next, -1, &w->next, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(cix_db_sqlite(w->db), "select path from ValidPaths where id = ?",
			       -1, &w->path_of, NULL) != SQLITE_OK)
		return cix_db_error(w->db, err, "cannot prepare a query");
	return 0;
}

/* id's place in the queue, where it is put if new. */
static size_t meet(struct walk *w, int64_t id)
{
	uintptr_t at = (uintptr_t)cix_id_map_get(&w->seen, id);
	if (at)
		return at - 1;
	cix_id_map_put(&w->seen, id, (void *)(uintptr_t)(w->nr + 1), 0);
	ALLOC_GROW(w->queue, w->nr + 1, w->alloc);
	w->queue[w->nr] = id;
	return w->nr++;
}

/* Every id of the closure of the queue's first, breadth first, with its edges. */
static int walk_all(struct walk *w, int referrers, struct cix_err *err)
{
	for (size_t i = 0; i < w->nr; i++) {
		int64_t id = w->queue[i];
		int rc;
		sqlite3_bind_int64(w->next, 1, id);
		while ((rc = sqlite3_step(w->next)) == SQLITE_ROW) {
			size_t x = meet(w, sqlite3_column_int64(w->next, 0));
			ALLOC_GROW(w->edges, w->nr_edges + 1, w->alloc_edges);
			w->edges[w->nr_edges][0] = referrers ? x : i;
			w->edges[w->nr_edges][1] = referrers ? i : x;
			w->nr_edges++;
		}
		sqlite3_reset(w->next);
		if (rc != SQLITE_DONE)
			return cix_db_error(w->db, err, "query failed");
	}
	return 0;
}

static int cmp_id(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

/* The path of every id met, looked up in ascending order. */
static int look_up_paths(struct walk *w, struct cix_err *err)
{
	int64_t *ids = xcalloc(w->nr + 1, sizeof(*ids));
	int r = 0;
	memcpy(ids, w->queue, w->nr * sizeof(*ids));
	qsort(ids, w->nr, sizeof(*ids), cmp_id);
	w->paths = xcalloc(w->nr + 1, sizeof(*w->paths));
	for (size_t i = 0; !r && i < w->nr; i++) {
		sqlite3_bind_int64(w->path_of, 1, ids[i]);
		int rc = sqlite3_step(w->path_of);
		if (rc == SQLITE_ROW)
			w->paths[meet(w, ids[i])] =
				xstrdup((const char *)sqlite3_column_text(w->path_of, 0));
		else
			r = rc == SQLITE_DONE ? cix_error(err, -CIX_EFORMAT,
							  "database: a reference to the missing path id %lld",
							  (long long)ids[i])
					      : cix_db_error(w->db, err, "query failed");
		sqlite3_reset(w->path_of);
	}
	free(ids);
	return r;
}

/* The rows, as cix_db_edges gives them: each path's edges on its side, or one bare row. */
static int emit(struct walk *w, int referrers, cix_db_edge_fn fn, void *opaque)
{
	unsigned char *has = xcalloc(w->nr + 1, 1);
	int r = 0;
	for (size_t e = 0; !r && e < w->nr_edges; e++) {
		size_t at = w->edges[e][referrers ? 1 : 0];
		has[at] = 1;
		r = fn(opaque, w->queue[at], w->paths[at], w->queue[w->edges[e][0]],
		       w->queue[w->edges[e][1]]);
	}
	for (size_t i = 0; !r && i < w->nr; i++)
		if (!has[i])
			r = fn(opaque, w->queue[i], w->paths[i], 0, 0);
	free(has);
	return r;
}

int cix_db_closure_edges(struct cix_db *db, int64_t start, int referrers, cix_db_edge_fn fn,
			 void *opaque, struct cix_err *err)
{
	struct walk w = { .db = db };
	int r;
	cix_id_map_init(&w.seen, 1024);
	meet(&w, start);
	r = prepare(&w, referrers, err);
	if (!r)
		r = walk_all(&w, referrers, err);
	if (!r)
		r = look_up_paths(&w, err);
	if (!r)
		r = emit(&w, referrers, fn, opaque);
	sqlite3_finalize(w.next);
	sqlite3_finalize(w.path_of);
	cix_id_map_release(&w.seen);
	for (size_t i = 0; w.paths && i < w.nr; i++)
		free(w.paths[i]);
	free(w.paths);
	free(w.queue);
	free(w.edges);
	return r;
}
