/* db-query-many.c - unit tests for cix_db_query_many, the collector's deletes, the string index */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "tap.h"
#include "db-int.h"
#include "str-index.h"

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define P(c) "/s/" c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c "-" c

static struct cix_path_info info(const char *path, char **refs, size_t nr)
{
	struct cix_path_info in = { .path = (char *)path, .refs = refs, .nr_refs = nr,
				    .nar_size = 7 };
	in.nar_hash.algo = CIX_HASH_SHA256;
	in.nar_hash.len = 32;
	memset(in.nar_hash.bytes, path[3], 32);
	return in;
}

static int same_info(const struct cix_path_info *a, const struct cix_path_info *b)
{
	if (strcmp(a->path, b->path) || a->nr_refs != b->nr_refs ||
	    memcmp(a->nar_hash.bytes, b->nar_hash.bytes, 32) || a->nar_size != b->nar_size)
		return 0;
	for (size_t i = 0; i < a->nr_refs; i++)
		if (strcmp(a->refs[i], b->refs[i]))
			return 0;
	return 1;
}

static int count(struct cix_db *db, const char *sql)
{
	sqlite3_stmt *st;
	int n = -1;
	if (sqlite3_prepare_v2(cix_db_sqlite(db), sql, -1, &st, NULL) == SQLITE_OK &&
	    sqlite3_step(st) == SQLITE_ROW)
		n = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	return n;
}

static void test_index(void)
{
	const char *keys[] = { "b", "a", "c", "a", "" };
	struct cix_str_index x;
	cix_str_index_build(&x, keys, 5);
	is_int((int)cix_str_index_find(&x, "a"), 1, "index: the first of equal keys");
	is_int((int)cix_str_index_find(&x, "c"), 2, "index: another key");
	is_int((int)cix_str_index_find(&x, ""), 4, "index: the empty key");
	is_int((int)cix_str_index_find(&x, "d"), -1, "index: a missing key");
	cix_str_index_release(&x);
	ok(cix_str_key("") == 0 && cix_str_key("a") < cix_str_key("a0") &&
	   cix_str_key("ab") < cix_str_key("b") && cix_str_key("abcdefgh") == cix_str_key("abcdefghz"),
	   "key: ordered as strcmp orders the first eight bytes");
	cix_str_index_build(&x, keys, 0);
	is_int((int)cix_str_index_find(&x, "a"), -1, "index: empty");
	cix_str_index_release(&x);
}

int main(void)
{
	char dir[256], file[300];
	struct cix_err err = { 0 };
	struct cix_db *db;

	test_index();
	if (tap_mkdtemp(dir, sizeof(dir), "dbqm") < 0)
		return 1;
	snprintf(file, sizeof(file), "%s/db.sqlite", dir);
	ok(cix_db_open(file, 1, &db, &err) == 0, "create database");
	/* a <- b <- c, c -> a, d -> d and a; g alone */
	char *rb[] = { P("a") }, *rc[] = { P("a"), P("b") }, *rd[] = { P("a"), P("d") };
	struct cix_path_info in[] = { info(P("a"), NULL, 0), info(P("b"), rb, 1),
				      info(P("c"), rc, 2), info(P("d"), rd, 2),
				      info(P("g"), NULL, 0) };
	struct cix_drv_output_row out = { "out", P("g") };
	in[3].outputs = &out;
	in[3].nr_outputs = 1;
	is_int(cix_db_register(db, in, 5, &err), 0, "register five paths");

	/* Some references inside the set asked for, some outside it. */
	const char *ask[] = { P("d"), P("c"), P("g") };
	struct cix_path_info got[3], one;
	is_int(cix_db_exec(db, "begin", &err), 0, "a read transaction");
	is_int(cix_db_query_many(db, ask, 3, got, NULL, NULL, &err), 0, "query three paths at once");
	for (int i = 0; i < 3; i++) {
		ok(cix_db_query(db, ask[i], &one, &err) == 0 && same_info(&got[i], &one),
		   "%s: as cix_db_query gives it", ask[i] + 36);
		cix_path_info_release(&one);
		cix_path_info_release(&got[i]);
	}
	const char *bad[] = { P("a"), P("h") };
	is_int(cix_db_query_many(db, bad, 2, got, NULL, NULL, &err), -CIX_ENOTFOUND,
	       "a path not valid: %s", err.msg);
	ok(!got[0].path && !got[1].path, "nothing left of the others");
	cix_db_exec(db, "commit", NULL);

	/* The collector's deletes do the foreign keys' work themselves. */
	const char *dead[] = { P("c"), P("b"), P("a"), P("d") };
	unsigned char done[4];
	is_int((int)cix_db_invalidate_many(db, dead, 4, done, &err), 3, "three of four deleted");
	ok(done[0] && done[1] && !done[2] && done[3], "a kept: d referred to it when it came");
	is_int(count(db, "select count(*) from Refs"), 0, "no reference left (d's with it)");
	is_int(count(db, "select count(*) from DerivationOutputs"), 0, "nor d's output");
	is_int(count(db, "select count(*) from pragma_foreign_key_check"), 0, "foreign keys hold");
	ok(sqlite3_exec(cix_db_sqlite(db), "insert into Refs values (999, 999)", NULL, NULL,
			NULL) != SQLITE_OK, "and SQLite checks them again afterwards");
	cix_db_close(db);

	char cmd[300];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd))
		return 1;
	return done_testing();
}
