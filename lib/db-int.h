/* db-int.h - what the database's own files share */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef CIX_DB_INT_H
#define CIX_DB_INT_H

#include "db.h"

struct cix_writer;

/* The writers' queue of the database, NULL if it has none. */
struct cix_writer *cix_db_writer(struct cix_db *db);

/* A read transaction kept across queries (db-snapshot.c). */
struct cix_db_snapshot {
	int held;
	uint64_t header[12];   /* the WAL index's header (96 bytes) when it began */
	struct sqlite3_stmt *begin, *commit;   /* prepared once (NULL: not yet) */
};
struct cix_db_snapshot *cix_db_snapshot_of(struct cix_db *db);
/* Free what cix_db_snapshot_hold prepared (cix_db_close). */
void cix_db_snapshot_finalize(struct cix_db *db);

/* The SQLite handle, for the database's other files (db-gc.c). */
struct sqlite3 *cix_db_sqlite(struct cix_db *db);
/* A write transaction ("begin immediate") in the writers' queue, and its end. */
int cix_db_begin_write(struct cix_db *db, struct cix_err *err);
void cix_db_end_write(struct cix_db *db);
/*
 * The same without SQLite's foreign key checks and cascades, for a caller
 * that does their work itself (the collector's deletions: db-gc.c); the
 * next begin turns them on again.
 */
int cix_db_begin_write_unchecked(struct cix_db *db, struct cix_err *err);
/* err gets "database: what: SQLite's message"; returns -CIX_EFORMAT. */
int cix_db_error(struct cix_db *db, struct cix_err *err, const char *what);

/*
 * The columns of a ValidPaths row (id, hash, registrationTime, deriver,
 * narSize, sigs, ca, ultimate: S_QUERY's) into info, without references.
 */
struct sqlite3_stmt;
int cix_db_row_info(struct sqlite3_stmt *s, const char *path, struct cix_path_info *info,
		    struct cix_err *err);
#define CIX_DB_ROW_COLUMNS "id, hash, registrationTime, deriver, narSize, sigs, ca, ultimate"

/*
 * A closure: every path met, in the order met (ids and paths), and every
 * reference between them as (referrer, reference) places in that order.
 */
struct cix_db_closure {
	int64_t *ids;
	char **paths;
	size_t nr;
	size_t (*edges)[2];
	size_t nr_edges;
};
/*
 * The closure of the paths whose ids are starts[0..n), through references,
 * or referrers if referrers (lib/db-closure.c). Inside the caller's read
 * transaction; c is filled (and must be released) on success only.
 */
int cix_db_closure_walk(struct cix_db *db, const int64_t *starts, size_t n, int referrers,
			struct cix_db_closure *c, struct cix_err *err);
/* The same from paths (each must be valid: -CIX_ENOTFOUND), in a read transaction. */
int cix_db_closure(struct cix_db *db, const char *const *paths, size_t n, int referrers,
		   struct cix_db_closure *c, struct cix_err *err);
void cix_db_closure_release(struct cix_db_closure *c);

/* Run sql (no rows); the error is recorded in err. */
int cix_db_exec(struct cix_db *db, const char *sql, struct cix_err *err);

/*
 * Inside a write transaction: make infos[0..n) valid, as cix_db_register
 * does, with now as the time of those that have none.
 */
int cix_db_register_rows(struct cix_db *db, const struct cix_path_info *infos, size_t n,
			 int64_t now, struct cix_err *err);

/*
 * The requests of group commit (db-commit.c): serialise infos[0..n) with
 * their time; check that bytes parse as one (0, or -1), for the tests (-2
 * if they parse but serialise differently: a bug).
 */
struct strbuf;
void cix_db_request_serialise(struct strbuf *b, const struct cix_path_info *infos, size_t n,
			      int64_t now);
int cix_db_request_check(const void *data, size_t len);

#endif
