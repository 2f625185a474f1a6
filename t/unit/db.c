/* db.c - unit tests for the store database */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "tap.h"
#include "db.h"
#include "strbuf.h"

#include <sqlite3.h>
#include <stdlib.h>
#include <unistd.h>

#define A "/s/00000000000000000000000000000000-a"
#define B "/s/11111111111111111111111111111111-b"
#define C "/s/22222222222222222222222222222222-c"
#define D "/s/44444444444444444444444444444444-d"

static struct cix_path_info info(const char *path, char **refs, size_t nr)
{
	struct cix_path_info i = { .path = (char *)path, .refs = refs, .nr_refs = nr,
				   .nar_size = 120 };
	cix_hash_buf(CIX_HASH_SHA256, path, strlen(path), &i.nar_hash);
	return i;
}

static struct strbuf got = STRBUF_INIT;

static int gather(const char *path, void *opaque)
{
	strbuf_addstr(&got, path);
	strbuf_addch(&got, ' ');
	return 0;
}

/* The integer the query sql gives (-1 if none). */
static int count_rows(sqlite3 *h, const char *sql)
{
	sqlite3_stmt *st;
	int n = -1;
	if (sqlite3_prepare_v2(h, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
		n = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	return n;
}

int main(void)
{
	char dir[256], file[300];
	struct cix_err err = { 0 };
	struct cix_db *db;
	struct cix_path_info q;

	if (tap_mkdtemp(dir, sizeof(dir), "db") < 0)
		return 1;
	snprintf(file, sizeof(file), "%s/db.sqlite", dir);
	ok(cix_db_open(file, 0, &db, &err) < 0, "no database without create");
	ok(cix_db_open(file, 1, &db, &err) == 0, "create database");

	char *refs_b[] = { A, B }, *refs_c[] = { B }, *refs_bad[] = { "/s/33333333333333333333333333333333-x" };
	struct cix_path_info batch[] = { info(C, refs_c, 1), info(A, NULL, 0), info(B, refs_b, 2) };
	is_int(cix_db_register(db, batch, 3, &err), 0, "register three paths in any order");
	is_int(cix_db_is_valid(db, A, &err), 1, "A valid");
	is_int(cix_db_is_valid(db, "/s/x", &err), 0, "unknown path not valid");

	ok(cix_db_query(db, B, &q, &err) == 0, "query B");
	is_int(q.nr_refs, 2, "B has two references");
	ok(q.nr_refs == 2 && !strcmp(q.refs[0], A) && !strcmp(q.refs[1], B), "sorted, self included");
	ok(!memcmp(q.nar_hash.bytes, batch[2].nar_hash.bytes, 32), "hash round trip");
	is_int(q.nar_size, 120, "size");
	ok(q.reg_time > 0, "registration time set");
	cix_path_info_release(&q);
	is_int(cix_db_query(db, "/s/none", &q, &err), -CIX_ENOTFOUND, "query unknown path");

	strbuf_reset(&got);
	cix_db_referrers(db, B, gather, NULL, &err);
	is_str(got.buf, B " " C " ", "referrers of B");

	struct cix_path_info bad[] = { info("/s/44444444444444444444444444444444-d", NULL, 0),
				       info("/s/55555555555555555555555555555555-e", refs_bad, 1) };
	is_int(cix_db_register(db, bad, 2, &err), -CIX_ENOTFOUND, "dangling reference refused");
	is_int(cix_db_is_valid(db, bad[0].path, &err), 0, "nothing of the batch registered");

	is_int(cix_db_invalidate(db, B, &err), -CIX_EEXIST, "B still referenced by C");
	is_int(cix_db_invalidate(db, C, &err), 0, "C deleted");
	strbuf_reset(&got);
	cix_db_referrers(db, B, gather, NULL, &err);
	/* (registrations run without foreign key checks: deletes still cascade) */
	is_str(got.buf, B " ", "C's references went with it");
	is_int(cix_db_invalidate(db, B, &err), 0, "then B (self reference does not count)");
	is_int(cix_db_invalidate(db, B, &err), -CIX_ENOTFOUND, "B no longer valid");

	ok(cix_db_add_drv_output(db, A, "out", "/s/66666666666666666666666666666666-o", &err) == 0,
	   "derivation output");
	strbuf_reset(&got);
	cix_db_valid_derivers(db, "/s/66666666666666666666666666666666-o", gather, NULL, &err);
	is_str(got.buf, A " ", "valid derivers");
	cix_db_close(db);

	ok(cix_db_open(file, 0, &db, &err) == 0, "reopen");
	is_int(cix_db_is_valid(db, A, &err), 1, "A persisted");
	/* A daemon worker's connection sees what other processes add meanwhile. */
	{
		struct cix_db *db2;
		struct cix_path_info d = info(D, NULL, 0);
		ok(cix_db_open(file, 0, &db2, &err) == 0, "second connection");
		is_int(cix_db_register(db2, &d, 1, &err), 0, "register D on the second");
		is_int(cix_db_query(db, D, &q, &err), 0, "the first, after a lookup, sees D");
		cix_path_info_release(&q);
		is_int(cix_db_is_valid(db, D, &err), 1, "and D is valid there");
		cix_db_close(db2);
	}
	struct cix_path_info again = info(B, refs_b, 2);
	is_int(cix_db_register(db, &again, 1, &err), 0, "B again, with its references");
	cix_db_close(db);

	/* A version 1 database is brought up to date when opened. */
	sqlite3 *h;
	sqlite3_stmt *st;
	sqlite3_open(file, &h);
	int refs_before = count_rows(h, "select count(*) from Refs");
	/* Refs as version 1 made it: a rowid table, with the trigger naming it. */
	ok(sqlite3_exec(h, "drop trigger DeleteSelfRefs; drop index IndexReferenceReferrer;"
			"create table Refs1 (referrer integer not null,"
			" reference integer not null, primary key (referrer, reference),"
			" foreign key (referrer) references ValidPaths(id) on delete cascade,"
			" foreign key (reference) references ValidPaths(id) on delete restrict);"
			"insert into Refs1 select * from Refs; drop table Refs;"
			"alter table Refs1 rename to Refs;"
			"create trigger DeleteSelfRefs before delete on ValidPaths begin"
			" delete from Refs where referrer = old.id and reference = old.id; end;"
			"create index IndexReferrer on Refs(referrer);"
			"create index IndexReference on Refs(reference);"
			"pragma user_version = 1", NULL, NULL, NULL) == SQLITE_OK && refs_before > 0,
	   "a version 1 database (%d references)", refs_before);
	sqlite3_close(h);
	ok(cix_db_open(file, 0, &db, &err) == 0, "open a version 1 database");
	cix_db_close(db);
	sqlite3_open(file, &h);
	is_int(count_rows(h, "select count(*) from Refs"), refs_before,
	       "its references kept by the migration");
	is_int(count_rows(h, "select count(*) from sqlite_master where name = 'Refs'"
			  " and sql like '%without rowid'"), 1, "Refs is without rowid (version 4)");
	is_int(count_rows(h, "select count(*) from sqlite_master where name = 'DeleteSelfRefs'"),
	       1, "the trigger made again");
	sqlite3_close(h);
	sqlite3_open(file, &h);
	sqlite3_prepare_v2(h, "select (select count(*) from sqlite_master where name ="
			   " 'IndexReferenceReferrer'), (select user_version from pragma_user_version),"
			   " (select count(*) from sqlite_master where name in"
			   " ('IndexReferrer', 'IndexReference'))", -1, &st, NULL);
	ok(st && sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int(st, 0) == 1 &&
	   sqlite3_column_int(st, 1) == CIX_DB_SCHEMA_VERSION && sqlite3_column_int(st, 2) == 0,
	   "migrated to the current version (covered indexes dropped)");
	sqlite3_finalize(st);
	sqlite3_close(h);
	ok(cix_db_open(file, 0, &db, &err) == 0 && cix_db_is_valid(db, A, &err) == 1,
	   "data kept across the migration");
	cix_db_close(db);

	/* A database from a newer cix is refused, not damaged. */
	sqlite3_open(file, &h);
	sqlite3_exec(h, "pragma user_version = 99", NULL, NULL, NULL);
	sqlite3_close(h);
	ok(cix_db_open(file, 0, &db, &err) == -CIX_EUNSUPPORTED, "newer schema refused: %s", err.msg);

	strbuf_release(&got);
	char cmd[300];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd))
		diag("cannot remove %s", dir);
	return done_testing();
}
