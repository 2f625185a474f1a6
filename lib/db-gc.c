/* db-gc.c - the database as the garbage collector reads and changes it */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "db-int.h"
#include "id-map.h"
#include "key-sort.h"
#include "str-index.h"
#include "strvec.h"
#include "util.h"

#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

/*
 * The collector needs the whole graph: four statements read it (paths,
 * references, derivers, outputs), and the rest is done in memory, where a
 * query per path would cost a round trip through SQLite each.
 */

/* The places of a->paths, by id and by path, while the graph is read. */
struct places {
	struct cix_id_map by_id;        /* id -> place + 1 */
	struct cix_str_index by_path;
};

static size_t by_id(const struct places *x, int64_t id)
{
	uintptr_t at = (uintptr_t)cix_id_map_get(&x->by_id, id);
	return at ? at - 1 : CIX_DB_NONE;
}

static size_t by_path(const struct places *x, const char *path)
{
	long at = cix_str_index_find(&x->by_path, path);
	return at < 0 ? CIX_DB_NONE : (size_t)at;
}

static int prepare(struct cix_db *db, const char *sql, sqlite3_stmt **s, struct cix_err *err)
{
	if (sqlite3_prepare_v2(cix_db_sqlite(db), sql, -1, s, NULL) != SQLITE_OK)
		return cix_db_error(db, err, "cannot prepare statement");
	return 0;
}

/*
 * Every valid path, sorted; derivers by path. The table is read in its
 * own order and sorted here: read through the path index, each row would
 * cost a look-up in the table.
 */
static int load_paths(struct cix_db *db, struct cix_db_all *a, struct places *x,
		      struct strvec *derivers, struct cix_err *err)
{
	struct strvec paths = STRVEC_INIT, drvs = STRVEC_INIT;
	int64_t *ids = NULL;
	uint64_t *sizes = NULL;
	size_t alloc = 0;
	sqlite3_stmt *s = NULL;
	int rc, r;
	if ((r = prepare(db, "select id, path, deriver, narSize from ValidPaths", &s, err)) < 0)
		return r;
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		const char *path = (const char *)sqlite3_column_text(s, 1);
		const char *drv = (const char *)sqlite3_column_text(s, 2);
		if (!path)
			continue;
		ALLOC_GROW(ids, paths.nr + 1, alloc);
		sizes = xrealloc(sizes, alloc * sizeof(*sizes));
		ids[paths.nr] = sqlite3_column_int64(s, 0);
		sizes[paths.nr] = (uint64_t)sqlite3_column_int64(s, 3);
		strvec_push(&paths, path);
		strvec_push(&drvs, drv ? drv : "");
	}
	sqlite3_finalize(s);
	if (rc != SQLITE_DONE) {
		r = cix_db_error(db, err, "cannot list valid paths");
	} else {
		struct cix_keyed *order = cix_str_order((const char *const *)paths.v, paths.nr);
		a->nr = paths.nr;
		a->paths = xcalloc(a->nr + 1, sizeof(*a->paths));
		a->nar_size = xcalloc(a->nr + 1, sizeof(*a->nar_size));
		/* derivers is empty: it takes the strings in sorted order, as a does */
		derivers->v = xcalloc(a->nr + 1, sizeof(*derivers->v));
		derivers->nr = a->nr;
		derivers->alloc = a->nr + 1;
		for (size_t i = 0; i < a->nr; i++) {
			size_t at = order[i].at;
			a->paths[i] = paths.v[at];
			derivers->v[i] = drvs.v[at];
			paths.v[at] = drvs.v[at] = NULL;   /* moved */
			a->nar_size[i] = sizes[at];
			cix_id_map_put(&x->by_id, ids[at], (void *)(uintptr_t)(i + 1), 0);
		}
		free(order);
	}
	strvec_clear(&paths);
	strvec_clear(&drvs);
	free(ids);
	free(sizes);
	return r;
}

/* The references (pass 0) or the derivations' outputs (pass 1) as lists of places. */
static int load_edges(struct cix_db *db, struct cix_db_all *a, const struct places *x,
		      int pass, struct cix_err *err)
{
	const char *sql = pass ? "select drv, path from DerivationOutputs"
			       : "select referrer, reference from Refs";
	size_t (*p)[2] = NULL, np = 0, palloc = 0;
	sqlite3_stmt *s;
	int rc, r;
	if ((r = prepare(db, sql, &s, err)) < 0)
		return r;
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		size_t from = by_id(x, sqlite3_column_int64(s, 0)), to;
		if (pass) {
			const char *out = (const char *)sqlite3_column_text(s, 1);
			to = out ? by_path(x, out) : CIX_DB_NONE;
		} else {
			to = by_id(x, sqlite3_column_int64(s, 1));
		}
		if (from == CIX_DB_NONE || to == CIX_DB_NONE)
			continue;
		ALLOC_GROW(p, np + 1, palloc);
		p[np][0] = from;
		p[np][1] = to;
		np++;
	}
	sqlite3_finalize(s);
	if (rc == SQLITE_DONE)
		cix_pairs_group(p, np, a->nr, pass ? &a->outs_at : &a->refs_at,
				pass ? &a->outs : &a->refs);
	free(p);
	return rc == SQLITE_DONE ? 0 : cix_db_error(db, err, "cannot read the reference graph");
}

/*
 * Ids and paths are found through hash tables and the edges grouped by
 * counting: the work is linear in the store's size (a binary search per
 * edge and a sort of them all grew faster).
 */
static int load(struct cix_db *db, struct cix_db_all *a, struct cix_err *err)
{
	struct places x = { 0 };
	struct strvec derivers = STRVEC_INIT;
	int r;
	cix_id_map_init(&x.by_id, 1024);
	if ((r = load_paths(db, a, &x, &derivers, err)) == 0) {
		cix_str_index_build(&x.by_path, (const char *const *)a->paths, a->nr);
		a->deriver = xcalloc(a->nr ? a->nr : 1, sizeof(*a->deriver));
		for (size_t i = 0; i < a->nr; i++)
			a->deriver[i] = *derivers.v[i] ? by_path(&x, derivers.v[i]) : CIX_DB_NONE;
		if ((r = load_edges(db, a, &x, 0, err)) == 0)
			r = load_edges(db, a, &x, 1, err);
		cix_str_index_release(&x.by_path);
	}
	cix_id_map_release(&x.by_id);
	strvec_clear(&derivers);
	return r;
}

int cix_db_load_all(struct cix_db *db, struct cix_db_all *a, struct cix_err *err)
{
	int r;
	memset(a, 0, sizeof(*a));
	/* One read transaction: the four reads see one state of the store. */
	cix_db_snapshot_release(db);
	if ((r = cix_db_exec(db, "begin", err)) < 0)
		return r;
	r = load(db, a, err);
	cix_db_exec(db, r < 0 ? "rollback" : "commit", NULL);
	if (r < 0)
		cix_db_all_release(a);
	return r;
}

void cix_db_all_release(struct cix_db_all *a)
{
	for (size_t i = 0; i < a->nr; i++)
		free(a->paths[i]);
	free(a->paths);
	free(a->nar_size);
	free(a->deriver);
	free(a->refs_at);
	free(a->refs);
	free(a->outs_at);
	free(a->outs);
	memset(a, 0, sizeof(*a));
}

/* The row id, with its references and outputs (the three deletes, in order). */
static int delete_row(struct cix_db *db, sqlite3_stmt *const *del, sqlite3_int64 id,
		      struct cix_err *err)
{
	for (int k = 0; k < 3; k++) {
		sqlite3_reset(del[k]);
		sqlite3_bind_int64(del[k], 1, id);
		if (sqlite3_step(del[k]) != SQLITE_DONE)
			return cix_db_error(db, err, "cannot delete path");
	}
	return 0;
}

long cix_db_invalidate_many(struct cix_db *db, const char *const *paths, size_t n,
			    unsigned char *done, struct cix_err *err)
{
	sqlite3_stmt *id = NULL, *has = NULL, *del = NULL, *del_refs = NULL, *del_outs = NULL;
	long count = 0;
	int r;

	memset(done, 0, n);
	/*
	 * The files go next: the rows must be gone from the disk first, or a
	 * power cut could leave valid paths without files. (The setting cannot
	 * change inside a transaction; normal is the connection's default.)
	 */
	if ((r = cix_db_exec(db, "pragma synchronous = full", err)) < 0)
		return r;
	/*
	 * Deletions all over a large database read its pages again and again
	 * through SQLite's default 2 MiB cache (9 reads per path at 100k
	 * paths); the collector's connection keeps more, allocated as used:
	 * up to 512 MiB, a million paths' database (1M dead: 33 s with 32
	 * MiB, 27 s with this).
	 */
	if ((r = cix_db_exec(db, "pragma cache_size = -524288", err)) < 0)
		return r;
	/*
	 * Without the foreign keys' work: "has" below is their restriction
	 * (asked once, where SQLite would ask again), and the cascades are
	 * the two deletes before the row's.
	 */
	if ((r = cix_db_begin_write_unchecked(db, err)) < 0)
		goto sync;
	if ((r = prepare(db, "select id from ValidPaths where path = ?", &id, err)) < 0 ||
	    (r = prepare(db, "select 1 from Refs where reference = ?1 and referrer != ?1 limit 1",
			 &has, err)) < 0 ||
	    (r = prepare(db, "delete from Refs where referrer = ?", &del_refs, err)) < 0 ||
	    (r = prepare(db, "delete from DerivationOutputs where drv = ?", &del_outs, err)) < 0 ||
	    (r = prepare(db, "delete from ValidPaths where id = ?", &del, err)) < 0)
		goto out;
	for (size_t i = 0; i < n; i++) {
		sqlite3_reset(id);
		sqlite3_bind_text(id, 1, paths[i], -1, SQLITE_STATIC);
		int rc = sqlite3_step(id);
		if (rc == SQLITE_DONE)
			continue;
		if (rc != SQLITE_ROW) {
			r = cix_db_error(db, err, "cannot query path");
			goto out;
		}
		sqlite3_int64 row = sqlite3_column_int64(id, 0);
		sqlite3_reset(has);
		sqlite3_bind_int64(has, 1, row);
		if ((rc = sqlite3_step(has)) == SQLITE_ROW)
			continue;   /* still referred to: kept */
		if (rc != SQLITE_DONE) {
			r = cix_db_error(db, err, "cannot query referrers");
			goto out;
		}
		if ((r = delete_row(db, (sqlite3_stmt *[]){ del_refs, del_outs, del }, row, err)) < 0)
			goto out;
		done[i] = 1;
		count++;
	}
	sqlite3_reset(id);
	sqlite3_reset(has);
	r = cix_db_exec(db, "commit", err);
out:
	sqlite3_finalize(id);
	sqlite3_finalize(has);
	sqlite3_finalize(del);
	sqlite3_finalize(del_refs);
	sqlite3_finalize(del_outs);
	if (r < 0) {
		cix_db_exec(db, "rollback", NULL);
		memset(done, 0, n);
	}
	cix_db_end_write(db);
sync:
	cix_db_exec(db, "pragma synchronous = normal; pragma foreign_keys = on", NULL);
	return r < 0 ? r : count;
}
