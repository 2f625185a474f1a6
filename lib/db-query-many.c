/* db-query-many.c - the path infos of many paths, their references' paths looked up once */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "db-int.h"
#include "id-map.h"
#include "key-sort.h"

#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

/*
 * cix_db_query joins each reference to its row for the path: one b-tree
 * descent a reference, into the biggest table. A closure's paths share
 * their references (and mostly refer to one another), so here the
 * references are read as ids from Refs alone and each id's path is looked
 * up once, from the paths queried or from the table.
 */

struct queries {
	struct cix_db *db;
	sqlite3_stmt *row, *ref_ids, *path_of;
	struct cix_id_map paths;   /* id -> path (owned when looked up here) */
};

static int prepare(struct queries *q, struct cix_err *err)
{
	static const char *const sql[3] = {
		"select " CIX_DB_ROW_COLUMNS " from ValidPaths where path = ?",
		"select reference from Refs where referrer = ?",
		"select path from ValidPaths where id = ?",
	};
	sqlite3_stmt **st[3] = { &q->row, &q->ref_ids, &q->path_of };
	for (int i = 0; i < 3; i++)
		if (sqlite3_prepare_v3(cix_db_sqlite(q->db), sql[i], -1, SQLITE_PREPARE_PERSISTENT,
				       st[i], NULL) != SQLITE_OK)
			return cix_db_error(q->db, err, "cannot prepare a query");
	return 0;
}

/* The row of path into info; its id into *id. */
static int query_row(struct queries *q, const char *path, struct cix_path_info *info,
		     int64_t *id, struct cix_err *err)
{
	int rc, r;
	sqlite3_bind_text(q->row, 1, path, -1, SQLITE_STATIC);
	rc = sqlite3_step(q->row);
	if (rc == SQLITE_DONE)
		r = cix_error(err, -CIX_ENOTFOUND, "path '%s' is not valid", path);
	else if (rc != SQLITE_ROW)
		r = cix_db_error(q->db, err, "cannot query path");
	else if ((r = cix_db_row_info(q->row, path, info, err)) == 0)
		*id = sqlite3_column_int64(q->row, 0);
	sqlite3_reset(q->row);
	return r;
}

/* The path of id into the map, from the table. */
static int look_up(struct queries *q, int64_t id, struct cix_err *err)
{
	int rc;
	sqlite3_bind_int64(q->path_of, 1, id);
	rc = sqlite3_step(q->path_of);
	if (rc == SQLITE_ROW)
		cix_id_map_put(&q->paths, id,
			       xstrdup((const char *)sqlite3_column_text(q->path_of, 0)), 1);
	sqlite3_reset(q->path_of);
	if (rc == SQLITE_ROW)
		return 0;
	return rc == SQLITE_DONE ? cix_error(err, -CIX_EFORMAT,
					     "database: a reference to the missing path id %lld",
					     (long long)id)
				 : cix_db_error(q->db, err, "query failed");
}

/* The reference ids of id, appended to *refs. */
static int ref_ids(struct queries *q, int64_t id, int64_t **refs, size_t *nr, size_t *alloc,
		   struct cix_err *err)
{
	int rc;
	sqlite3_bind_int64(q->ref_ids, 1, id);
	while ((rc = sqlite3_step(q->ref_ids)) == SQLITE_ROW) {
		ALLOC_GROW(*refs, *nr + 1, *alloc);
		(*refs)[(*nr)++] = sqlite3_column_int64(q->ref_ids, 0);
	}
	sqlite3_reset(q->ref_ids);
	return rc == SQLITE_DONE ? 0 : cix_db_error(q->db, err, "query failed");
}

/*
 * Every info's references. Read in the order of the ids, and the paths of
 * the ids not queried looked up in ascending order: b-tree pages are then
 * visited mostly in order, not at random.
 */
static int query_refs(struct queries *q, const int64_t *ids, struct cix_path_info *infos,
		      size_t n, struct cix_err *err)
{
	struct cix_keyed *by_id = xcalloc(n + 1, sizeof(*by_id)), *missing;
	int64_t *refs = NULL;
	size_t *at = xcalloc(n + 1, sizeof(*at)), nr = 0, alloc = 0, nr_missing = 0;
	int r = 0;
	for (size_t i = 0; i < n; i++)
		by_id[i] = (struct cix_keyed){ (uint64_t)ids[i], i };
	cix_keyed_sort(by_id, n);
	for (size_t k = 0; !r && k < n; k++) {
		size_t i = by_id[k].at;
		at[i] = nr;
		r = ref_ids(q, (int64_t)by_id[k].key, &refs, &nr, &alloc, err);
		infos[i].nr_refs = nr - at[i];
	}
	missing = xcalloc(nr + 1, sizeof(*missing));
	for (size_t j = 0; !r && j < nr; j++)
		if (!cix_id_map_get(&q->paths, refs[j]))
			missing[nr_missing++] = (struct cix_keyed){ (uint64_t)refs[j], j };
	cix_keyed_sort(missing, nr_missing);
	for (size_t j = 0; !r && j < nr_missing; j++)
		if (!j || missing[j].key != missing[j - 1].key)
			r = look_up(q, (int64_t)missing[j].key, err);
	for (size_t i = 0; !r && i < n; i++) {
		struct cix_path_info *in = &infos[i];
		in->refs = xcalloc(in->nr_refs + 1, sizeof(*in->refs));
		for (size_t j = 0; j < in->nr_refs; j++)
			in->refs[j] = xstrdup(cix_id_map_get(&q->paths, refs[at[i] + j]));
		cix_sort_strs(in->refs, in->nr_refs);
	}
	if (r < 0)
		for (size_t i = 0; i < n; i++)
			if (!infos[i].refs)
				infos[i].nr_refs = 0;
	free(missing);
	free(refs);
	free(at);
	free(by_id);
	return r;
}

int cix_db_query_many(struct cix_db *db, const char *const *paths, size_t n,
		      struct cix_path_info *infos, void (*all_valid)(void *opaque), void *opaque,
		      struct cix_err *err)
{
	struct queries q = { .db = db };
	int64_t *ids = xcalloc(n + 1, sizeof(*ids));
	int r;
	cix_id_map_init(&q.paths, 2 * n);
	memset(infos, 0, n * sizeof(*infos));
	r = prepare(&q, err);
	for (size_t i = 0; !r && i < n; i++)
		if ((r = query_row(&q, paths[i], &infos[i], &ids[i], err)) == 0)
			cix_id_map_put(&q.paths, ids[i], infos[i].path, 0);
	if (!r && all_valid)
		all_valid(opaque);
	if (!r)
		r = query_refs(&q, ids, infos, n, err);
	for (size_t i = 0; r < 0 && i < n; i++)
		cix_path_info_release(&infos[i]);
	sqlite3_finalize(q.row);
	sqlite3_finalize(q.ref_ids);
	sqlite3_finalize(q.path_of);
	cix_id_map_release(&q.paths);
	free(ids);
	return r;
}
