/* db-closure.c - unit tests for closures and graphs (db-closure.c, db-graph.c), key-sort.c */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "tap.h"
#include "db-int.h"
#include "key-sort.h"

#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * A store of N paths with random references to older paths (and some to
 * themselves); closures from a few paths stay small (a look-up per path),
 * closures from many pass an eighth of the store (everything read at
 * once): both must give the graph that a plain walk over the known
 * references gives.
 */
#define N 900

static char *paths[N];
static unsigned char refs[N][N];   /* refs[i][j]: i refers to j */
static void make_paths(void)
{
	static const char b32[] = "0123456789abcdfghijklmnpqrsvwxyz";
	for (int i = 0; i < N; i++) {
		char p[64] = "/s/";
		for (int k = 0; k < 32; k++)
			p[3 + k] = b32[tap_random() % 32];
		snprintf(p + 35, sizeof(p) - 35, "-p%d", i);
		paths[i] = strdup(p);
		for (int k = 0; i && k < 3; k++)
			refs[i][tap_random() % (unsigned)i] = 1;
		if (tap_random() % 8 == 0)
			refs[i][i] = 1;
	}
}

static int register_all(struct cix_db *db, struct cix_err *err)
{
	struct cix_path_info *in = calloc(N, sizeof(*in));
	int r;
	for (int i = 0; i < N; i++) {
		in[i].path = paths[i];
		in[i].nar_size = 1;
		in[i].nar_hash.algo = CIX_HASH_SHA256;
		in[i].nar_hash.len = 32;
		in[i].refs = calloc(N, sizeof(char *));
		for (int j = 0; j < N; j++)
			if (refs[i][j])
				in[i].refs[in[i].nr_refs++] = paths[j];
	}
	r = cix_db_register(db, in, N, err);
	for (int i = 0; i < N; i++)
		free(in[i].refs);
	free(in);
	return r;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The graph a plain walk gives from starts[0..n) through refs (or referrers). */
static int expected(const int *starts, int n, int referrers, char **set, int *member)
{
	int queue[N], nr = 0, k = 0;
	memset(member, 0, N * sizeof(*member));
	for (int i = 0; i < n; i++)
		if (!member[starts[i]])
			member[starts[i]] = 1, queue[nr++] = starts[i];
	for (int q = 0; q < nr; q++)
		for (int j = 0; j < N; j++)
			if ((referrers ? refs[j][queue[q]] : refs[queue[q]][j]) && !member[j])
				member[j] = 1, queue[nr++] = j;
	for (int i = 0; i < N; i++)
		if (member[i])
			set[k++] = paths[i];
	qsort(set, (size_t)k, sizeof(*set), cmp_str);
	return k;
}

static int index_of(const char *p)
{
	for (int i = 0; i < N; i++)
		if (!strcmp(paths[i], p))
			return i;
	return -1;
}

/* g against the walk's set, and each node's references within it. */
static int same_graph(const struct cix_db_graph *g, char **set, int k, const int *member)
{
	if ((int)g->nr != k)
		return 0;
	for (int i = 0; i < k; i++) {
		if (strcmp(g->paths[i], set[i]))
			return 0;
		int from = index_of(set[i]);
		size_t e = g->refs_at[i];
		for (int j = 0; j < k; j++)
			if (refs[from][index_of(set[j])] && member[index_of(set[j])]) {
				if (e >= g->refs_at[i + 1] || g->refs[e] != (size_t)j)
					return 0;
				e++;
			}
		if (e != g->refs_at[i + 1])
			return 0;
	}
	return 1;
}

static void test_closure(struct cix_db *db, const int *starts, int n, int referrers,
			 const char *what)
{
	const char *given[N];
	char *set[N];
	int member[N];
	struct cix_db_graph g;
	struct cix_err err = { 0 };
	for (int i = 0; i < n; i++)
		given[i] = paths[starts[i]];
	int k = expected(starts, n, referrers, set, member);
	int r = cix_db_graph(db, given, (size_t)n,
			     referrers ? CIX_DB_EDGES_REFERRERS_CLOSURE : CIX_DB_EDGES_REQUISITES, &g,
			     &err);
	ok(r == 0 && same_graph(&g, set, k, member), "%s: %d paths, as a plain walk gives", what, k);
	if (!r)
		cix_db_graph_release(&g);
}

static int cmp_keyed(const void *a, const void *b)
{
	const struct cix_keyed *x = a, *y = b;
	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return (x->at > y->at) - (x->at < y->at);
}

/* Against qsort by (key, place): the same order is the sort's stability. */
static void test_key_sort(size_t n, uint64_t mask, const char *what)
{
	struct cix_keyed *a = calloc(n + 1, sizeof(*a)), *b = calloc(n + 1, sizeof(*b));
	for (size_t i = 0; i < n; i++)
		a[i] = b[i] = (struct cix_keyed){ tap_random() & mask, i };
	cix_keyed_sort(a, n);
	qsort(b, n, sizeof(*b), cmp_keyed);
	ok(!memcmp(a, b, n * sizeof(*a)), "key sort: %s", what);
	free(a);
	free(b);
}

/* Strings that share prefixes and first bytes, in strcmp's order as qsort gives it. */
static void test_str_order(void)
{
	static const char *const base[] = { "/s/abcdefghij-x", "/s/abcdefghij", "/s/abcdefghik",
					    "/s/abcdefghij-a", "/s/b", "/s/", "/s/abcdefghij-x" };
	const char *v[7], *sorted[7];
	int good = 1;
	for (int i = 0; i < 7; i++)
		v[i] = sorted[i] = base[i];
	qsort(sorted, 7, sizeof(*sorted), cix_cmp_str);
	struct cix_keyed *k = cix_str_order(v, 7);
	for (int i = 0; i < 7; i++)
		good &= !strcmp(v[k[i].at], sorted[i]);
	ok(good, "string order: as strcmp orders, prefixes and ties included");
	free(k);
	k = cix_str_order(v, 0);
	ok(k != NULL, "string order: nothing");
	free(k);
}

/* Pairs grouped: each list ascending, repeats dropped, empty lists kept. */
static void test_pairs_group(void)
{
	const size_t pairs[][2] = { { 2, 1 }, { 0, 3 }, { 2, 0 }, { 0, 3 }, { 0, 1 }, { 2, 2 } };
	size_t *at, *list;
	cix_pairs_group(pairs, 6, 4, &at, &list);
	ok(at[0] == 0 && at[1] == 2 && at[2] == 2 && at[3] == 5 && at[4] == 5 &&
	   list[0] == 1 && list[1] == 3 && list[2] == 0 && list[3] == 1 && list[4] == 2,
	   "pairs grouped by their first place, ascending, each once");
	free(at);
	free(list);
}

int main(void)
{
	char dir[256], file[300];
	struct cix_err err = { 0 };
	struct cix_db *db;

	test_key_sort(0, ~0ull, "nothing");
	test_key_sort(50, ~0ull, "a few keys");
	test_key_sort(5000, ~0ull, "64-bit keys");
	test_key_sort(5000, 0xff, "many equal keys keep their order");
	test_key_sort(5000, 0xff0000000000ull, "keys that differ in one digit only");
	test_str_order();
	test_pairs_group();

	if (tap_mkdtemp(dir, sizeof(dir), "db-closure") < 0)
		return 1;
	snprintf(file, sizeof(file), "%s/db.sqlite", dir);
	make_paths();
	if (!ok(cix_db_open(file, 1, &db, &err) == 0 && register_all(db, &err) == 0,
		"a store of %d paths", N))
		return done_testing();

	int top[] = { N - 1 }, bottom[] = { 0 }, some[] = { 5, 17, 5 }, many[200];
	for (int i = 0; i < 200; i++)
		many[i] = (i * 37) % N;
	test_closure(db, top, 1, 0, "requisites of the newest path");
	test_closure(db, some, 3, 0, "requisites of a few old paths, one given twice");
	test_closure(db, many, 200, 0, "requisites of 200 paths");
	test_closure(db, bottom, 1, 1, "referrers of the oldest path");
	test_closure(db, some, 3, 1, "referrers of a few paths");
	test_closure(db, top, 1, 1, "referrers of the newest path");

	const char *unknown[] = { "/s/00000000000000000000000000000000-none" };
	struct cix_db_graph g;
	is_int(cix_db_graph(db, unknown, 1, CIX_DB_EDGES_REQUISITES, &g, &err), -CIX_ENOTFOUND,
	       "the closure of an invalid path is an error");

	/* A reference to a row that is gone (a damaged database): an error either way. */
	sqlite3 *h = cix_db_sqlite(db);
	char sql[200];
	snprintf(sql, sizeof(sql),
		 "pragma foreign_keys = off; delete from ValidPaths where path = '%s'",
		 paths[index_of(paths[0])]);
	ok(sqlite3_exec(h, sql, NULL, NULL, NULL) == SQLITE_OK, "a referenced row deleted");
	const char *newest[] = { paths[N - 1] };
	int r = cix_db_graph(db, newest, 1, CIX_DB_EDGES_REQUISITES, &g, &err);
	ok(r == -CIX_EFORMAT && strstr(err.msg, "missing path id"), "whole store: %s", err.msg);
	if (!r)
		cix_db_graph_release(&g);
	int j = 1;
	while (j < N && !refs[j][0])
		j++;
	const char *one[] = { paths[j] };
	r = cix_db_graph(db, one, 1, CIX_DB_EDGES_REQUISITES, &g, &err);
	ok(r == -CIX_EFORMAT && strstr(err.msg, "missing path id"), "a small closure: %s",
	   err.msg);
	if (!r)
		cix_db_graph_release(&g);
	cix_db_close(db);
	return done_testing();
}
