/* db-snapshot.c - one read transaction kept across queries while nothing is committed */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "db-int.h"

#include <sqlite3.h>
#include <string.h>

/*
 * Every query in autocommit mode opens and ends a read transaction of its
 * own: in WAL mode a read lock taken and dropped (two fcntl calls) and the
 * pager's checks, about a third of a daemon's query. A connection that
 * serves many queries keeps one open instead, for as long as nothing was
 * committed: that it was not is read in the WAL index, the -shm file that
 * SQLite maps in every process using the database. Its first 96 bytes are
 * two copies of a header that each commit rewrites (the WAL's frame count,
 * a change counter, the WAL's salts), as SQLite's file format document
 * describes it; any SQLite writing the database updates it, a cix process
 * or not, so the check needs no cooperation from the writers.
 */
#define WAL_INDEX_HEADER 96
#define HEADER_WORDS (WAL_INDEX_HEADER / 8)

_Static_assert(sizeof(((struct cix_db_snapshot *)0)->header) == WAL_INDEX_HEADER,
	       "the kept header is the WAL index's");

/* The WAL index as SQLite maps it in this process (page-aligned), or NULL. */
static const volatile uint64_t *wal_index(sqlite3 *h)
{
	sqlite3_file *f = NULL;
	volatile void *p = NULL;
	if (sqlite3_file_control(h, "main", SQLITE_FCNTL_FILE_POINTER, &f) != SQLITE_OK ||
	    !f || !f->pMethods || f->pMethods->iVersion < 2 || !f->pMethods->xShmMap)
		return NULL;
	/* (region 0, not extended: NULL when the WAL is not open) */
	if (f->pMethods->xShmMap(f, 0, 32 * 1024, 0, &p) != SQLITE_OK)
		return NULL;
	return p;
}

/*
 * The header's two copies into out: 0 if they agree, -1 if not (a commit
 * is writing them) or there is no index to read.
 */
static int read_header(sqlite3 *h, uint64_t out[HEADER_WORDS])
{
	const volatile uint64_t *idx = wal_index(h);
	if (!idx)
		return -1;
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	for (size_t i = 0; i < HEADER_WORDS; i++)
		out[i] = idx[i];
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	return memcmp(out, out + HEADER_WORDS / 2, WAL_INDEX_HEADER / 2) ? -1 : 0;
}

/* Still open, and the header as it was when it began: nothing committed since. */
static int still_current(struct cix_db *db, struct cix_db_snapshot *s)
{
	uint64_t now[HEADER_WORDS];
	return s->held && !sqlite3_get_autocommit(cix_db_sqlite(db)) &&
	       read_header(cix_db_sqlite(db), now) == 0 &&
	       !memcmp(now, s->header, WAL_INDEX_HEADER);
}

/*
 * Run "begin" or "commit" from a statement prepared once: under writes,
 * a query begins a transaction each time, and sqlite3_exec would parse
 * the words again each time (about as much work as the query).
 */
static int run(struct cix_db *db, struct sqlite3_stmt **st, const char *sql)
{
	if (!*st && sqlite3_prepare_v3(cix_db_sqlite(db), sql, -1, SQLITE_PREPARE_PERSISTENT,
				       st, NULL) != SQLITE_OK)
		return -1;
	int rc = sqlite3_step(*st);
	sqlite3_reset(*st);
	return rc == SQLITE_DONE ? 0 : -1;
}

int cix_db_snapshot_hold(struct cix_db *db)
{
	struct cix_db_snapshot *s = cix_db_snapshot_of(db);
	if (still_current(db, s))
		return 1;
	cix_db_snapshot_release(db);
	/*
	 * The header is read before the transaction begins (at its first
	 * statement): the snapshot is at least as new as the header kept, so
	 * a commit the header did not show yet is seen as a change next time.
	 */
	if (read_header(cix_db_sqlite(db), s->header) < 0 || run(db, &s->begin, "begin") < 0)
		return 0;
	s->held = 1;
	return 1;
}

void cix_db_snapshot_release(struct cix_db *db)
{
	struct cix_db_snapshot *s = cix_db_snapshot_of(db);
	if (!s->held)
		return;
	s->held = 0;
	/* (SQLite may have ended it itself, after an error) */
	if (!sqlite3_get_autocommit(cix_db_sqlite(db)))
		run(db, &s->commit, "commit");
}

void cix_db_snapshot_finalize(struct cix_db *db)
{
	struct cix_db_snapshot *s = cix_db_snapshot_of(db);
	sqlite3_finalize(s->begin);
	sqlite3_finalize(s->commit);
	s->begin = s->commit = NULL;
}
