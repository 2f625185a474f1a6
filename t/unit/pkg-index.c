/* pkg-index.c - unit tests for the package index file and its freshness */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "tap.h"
#include "pkg-index.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static char tmp[256];

static void put(const char *rel, const char *text)
{
	char p[512];
	snprintf(p, sizeof(p), "%s/%s", tmp, rel);
	FILE *f = fopen(p, "w");
	if (!f || fputs(text, f) < 0 || fclose(f))
		diag("cannot write %s", p);
}

static struct cix_pkg_entry *add(struct cix_pkg_module *m, const char *name, const char *version,
				 const char *desc)
{
	struct cix_pkg_entry *e = cix_pkg_module_add(m);
	e->name = xstrdup(name);
	e->version = xstrdup(version);
	e->outputs = xstrdup("out,doc");
	e->file = xstrdup(m->rel);
	e->line = 12;
	e->column = 2;
	e->home_page = xstrdup("https://example.org/");
	e->license = xstrdup("GPL 3+");
	e->synopsis = xstrdup("a\tsynopsis with \\ a tab");
	e->description = xstrdup(desc);
	return e;
}

static void test_round_trip(void)
{
	struct cix_pkg_index idx = { 0 }, back;
	struct strbuf a = STRBUF_INIT, b = STRBUF_INIT;
	struct cix_err err = { 0 };

	idx.search_path = xstrdup("/x:/y z");
	ALLOC_GROW(idx.mods, 2, idx.alloc_mods);
	idx.nr_mods = 2;
	memset(idx.mods, 0, 2 * sizeof(*idx.mods));
	idx.mods[0].rel = xstrdup("gnu/packages/a.scm");
	idx.mods[0].dir = xstrdup("/x");
	idx.mods[0].ino = 77;
	idx.mods[0].mtime_sec = 1700000000;
	idx.mods[0].mtime_nsec = 999999999;
	add(&idx.mods[0], "zed", "1.10", "two\nlines\\n, not an escape");
	add(&idx.mods[0], "alpha", "2", "");
	idx.mods[1].rel = xstrdup("gnu/packages/b.scm");
	idx.mods[1].dir = xstrdup("/y z");
	idx.mods[1].error = xstrdup("b.scm:3:0: unbound\tvariable");

	cix_pkg_index_format(&idx, &a);
	is_int(cix_pkg_index_parse(a.buf, a.len, &back, &err), 0, "a formatted index parses");
	cix_pkg_index_format(&back, &b);
	is_mem(b.buf, b.len, a.buf, a.len, "and formats back to the same bytes");
	is_str(back.mods[0].pkgs[0].description, "two\nlines\\n, not an escape",
	       "newlines and backslashes survive");
	is_str(back.mods[0].pkgs[0].synopsis, "a\tsynopsis with \\ a tab", "tabs too");
	is_str(back.mods[1].error, "b.scm:3:0: unbound\tvariable", "a module's error is kept");
	is_int((int)back.mods[0].mtime_nsec, 999999999, "mtime to the nanosecond");

	const struct cix_pkg_entry **v;
	size_t n = cix_pkg_index_list(&back, &v);
	is_int((int)n, 2, "two packages listed");
	is_str(v[0]->name, "alpha", "sorted by name");
	free(v);

	/* Truncations and corruptions of a good index are refused, never half-read. */
	int refused = 1;
	for (size_t cut = 0; cut < a.len; cut++) {
		struct cix_pkg_index t;
		int r = cix_pkg_index_parse(a.buf, cut, &t, &err);
		if (r == 0 && (cut == 0 || a.buf[cut - 1] != '\n'))
			refused = 0;
		if (r < 0 && (t.nr_mods || t.search_path))
			refused = 0;
		cix_pkg_index_release(&t);
	}
	ok(refused, "every cut in the middle of a line is refused and leaves nothing");
	cix_pkg_index_release(&back);
	cix_pkg_index_release(&idx);
	strbuf_release(&a);
	strbuf_release(&b);
}

static void refuse(const char *what, const char *text)
{
	struct cix_pkg_index idx;
	struct cix_err err = { 0 };
	ok(cix_pkg_index_parse(text, strlen(text), &idx, &err) == -CIX_EFORMAT &&
	   !idx.nr_mods && !idx.search_path, "refused: %s", what);
	cix_pkg_index_release(&idx);
}

static void test_hostile(void)
{
	char head[128];
	snprintf(head, sizeof(head), "cix-package-index 1 %s\npath\t/x\n", CIX_VERSION);
	struct strbuf sb = STRBUF_INIT;
	refuse("empty", "");
	refuse("another version", "cix-package-index 1 0.0.0-other\npath\t/x\n");
	strbuf_addf(&sb, "%spackage\ta\t1\tout\tf\t1\t0\th\tl\ts\td\n", head);
	refuse("a package before any module", sb.buf);
	strbuf_reset(&sb);
	strbuf_addf(&sb, "%smodule\tgnu/packages/a.scm\t/x\t1\t2\t3\t4\t5\t\\q\n", head);
	refuse("an unknown escape", sb.buf);
	strbuf_reset(&sb);
	strbuf_addf(&sb, "%smodule\tgnu/packages/a.scm\t/x\t1\t2\t3\t4\t1000000000\t\n", head);
	refuse("nanoseconds out of range", sb.buf);
	strbuf_reset(&sb);
	strbuf_addf(&sb, "%smodule\tgnu/packages/a.scm\t/x\t1\t2\t3\t-4\t5\t\n", head);
	refuse("a signed number", sb.buf);
	strbuf_reset(&sb);
	strbuf_addf(&sb, "%smodule\tgnu/packages/a.scm\t/x\t1\t2\t3\t4\t5\t\t\textra\n", head);
	refuse("too many fields", sb.buf);
	strbuf_reset(&sb);
	strbuf_addstr(&sb, head);
	strbuf_addstr(&sb, "module\t");
	for (int i = 0; i < CIX_PKG_INDEX_MAX_LINE; i++)
		strbuf_addch(&sb, 'a');
	strbuf_addstr(&sb, "\t/x\t1\t2\t3\t4\t5\t\n");
	refuse("a line over the bound", sb.buf);
	strbuf_reset(&sb);
	strbuf_addf(&sb, "%smodule\tgnu/packages/a.scm\t/x\t1\t2\t3\t4\t5\t", head);
	strbuf_add(&sb, "\0\n", 2);
	{
		struct cix_pkg_index idx;
		struct cix_err err = { 0 };
		ok(cix_pkg_index_parse(sb.buf, sb.len, &idx, &err) < 0, "refused: a NUL byte");
		cix_pkg_index_release(&idx);
	}
	strbuf_release(&sb);
}

static void test_freshness(void)
{
	struct cix_pkg_index old, now;
	struct cix_err err = { 0 };
	char path[1024], file[1024];

	static const char *dirs[] = { "a", "a/gnu", "a/gnu/packages", "b", "b/gnu", "b/gnu/packages" };
	for (size_t i = 0; i < ARRAY_SIZE(dirs); i++) {
		snprintf(path, sizeof(path), "%s/%s", tmp, dirs[i]);
		mkdir(path, 0755);
	}
	put("a/gnu/packages/one.scm", "(define-module (gnu packages one))\n");
	put("a/gnu/packages/two.scm", "(define-module (gnu packages two))\n");
	put("b/gnu/packages/two.scm", "shadowed by a's\n");
	put("b/gnu/packages/three.scm", "(define-module (gnu packages three))\n");
	put("b/gnu/packages/notes.txt", "not a module\n");
	snprintf(path, sizeof(path), "%s/a:%s/b:%s/missing", tmp, tmp, tmp);

	is_int(cix_pkg_index_scan(path, &old, &err), 0, "scan of a search path");
	is_int((int)old.nr_mods, 3, "three modules, the shadowed one and other files left out");
	is_str(old.mods[2].rel, "gnu/packages/two.scm", "sorted by name");
	ok(strstr(old.mods[2].dir, "/a") != NULL, "the first directory wins");
	for (size_t i = 0; i < old.nr_mods; i++)
		add(&old.mods[i], old.mods[i].rel + 13, "1", "d");

	snprintf(file, sizeof(file), "%s/cache/sub/index", tmp);
	is_int(cix_pkg_index_save(file, &old, &err), 0, "saved, its directories made");
	cix_pkg_index_release(&old);
	is_int(cix_pkg_index_load(file, &old, &err), 0, "loaded back");

	/* One module edited, one removed, one added. */
	put("a/gnu/packages/one.scm", "(define-module (gnu packages one)) ;; edited\n");
	snprintf(file, sizeof(file), "%s/b/gnu/packages/three.scm", tmp);
	unlink(file);
	put("b/gnu/packages/four.scm", "(define-module (gnu packages four))\n");
	is_int(cix_pkg_index_scan(path, &now, &err), 0, "scanned again");
	is_int((int)cix_pkg_index_reuse(&now, &old), 2, "the edited and the new module are stale");
	ok(now.mods[0].stale && now.mods[1].stale && !now.mods[2].stale, "those two exactly");
	is_int((int)now.mods[2].nr_pkgs, 1, "the unchanged module keeps its packages");
	cix_pkg_index_release(&now);
	cix_pkg_index_release(&old);

	/* Another search path: nothing is reused. */
	snprintf(file, sizeof(file), "%s/cache/sub/index", tmp);
	cix_pkg_index_load(file, &old, &err);
	snprintf(path, sizeof(path), "%s/a", tmp);
	cix_pkg_index_scan(path, &now, &err);
	is_int((int)cix_pkg_index_reuse(&now, &old), (int)now.nr_mods,
	       "with another search path every module is stale");
	cix_pkg_index_release(&now);
	cix_pkg_index_release(&old);
}

static void test_versions(void)
{
	ok(cix_version_cmp("1.10", "1.9") > 0, "1.10 > 1.9");
	ok(cix_version_cmp("2.7.6", "2.7") > 0, "2.7.6 > 2.7");
	ok(cix_version_cmp("590", "590") == 0, "590 = 590");
	ok(cix_version_cmp("99999999999999999999999", "1") != 0, "no overflow trap on long numbers");
}

int main(void)
{
	if (tap_mkdtemp(tmp, sizeof(tmp), "pkg-index"))
		return 1;
	test_round_trip();
	test_hostile();
	test_freshness();
	test_versions();
	return done_testing();
}
