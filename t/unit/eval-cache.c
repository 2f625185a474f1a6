/* eval-cache.c - unit tests for the evaluation cache: its file, its entries, its stamp */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "tap.h"
#include "eval-cache.h"
#include "profile.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static char tmp[256];

#define STAMP_A "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
#define STAMP_B "fedcba9876543210fedcba9876543210fedcba9876543210fedcba9876543210"
#define STORE "/cix/store/"
#define HELLO_DRV STORE "0d2g7p9q3l6hsg6vbyfn3yf1vgq4mcr5-hello-2.12.drv"
#define HELLO_OUT STORE "a1ry3d2bq4zsw6mfk8v9c0x7j5n1h3p2-hello-2.12"
#define HELLO_DOC STORE "a1ry3d2bq4zsw6mfk8v9c0x7j5n1h3p2-hello-2.12-doc"
#define GCC_DRV STORE "4n5m6b7v8c9x0z1l2k3j4h5g6f7d8s9a-gcc-toolchain-12.drv"
#define GCC_OUT STORE "3m4n5b6v7c8x9z0l1k2j3h4g5f6d7s8a-gcc-toolchain-12"
#define BINUTILS STORE "1b2c3d4f5g6h7i8j9k0l1m2n3p4q5r6s-binutils-2.41"

static void put_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	if (!f || fputs(text, f) < 0 || fclose(f))
		diag("cannot write %s", path);
}

/* A manifest of one entry, as the lowering makes it. */
static char *manifest_text(const char *name, const char *version, const char *path,
			   const char *dep)
{
	struct cix_manifest m = { 0 };
	struct strbuf sb = STRBUF_INIT;
	struct cix_manifest_entry *e = cix_manifest_add(&m, name, version, "out", path);
	if (dep)
		strvec_push(&e->deps, dep);
	cix_manifest_format(&m, &sb);
	cix_manifest_release(&m);
	return strbuf_detach(&sb, NULL);
}

static void add_file(struct cix_eval_entry *e, const char *path, uint64_t ino, long nsec)
{
	struct cix_file_id *id;
	e->files = xrealloc(e->files, (e->nr_files + 1) * sizeof(*e->files));
	id = &e->files[e->nr_files++];
	memset(id, 0, sizeof(*id));
	id->path = xstrdup(path);
	id->dev = 2049;
	id->ino = ino;
	id->size = 812;
	id->mtime_sec = 1700000000;
	id->mtime_nsec = nsec;
	id->ctime_sec = -1;
	id->ctime_nsec = 0;
}

/* Two entries, put in the order opposite to their specs'. */
static void make_cache(struct cix_eval_cache *c)
{
	struct cix_eval_entry *e;
	memset(c, 0, sizeof(*c));
	snprintf(c->stamp, sizeof(c->stamp), "%s", STAMP_A);

	e = cix_eval_cache_put(c, "hello");
	e->drv_path = xstrdup(HELLO_DRV);
	strvec_push(&e->out_paths, HELLO_OUT);
	strvec_push(&e->out_paths, HELLO_DOC);
	e->propagates = 0;
	e->manifest = manifest_text("hello", "2.12", HELLO_OUT, NULL);
	add_file(e, "/src/hello\tpatches/fix.patch", 1835021, 999999999);
	add_file(e, "/src/hello/extra\\n.patch", 1835022, 0);

	e = cix_eval_cache_put(c, "gcc-toolchain@12");
	e->drv_path = xstrdup(GCC_DRV);
	strvec_push(&e->out_paths, GCC_OUT);
	e->propagates = 1;
	e->manifest = manifest_text("gcc-toolchain", "12", GCC_OUT, BINUTILS);
}

/* A cache of no entries: the magic line alone. */
static void test_empty(void)
{
	static const char text[] = "cix-eval-cache 1 " STAMP_A "\n";
	struct cix_eval_cache c;
	struct strbuf sb = STRBUF_INIT;
	struct cix_err err = { 0 };
	is_int(cix_eval_cache_parse(text, strlen(text), &c, &err), 0, "a cache of no entries parses");
	ok(c.nr == 0 && !strcmp(c.stamp, STAMP_A), "empty, with its stamp");
	ok(cix_eval_cache_find(&c, "hello") == NULL, "nothing found in it");
	cix_eval_cache_format(&c, &sb);
	is_mem(sb.buf, sb.len, text, strlen(text), "it formats back to the magic line");
	cix_eval_cache_release(&c);
	strbuf_release(&sb);
}

static void test_round_trip(void)
{
	struct cix_eval_cache c, back, again;
	struct strbuf a = STRBUF_INIT, b = STRBUF_INIT, d = STRBUF_INIT;
	struct cix_err err = { 0 };
	char *m;

	make_cache(&c);
	cix_eval_cache_format(&c, &a);
	is_int(cix_eval_cache_parse(a.buf, a.len, &back, &err), 0, "a formatted cache parses");
	is_str(back.stamp, STAMP_A, "its stamp is kept");
	is_int((int)back.nr, 2, "two entries");
	is_int((int)back.nr_sorted, 2, "all of them sorted");
	is_str(back.v[0].spec, "gcc-toolchain@12", "sorted by spec: gcc-toolchain first");
	is_str(back.v[1].spec, "hello", "then hello");

	const struct cix_eval_entry *h = &back.v[1], *g = &back.v[0];
	is_str(h->drv_path, HELLO_DRV, "the .drv");
	is_int((int)h->out_paths.nr, 2, "two outputs");
	is_str(h->out_paths.v[0], HELLO_OUT, "the first output");
	is_str(h->out_paths.v[1], HELLO_DOC, "the second output, in order");
	is_int(h->propagates, 0, "hello propagates nothing");
	is_int(g->propagates, 1, "gcc-toolchain propagates");
	m = manifest_text("hello", "2.12", HELLO_OUT, NULL);
	is_str(h->manifest, m, "the manifest text, newlines and tabs kept");
	free(m);
	m = manifest_text("gcc-toolchain", "12", GCC_OUT, BINUTILS);
	is_str(g->manifest, m, "the other manifest text, its dependency kept");
	free(m);
	{
		struct cix_manifest mf;
		ok(cix_manifest_parse(g->manifest, strlen(g->manifest), &mf, &err) == 0 &&
		   mf.nr == 1 && mf.v[0].deps.nr == 1 && !strcmp(mf.v[0].deps.v[0], BINUTILS),
		   "it is a manifest of one entry");
		cix_manifest_release(&mf);
	}
	is_int((int)h->nr_files, 2, "hello's two files");
	is_int((int)g->nr_files, 0, "gcc-toolchain's none");
	is_str(h->files[0].path, "/src/hello\tpatches/fix.patch", "a tab in a file name");
	is_str(h->files[1].path, "/src/hello/extra\\n.patch", "a backslash too");
	ok(h->files[0].dev == 2049 && h->files[0].ino == 1835021 && h->files[0].size == 812 &&
	   h->files[0].mtime_sec == 1700000000 && h->files[0].mtime_nsec == 999999999 &&
	   h->files[0].ctime_sec == -1 && h->files[0].ctime_nsec == 0,
	   "a file's identity, to the nanosecond, a negative time kept");

	/* Sorted on the way: formatting what was parsed is a fixed point. */
	cix_eval_cache_format(&back, &b);
	ok(b.len == a.len, "the same length formatted again");
	ok(strstr(b.buf, "spec\tgcc-toolchain@12") < strstr(b.buf, "spec\thello"),
	   "formatted in the order of the specs");
	is_int(cix_eval_cache_parse(b.buf, b.len, &again, &err), 0, "and parses");
	cix_eval_cache_format(&again, &d);
	is_mem(d.buf, d.len, b.buf, b.len, "and formats back to the same bytes");
	cix_eval_cache_release(&again);

	/* Every cut in the middle of a line is refused, and leaves nothing. */
	int refused = 1;
	for (size_t cut = 0; cut < b.len; cut++) {
		struct cix_eval_cache t;
		int r = cix_eval_cache_parse(b.buf, cut, &t, &err);
		if (r == 0 && (cut == 0 || b.buf[cut - 1] != '\n'))
			refused = 0;
		if (r < 0 && (t.nr || t.v || t.stamp[0]))
			refused = 0;
		cix_eval_cache_release(&t);
	}
	ok(refused, "every cut in the middle of a line is refused and leaves nothing");

	cix_eval_cache_release(&back);
	cix_eval_cache_release(&c);
	strbuf_release(&a);
	strbuf_release(&b);
	strbuf_release(&d);
}

static void test_find(void)
{
	struct cix_eval_cache c, back;
	struct strbuf a = STRBUF_INIT;
	struct cix_err err = { 0 };
	const struct cix_eval_entry *e;
	struct cix_eval_entry *p;

	make_cache(&c);
	cix_eval_cache_format(&c, &a);
	cix_eval_cache_release(&c);
	is_int(cix_eval_cache_parse(a.buf, a.len, &back, &err), 0, "parsed");

	e = cix_eval_cache_find(&back, "gcc-toolchain@12");
	ok(e && !strcmp(e->drv_path, GCC_DRV), "found by spec after parse (no files: valid)");
	ok(cix_eval_cache_find(&back, "hello") == NULL,
	   "an entry whose recorded files are not there is not found");
	ok(cix_eval_cache_find(&back, "coreutils") == NULL, "a spec never put is not found");

	/* Put after parse: after the sorted ones, found all the same. */
	p = cix_eval_cache_put(&back, "aaa-first");
	p->drv_path = xstrdup(STORE "5k2c8j1n0b7v6x4z3l9q8w2e1r5t6y7u-aaa-1.drv");
	strvec_push(&p->out_paths, STORE "5k2c8j1n0b7v6x4z3l9q8w2e1r5t6y7u-aaa-1");
	p->manifest = manifest_text("aaa", "1", STORE "5k2c8j1n0b7v6x4z3l9q8w2e1r5t6y7u-aaa-1", NULL);
	p = cix_eval_cache_put(&back, "zzz-last");
	ok(cix_eval_cache_find(&back, "zzz-last") == NULL,
	   "an entry put but not filled in (no .drv, no manifest) is not found");
	p->drv_path = xstrdup(STORE "7h4g3f2d1s0a9p8o7i6u5y4t3r2e1w0q-zzz-1.drv");
	strvec_push(&p->out_paths, STORE "7h4g3f2d1s0a9p8o7i6u5y4t3r2e1w0q-zzz-1");
	p->manifest = manifest_text("zzz", "1", STORE "7h4g3f2d1s0a9p8o7i6u5y4t3r2e1w0q-zzz-1", NULL);
	is_int((int)back.nr, 4, "four entries");
	e = cix_eval_cache_find(&back, "aaa-first");
	ok(e && !strcmp(e->spec, "aaa-first"), "a spec put after parse is found (sorting before)");
	e = cix_eval_cache_find(&back, "zzz-last");
	ok(e && !strcmp(e->spec, "zzz-last"), "and another (sorting after)");
	e = cix_eval_cache_find(&back, "gcc-toolchain@12");
	ok(e && !strcmp(e->drv_path, GCC_DRV), "the parsed ones are still found");

	/* Put again: the entry is replaced, not added. */
	p = cix_eval_cache_put(&back, "gcc-toolchain@12");
	is_int((int)back.nr, 4, "putting a spec already there replaces its entry");
	ok(p->drv_path == NULL && p->manifest == NULL && p->out_paths.nr == 0 && p->nr_files == 0,
	   "which is fresh");
	ok(cix_eval_cache_find(&back, "gcc-toolchain@12") == NULL, "and not found until filled in");
	p->drv_path = xstrdup(GCC_DRV);
	strvec_push(&p->out_paths, GCC_OUT);
	p->manifest = manifest_text("gcc-toolchain", "12", GCC_OUT, NULL);
	e = cix_eval_cache_find(&back, "gcc-toolchain@12");
	ok(e == p, "then found");

	/* What was put formats and parses with the rest, sorted. */
	{
		struct strbuf b = STRBUF_INIT;
		struct cix_eval_cache t;
		cix_eval_cache_format(&back, &b);
		is_int(cix_eval_cache_parse(b.buf, b.len, &t, &err), 0, "the cache with puts parses");
		ok(t.nr == 4 && !strcmp(t.v[0].spec, "aaa-first") &&
		   !strcmp(t.v[3].spec, "zzz-last"), "sorted");
		cix_eval_cache_release(&t);
		strbuf_release(&b);
	}
	cix_eval_cache_release(&back);
	strbuf_release(&a);
}

static void test_file_identity(void)
{
	struct cix_eval_cache c = { 0 };
	struct cix_eval_entry *p;
	struct cix_file_id id;
	char file[512], dir[512];

	snprintf(file, sizeof(file), "%s/local.patch", tmp);
	put_file(file, "--- a\n+++ b\n");
	is_int(cix_file_id_get(file, &id), 1, "a regular file has an identity");
	ok(id.path && !strcmp(id.path, file), "its name");
	is_int((int)id.size, 12, "its size");

	snprintf(c.stamp, sizeof(c.stamp), "%s", STAMP_A);
	p = cix_eval_cache_put(&c, "my-hello");
	p->drv_path = xstrdup(HELLO_DRV);
	strvec_push(&p->out_paths, HELLO_OUT);
	p->manifest = manifest_text("hello", "2.12", HELLO_OUT, NULL);
	p->files = xrealloc(NULL, sizeof(*p->files));
	p->files[0] = id;      /* the entry owns its name now */
	p->nr_files = 1;

	ok(cix_eval_cache_find(&c, "my-hello") == p, "found while the file is unchanged");
	ok(cix_eval_cache_find(&c, "my-hello") == p, "and again");

	/* Through the file too. */
	{
		struct strbuf sb = STRBUF_INIT;
		struct cix_eval_cache back;
		struct cix_err err = { 0 };
		cix_eval_cache_format(&c, &sb);
		is_int(cix_eval_cache_parse(sb.buf, sb.len, &back, &err), 0, "parsed");
		ok(cix_eval_cache_find(&back, "my-hello") == &back.v[0],
		   "found after a round trip while the file is unchanged");
		put_file(file, "--- a\n+++ b\n@@ -1 +1 @@\n");
		ok(cix_eval_cache_find(&back, "my-hello") == NULL,
		   "not found once the file is rewritten with another size");
		cix_eval_cache_release(&back);
		strbuf_release(&sb);
	}
	ok(cix_eval_cache_find(&c, "my-hello") == NULL, "nor in the cache it came from");

	unlink(file);
	ok(cix_eval_cache_find(&c, "my-hello") == NULL, "nor when the file is gone");
	cix_eval_cache_release(&c);

	snprintf(dir, sizeof(dir), "%s/a-dir", tmp);
	mkdir(dir, 0755);
	is_int(cix_file_id_get(dir, &id), 0, "a directory has none");
	cix_file_id_release(&id);
	is_int(cix_file_id_get(file, &id), -ENOENT, "nor has a missing file: -ENOENT");
	cix_file_id_release(&id);
}

static void refuse(const char *what, const char *text)
{
	struct cix_eval_cache c;
	struct cix_err err = { 0 };
	int r = cix_eval_cache_parse(text, strlen(text), &c, &err);
	if (!ok(r < 0 && !c.nr && !c.v && !c.nr_sorted && !c.stamp[0] && err.msg[0],
		"refused: %s", what))
		diag("  returned %d, %zu entries", r, c.nr);
	cix_eval_cache_release(&c);
}

#define HEAD "cix-eval-cache 1 " STAMP_A "\n"
#define SPEC_HELLO "spec\thello\t" HELLO_DRV "\t0\t" HELLO_OUT "\n"
#define MANIFEST "manifest\tcix-manifest 2\\nhello\\t2.12\\tout\\t" HELLO_OUT "\\t\\n\n"
#define FILE_LINE(ino, nsec) "file\t/tmp/a/f.patch\t2049\t" ino "\t812\t1700000000\t" nsec "\t1\t0\n"

static void test_hostile(void)
{
	struct strbuf sb = STRBUF_INIT;

	/* The good input the refusals are made of parses. */
	{
		const char *good = HEAD SPEC_HELLO FILE_LINE("77", "999999999") MANIFEST;
		struct cix_eval_cache c;
		struct cix_err err = { 0 };
		ok(cix_eval_cache_parse(good, strlen(good), &c, &err) == 0 && c.nr == 1 &&
		   c.v[0].nr_files == 1, "the input the refusals are made from parses");
		cix_eval_cache_release(&c);
	}

	refuse("empty", "");
	refuse("bad magic", "cix-eval-cache 2 " STAMP_A "\n" SPEC_HELLO MANIFEST);
	refuse("another file's magic", "cix-package-index 1 0.1.0\n");
	refuse("a stamp too short", "cix-eval-cache 1 0123456789abcdef\n");
	refuse("a stamp too long", "cix-eval-cache 1 " STAMP_A "0\n");
	refuse("a stamp in uppercase",
	       "cix-eval-cache 1 0123456789ABCDEF0123456789abcdef0123456789abcdef0123456789abcdef\n");
	refuse("a stamp not hex",
	       "cix-eval-cache 1 0123456789abcdefg123456789abcdef0123456789abcdef0123456789abcdef\n");
	refuse("a file line before any spec", HEAD FILE_LINE("77", "0") SPEC_HELLO MANIFEST);
	refuse("a manifest line before any spec", HEAD MANIFEST SPEC_HELLO MANIFEST);
	refuse("a spec without a manifest line", HEAD SPEC_HELLO);
	refuse("a spec without a manifest line, then another",
	       HEAD SPEC_HELLO "spec\tzed\t" HELLO_DRV "\t0\t" HELLO_OUT "\n" MANIFEST);
	refuse("two manifest lines for one spec", HEAD SPEC_HELLO MANIFEST MANIFEST);
	refuse("a file line after the manifest", HEAD SPEC_HELLO MANIFEST FILE_LINE("77", "0"));
	refuse("a duplicate spec", HEAD SPEC_HELLO MANIFEST SPEC_HELLO MANIFEST);
	refuse("a duplicate spec, not adjacent",
	       HEAD SPEC_HELLO MANIFEST "spec\taaa\t" HELLO_DRV "\t0\t" HELLO_OUT "\n" MANIFEST
	       SPEC_HELLO MANIFEST);
	refuse("a relative drv path", HEAD "spec\thello\tcix/store/x.drv\t0\t" HELLO_OUT "\n" MANIFEST);
	refuse("a relative output path", HEAD "spec\thello\t" HELLO_DRV "\t0\tout\n" MANIFEST);
	/* A spec without outputs is what format writes for an entry without any. */
	{
		const char *none = HEAD "spec\thello\t" HELLO_DRV "\t0\n" MANIFEST;
		struct cix_eval_cache c;
		struct cix_err err = { 0 };
		ok(cix_eval_cache_parse(none, strlen(none), &c, &err) == 0 && c.nr == 1 &&
		   c.v[0].out_paths.nr == 0, "accepted: a spec without outputs");
		cix_eval_cache_release(&c);
	}
	refuse("an empty spec", HEAD "spec\t\t" HELLO_DRV "\t0\t" HELLO_OUT "\n" MANIFEST);
	refuse("propagates neither 0 nor 1", HEAD "spec\thello\t" HELLO_DRV "\t2\t" HELLO_OUT "\n"
	       MANIFEST);
	refuse("a relative file path",
	       HEAD SPEC_HELLO "file\tf.patch\t2049\t77\t812\t1700000000\t0\t1\t0\n" MANIFEST);
	refuse("a nanosecond field > 999999999",
	       HEAD SPEC_HELLO FILE_LINE("77", "1000000000") MANIFEST);
	refuse("a negative nanosecond field", HEAD SPEC_HELLO FILE_LINE("77", "-1") MANIFEST);
	refuse("a ctime nanosecond field > 999999999",
	       HEAD SPEC_HELLO "file\t/tmp/a/f.patch\t2049\t77\t812\t1\t0\t1\t1000000000\n" MANIFEST);
	refuse("a negative inode", HEAD SPEC_HELLO FILE_LINE("-77", "0") MANIFEST);
	refuse("an inode over 64 bits",
	       HEAD SPEC_HELLO FILE_LINE("18446744073709551616", "0") MANIFEST);
	refuse("an inode not a number", HEAD SPEC_HELLO FILE_LINE("77x", "0") MANIFEST);
	refuse("an empty inode", HEAD SPEC_HELLO FILE_LINE("", "0") MANIFEST);
	refuse("a file line short of a field",
	       HEAD SPEC_HELLO "file\t/tmp/a/f.patch\t2049\t77\t812\t1\t0\t1\n" MANIFEST);
	refuse("a manifest line of two fields", HEAD SPEC_HELLO "manifest\ta\tb\n");
	refuse("an unknown line", HEAD SPEC_HELLO "drv\tx\n" MANIFEST);
	refuse("an empty line", HEAD SPEC_HELLO "\n" MANIFEST);
	refuse("an unknown escape", HEAD SPEC_HELLO "manifest\tcix-manifest 2\\q\n");
	refuse("a line without a final newline",
	       HEAD SPEC_HELLO "manifest\tcix-manifest 2\\nhello\\t2.12\\tout\\t" HELLO_OUT "\\t\\n");
	refuse("a magic line without a final newline", "cix-eval-cache 1 " STAMP_A);

	/* Bounds. */
	strbuf_addstr(&sb, HEAD "spec\t");
	for (int i = 0; i < CIX_EVAL_CACHE_MAX_LINE; i++)
		strbuf_addch(&sb, 'a');
	strbuf_addstr(&sb, "\t" HELLO_DRV "\t0\t" HELLO_OUT "\n" MANIFEST);
	refuse("a line over the bound", sb.buf);
	strbuf_reset(&sb);
	strbuf_addstr(&sb, HEAD "spec\thello\t" HELLO_DRV "\t0");
	for (int i = 0; i < 2000; i++)
		strbuf_addstr(&sb, "\t/o");
	strbuf_addstr(&sb, "\n" MANIFEST);
	refuse("too many fields", sb.buf);
	strbuf_reset(&sb);

	/* A NUL byte. */
	{
		struct cix_eval_cache c;
		struct cix_err err = { 0 };
		strbuf_addstr(&sb, HEAD "spec\thel");
		strbuf_add(&sb, "\0", 1);
		strbuf_addstr(&sb, "lo\t" HELLO_DRV "\t0\t" HELLO_OUT "\n" MANIFEST);
		ok(cix_eval_cache_parse(sb.buf, sb.len, &c, &err) < 0 && !c.nr && !c.v,
		   "refused: a NUL byte");
		cix_eval_cache_release(&c);
		strbuf_reset(&sb);
		strbuf_add(&sb, "cix-eval-cache 1 ", 17);
		strbuf_add(&sb, STAMP_A, 63);
		strbuf_add(&sb, "\0\n", 2);
		ok(cix_eval_cache_parse(sb.buf, sb.len, &c, &err) < 0 && !c.nr && !c.stamp[0],
		   "refused: a NUL byte in the stamp");
		cix_eval_cache_release(&c);
	}
	strbuf_release(&sb);
}

static void test_load(void)
{
	struct cix_eval_cache c, l;
	struct cix_err err = { 0 };
	char file[512];

	make_cache(&c);
	snprintf(file, sizeof(file), "%s/cache/eval/0123456789abcdef", tmp);
	is_int(cix_eval_cache_save(file, &c, &err), 0, "saved, its directories made");
	cix_eval_cache_release(&c);

	cix_eval_cache_load(file, STAMP_A, &l);
	is_int((int)l.nr, 2, "loaded with its stamp: its entries");
	is_str(l.stamp, STAMP_A, "and its stamp");
	ok(cix_eval_cache_find(&l, "gcc-toolchain@12") != NULL, "an entry of it found");
	cix_eval_cache_release(&l);

	cix_eval_cache_load(file, STAMP_B, &l);
	is_int((int)l.nr, 0, "loaded with another stamp: empty");
	ok(l.v == NULL, "nothing allocated");
	is_str(l.stamp, STAMP_B, "having the new stamp");
	ok(cix_eval_cache_find(&l, "gcc-toolchain@12") == NULL, "nothing found in it");
	cix_eval_cache_release(&l);

	put_file(file, "cix-eval-cache 1 " STAMP_A "\nspec\tbroken\n");
	cix_eval_cache_load(file, STAMP_A, &l);
	ok(l.nr == 0 && !strcmp(l.stamp, STAMP_A), "a file that does not parse: empty, the stamp given");
	cix_eval_cache_release(&l);

	snprintf(file, sizeof(file), "%s/cache/eval/missing", tmp);
	cix_eval_cache_load(file, STAMP_B, &l);
	ok(l.nr == 0 && !strcmp(l.stamp, STAMP_B), "no file: empty, the stamp given");
	cix_eval_cache_release(&l);
	cix_eval_cache_load(NULL, STAMP_B, &l);
	ok(l.nr == 0 && !strcmp(l.stamp, STAMP_B), "no cache file at all: likewise");
	cix_eval_cache_release(&l);
}

static int is_stamp(const char *s)
{
	if (strlen(s) != 64)
		return 0;
	for (; *s; s++)
		if (!strchr("0123456789abcdef", *s))
			return 0;
	return 1;
}

/* mtime of path set to sec (ctime becomes now). */
static void set_mtime(const char *path, time_t sec)
{
	struct timespec ts[2] = { { sec, 0 }, { sec, 0 } };
	if (utimensat(AT_FDCWD, path, ts, 0) < 0)
		diag("cannot set the times of %s", path);
}

static void test_stamp(void)
{
	char search[1200], other[1200], compiled[600], path[700], s0[65], s1[65], s2[65];
	struct cix_err err = { 0 };
	static const char *dirs[] = { "s", "s/gnu", "s/gnu/packages", "t", "go", "go/gnu" };
	struct timespec pause = { 0, 10 * 1000 * 1000 };

	for (size_t i = 0; i < ARRAY_SIZE(dirs); i++) {
		snprintf(path, sizeof(path), "%s/%s", tmp, dirs[i]);
		mkdir(path, 0755);
	}
	snprintf(path, sizeof(path), "%s/s/gnu/packages/one.scm", tmp);
	put_file(path, "(define-module (gnu packages one))\n");
	snprintf(path, sizeof(path), "%s/t/two.scm", tmp);
	put_file(path, "(define-module (two))\n");
	snprintf(path, sizeof(path), "%s/go/gnu/one.go", tmp);
	put_file(path, "GOOF\n");
	snprintf(search, sizeof(search), "%s/s:%s/t:%s/missing", tmp, tmp, tmp);
	snprintf(compiled, sizeof(compiled), "%s/go", tmp);

	is_int(cix_eval_stamp(search, compiled, "/cix/store", "x86_64-linux", s0, &err), 0,
	       "a stamp");
	ok(is_stamp(s0), "of 64 lowercase hex digits");
	is_int(cix_eval_stamp(search, compiled, "/cix/store", "x86_64-linux", s1, &err), 0,
	       "the stamp again");
	is_str(s1, s0, "nothing changed: the same stamp");
	cix_eval_stamp(search, compiled, "/other/store", "x86_64-linux", s1, &err);
	ok(strcmp(s1, s0) != 0, "another store: another stamp");
	cix_eval_stamp(search, compiled, "/cix/store", "aarch64-linux", s1, &err);
	ok(strcmp(s1, s0) != 0, "another system: another stamp");
	snprintf(other, sizeof(other), "%s/t:%s/s:%s/missing", tmp, tmp, tmp);
	cix_eval_stamp(other, compiled, "/cix/store", "x86_64-linux", s1, &err);
	ok(strcmp(s1, s0) != 0, "the search path in another order: another stamp");

	/* Touched: another mtime. */
	snprintf(path, sizeof(path), "%s/s/gnu/packages/one.scm", tmp);
	set_mtime(path, 1000000000);
	cix_eval_stamp(search, compiled, "/cix/store", "x86_64-linux", s1, &err);
	ok(strcmp(s1, s0) != 0, "a module touched: another stamp");
	cix_eval_stamp(search, compiled, "/cix/store", "x86_64-linux", s2, &err);
	is_str(s2, s1, "and the same again after");

	/* Modified: size and times. */
	nanosleep(&pause, NULL);
	put_file(path, "(define-module (gnu packages one)) ;; edited\n");
	cix_eval_stamp(search, compiled, "/cix/store", "x86_64-linux", s2, &err);
	ok(strcmp(s2, s1) != 0 && strcmp(s2, s0) != 0, "a module modified: another stamp");
	memcpy(s1, s2, sizeof(s1));

	/* Modified in place, same size: its times. */
	nanosleep(&pause, NULL);
	put_file(path, "(define-module (gnu packages one)) ;; EDITED\n");
	cix_eval_stamp(search, compiled, "/cix/store", "x86_64-linux", s2, &err);
	ok(strcmp(s2, s1) != 0, "modified keeping its size: another stamp");
	memcpy(s1, s2, sizeof(s1));

	/* A module added, in the second directory of the search path. */
	nanosleep(&pause, NULL);
	snprintf(path, sizeof(path), "%s/t/three.scm", tmp);
	put_file(path, "(define-module (three))\n");
	cix_eval_stamp(search, compiled, "/cix/store", "x86_64-linux", s2, &err);
	ok(strcmp(s2, s1) != 0, "a module added: another stamp");
	memcpy(s1, s2, sizeof(s1));

	/* A compiled module touched. */
	snprintf(path, sizeof(path), "%s/go/gnu/one.go", tmp);
	set_mtime(path, 1000000000);
	cix_eval_stamp(search, compiled, "/cix/store", "x86_64-linux", s2, &err);
	ok(strcmp(s2, s1) != 0, "a compiled module touched: another stamp");
	memcpy(s1, s2, sizeof(s1));

	/* A file that is not a module: not seen. */
	snprintf(path, sizeof(path), "%s/s/gnu/packages/notes.txt", tmp);
	put_file(path, "not a module\n");
	cix_eval_stamp(search, compiled, "/cix/store", "x86_64-linux", s2, &err);
	is_str(s2, s1, "a file not a module added: the same stamp");

	/* A module removed. */
	snprintf(path, sizeof(path), "%s/t/three.scm", tmp);
	unlink(path);
	cix_eval_stamp(search, compiled, "/cix/store", "x86_64-linux", s2, &err);
	ok(strcmp(s2, s1) != 0, "a module removed: another stamp");

	/* The directory that was missing made, with a module. */
	memcpy(s1, s2, sizeof(s1));
	snprintf(path, sizeof(path), "%s/missing", tmp);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/missing/four.scm", tmp);
	put_file(path, "(define-module (four))\n");
	cix_eval_stamp(search, compiled, "/cix/store", "x86_64-linux", s2, &err);
	ok(strcmp(s2, s1) != 0, "a module in a directory that was missing: another stamp");
}

static void cleanup(void)
{
	char cmd[300];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmp);
	if (system(cmd) != 0)
		diag("cannot remove %s", tmp);
}

int main(void)
{
	if (tap_mkdtemp(tmp, sizeof(tmp), "eval-cache"))
		return 1;
	test_empty();
	test_round_trip();
	test_find();
	test_file_identity();
	test_hostile();
	test_load();
	test_stamp();
	cleanup();
	return done_testing();
}
