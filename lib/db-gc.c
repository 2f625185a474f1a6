/* db-gc.c - the database as the garbage collector reads and changes it */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "db-int.h"
#include "util.h"

#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

/*
 * The collector needs the whole graph: four statements read it (paths,
 * references, derivers, outputs), and the rest is done in memory, where a
 * query per path would cost a round trip through SQLite each.
 */

struct id_index {
	int64_t id;
	size_t index;
};

static int cmp_id(const void *a, const void *b)
{
	const struct id_index *x = a, *y = b;
	return x->id < y->id ? -1 : x->id > y->id;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static size_t by_id(const struct id_index *ids, size_t n, int64_t id)
{
	struct id_index key = { .id = id };
	const struct id_index *f = n ? bsearch(&key, ids, n, sizeof(*ids), cmp_id) : NULL;
	return f ? f->index : CIX_DB_NONE;
}

static size_t by_path(const struct cix_db_all *a, const char *path)
{
	char *const *f = a->nr ? bsearch(&path, a->paths, a->nr, sizeof(*a->paths), cmp_str)
			       : NULL;
	return f ? (size_t)(f - a->paths) : CIX_DB_NONE;
}

struct pair {
	size_t from, to;
};

static int cmp_pair(const void *a, const void *b)
{
	const struct pair *x = a, *y = b;
	if (x->from != y->from)
		return x->from < y->from ? -1 : 1;
	return x->to < y->to ? -1 : x->to > y->to;
}

/* Sorted pairs into index lists: list[at[i] .. at[i + 1]) for node i. */
static void to_lists(struct pair *p, size_t np, size_t nr, size_t **at, size_t **list)
{
	if (np)
		qsort(p, np, sizeof(*p), cmp_pair);
	*at = xcalloc(nr + 1, sizeof(**at));
	*list = xcalloc(np ? np : 1, sizeof(**list));
	for (size_t i = 0; i < np; i++) {
		(*at)[p[i].from + 1]++;
		(*list)[i] = p[i].to;
	}
	for (size_t i = 0; i < nr; i++)
		(*at)[i + 1] += (*at)[i];
}

static int prepare(struct cix_db *db, const char *sql, sqlite3_stmt **s, struct cix_err *err)
{
	if (sqlite3_prepare_v2(cix_db_sqlite(db), sql, -1, s, NULL) != SQLITE_OK)
		return cix_db_error(db, err, "cannot prepare statement");
	return 0;
}

static int load(struct cix_db *db, struct cix_db_all *a, struct id_index **ids_out,
		struct cix_err *err)
{
	sqlite3_stmt *s = NULL;
	struct id_index *ids = NULL;
	struct pair *p = NULL;
	char **derivers = NULL;
	size_t alloc = 0, np = 0, palloc = 0;
	int rc, r;

	if ((r = prepare(db, "select id, path, deriver, narSize from ValidPaths order by path",
			 &s, err)) < 0)
		return r;
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		const char *path = (const char *)sqlite3_column_text(s, 1);
		const char *drv = (const char *)sqlite3_column_text(s, 2);
		if (!path)
			continue;
		if (a->nr == alloc) {
			alloc = alloc ? 2 * alloc : 1024;
			a->paths = xrealloc(a->paths, alloc * sizeof(*a->paths));
			a->nar_size = xrealloc(a->nar_size, alloc * sizeof(*a->nar_size));
			derivers = xrealloc(derivers, alloc * sizeof(*derivers));
			ids = xrealloc(ids, alloc * sizeof(*ids));
		}
		ids[a->nr] = (struct id_index){ sqlite3_column_int64(s, 0), a->nr };
		a->paths[a->nr] = xstrdup(path);
		derivers[a->nr] = drv && *drv ? xstrdup(drv) : NULL;
		a->nar_size[a->nr] = (uint64_t)sqlite3_column_int64(s, 3);
		a->nr++;
	}
	sqlite3_finalize(s);
	if (rc != SQLITE_DONE) {
		r = cix_db_error(db, err, "cannot list valid paths");
		goto out;
	}
	/* SQLite's order is bytewise (binary collation), as strcmp's. */
	if (a->nr)
		qsort(ids, a->nr, sizeof(*ids), cmp_id);
	a->deriver = xcalloc(a->nr ? a->nr : 1, sizeof(*a->deriver));
	for (size_t i = 0; i < a->nr; i++)
		a->deriver[i] = derivers[i] ? by_path(a, derivers[i]) : CIX_DB_NONE;

	for (int pass = 0; pass < 2; pass++) {
		const char *sql = pass ? "select drv, path from DerivationOutputs"
				       : "select referrer, reference from Refs";
		if ((r = prepare(db, sql, &s, err)) < 0)
			goto out;
		np = 0;
		while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
			size_t from = by_id(ids, a->nr, sqlite3_column_int64(s, 0)), to;
			if (pass) {
				const char *out = (const char *)sqlite3_column_text(s, 1);
				to = out ? by_path(a, out) : CIX_DB_NONE;
			} else {
				to = by_id(ids, a->nr, sqlite3_column_int64(s, 1));
			}
			if (from == CIX_DB_NONE || to == CIX_DB_NONE)
				continue;
			ALLOC_GROW(p, np + 1, palloc);
			p[np++] = (struct pair){ from, to };
		}
		sqlite3_finalize(s);
		if (rc != SQLITE_DONE) {
			r = cix_db_error(db, err, "cannot read the reference graph");
			goto out;
		}
		if (pass)
			to_lists(p, np, a->nr, &a->outs_at, &a->outs);
		else
			to_lists(p, np, a->nr, &a->refs_at, &a->refs);
	}
	r = 0;
out:
	for (size_t i = 0; derivers && i < a->nr; i++)
		free(derivers[i]);
	free(derivers);
	free(p);
	*ids_out = ids;
	return r;
}

int cix_db_load_all(struct cix_db *db, struct cix_db_all *a, struct cix_err *err)
{
	struct id_index *ids = NULL;
	int r;
	memset(a, 0, sizeof(*a));
	/* One read transaction: the four reads see one state of the store. */
	cix_db_snapshot_release(db);
	if ((r = cix_db_exec(db, "begin", err)) < 0)
		return r;
	r = load(db, a, &ids, err);
	cix_db_exec(db, r < 0 ? "rollback" : "commit", NULL);
	free(ids);
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
