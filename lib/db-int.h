/* db-int.h - what the database's own files share */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef CIX_DB_INT_H
#define CIX_DB_INT_H

#include "db.h"

struct cix_writer;

/* The writers' queue of the database, NULL if it has none. */
struct cix_writer *cix_db_writer(struct cix_db *db);

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
