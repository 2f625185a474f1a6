/* db-hash-part.c - a valid path found by its hash part */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "db-int.h"
#include "util.h"

#include <sqlite3.h>
#include <string.h>

int cix_db_path_from_hash_part(struct cix_db *db, const char *prefix, char **path,
			       struct cix_err *err)
{
	sqlite3_stmt *st = NULL;
	size_t n = strlen(prefix);
	int rc, r = 0;

	*path = NULL;
	/* The first valid path at or after PREFIX: the one, if any, that starts with it. */
	if (sqlite3_prepare_v2(cix_db_sqlite(db),
			       "select path from ValidPaths where path >= ? order by path limit 1",
			       -1, &st, NULL) != SQLITE_OK)
		return cix_db_error(db, err, "cannot look a hash up");
	sqlite3_bind_text(st, 1, prefix, (int)n, SQLITE_STATIC);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		const char *p = (const char *)sqlite3_column_text(st, 0);
		if (p && !strncmp(p, prefix, n)) {
			*path = xstrdup(p);
			r = 1;
		}
	} else if (rc != SQLITE_DONE) {
		r = cix_db_error(db, err, "cannot look a hash up");
	}
	sqlite3_finalize(st);
	return r;
}
