/* profile.c - unit tests for profiles' manifests and generations */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "tap.h"
#include "profile.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static char tmp[256];

static void tpath(char *buf, size_t size, const char *rel)
{
	snprintf(buf, size, "%s/%s", tmp, rel);
}

static void put(const char *rel, const char *text)
{
	char p[512];
	tpath(p, sizeof(p), rel);
	FILE *f = fopen(p, "w");
	if (!f || fputs(text, f) < 0 || fclose(f))
		diag("cannot write %s", p);
}

static void mkdir_t(const char *rel)
{
	char p[512];
	tpath(p, sizeof(p), rel);
	if (mkdir(p, 0755) < 0)
		diag("cannot make %s", p);
}

/* ---- the manifest ---- */

static void fill(struct cix_manifest *m)
{
	struct cix_manifest_entry *e;
	struct cix_search_path sp = { 0 };
	e = cix_manifest_add(m, "zed", "1.10", "out", "/cix/store/aaa-zed-1.10");
	strvec_push(&e->deps, "/cix/store/bbb-libzed-1");
	strvec_push(&e->deps, "/cix/store/ccc-libc");
	/* Two search paths: Guix's defaults, and every field set and odd. */
	sp.variable = "TERMINFO_DIRS";
	sp.separator = ":";
	strvec_push(&sp.files, "share/terminfo");
	cix_manifest_entry_add_search_path(e, &sp);
	strvec_clear(&sp.files);
	sp.variable = "ODD_1";
	sp.separator = NULL;
	sp.file_type = CIX_FILE_REGULAR;
	sp.file_pattern = "^a\tb\\c\n$";
	strvec_push(&sp.files, "etc/x\ty");
	strvec_push(&sp.files, "lib\\z\n");
	cix_manifest_entry_add_search_path(e, &sp);
	strvec_clear(&sp.files);
	cix_manifest_add(m, "hello", "2.12", "out", "/cix/store/ddd-hello-2.12");
	e = cix_manifest_add(m, "a\tname\\with\nodd bytes", "", "doc", "/weird path\t/x\\");
	strvec_push(&e->deps, "/dep\twith\\escapes\n");
	/* No files at all: a line of six fields. */
	sp.variable = "NOTHING";
	sp.separator = ";";
	sp.file_type = CIX_FILE_SYMLINK;
	sp.file_pattern = NULL;
	cix_manifest_entry_add_search_path(e, &sp);
	cix_manifest_add(m, "hello", "2.12", "doc", "/cix/store/eee-hello-2.12-doc");
}

static void test_round_trip(void)
{
	struct cix_manifest m = { 0 }, back;
	struct strbuf a = STRBUF_INIT, b = STRBUF_INIT;
	struct cix_err err = { 0 };

	fill(&m);
	cix_manifest_format(&m, &a);
	ok(!strncmp(a.buf, "cix-manifest 2\n", 15), "the first line is the version, 2");
	ok(strstr(a.buf, "/cix/store/ccc-libc\n\tsearch-path\tTERMINFO_DIRS\t:\tdirectory\t"
		  "\tshare/terminfo\n\tsearch-path\tODD_1\t\tregular\t^a\\tb\\\\c\\n$"
		  "\tetc/x\\ty\tlib\\\\z\\n\nhello\t") != NULL,
	   "search paths follow their entry, escaped, a missing separator empty");
	ok(strstr(a.buf, "\tsearch-path\tNOTHING\t;\tsymlink\t\n") != NULL,
	   "no files: nothing after the pattern");
	ok(strstr(a.buf, "\tout\t/cix/store/aaa-zed-1.10\t/cix/store/bbb-libzed-1 /cix/store/ccc-libc\n")
	   != NULL, "the dependencies are separated by single spaces");
	ok(strstr(a.buf, "/cix/store/ddd-hello-2.12\t\n") != NULL, "no dependencies: an empty field");
	is_int(cix_manifest_parse(a.buf, a.len, &back, &err), 0, "a formatted manifest parses");
	cix_manifest_format(&back, &b);
	is_mem(b.buf, b.len, a.buf, a.len, "and formats back to the same bytes");
	is_int((int)back.nr, 4, "four entries");
	is_str(back.v[2].name, "a\tname\\with\nodd bytes", "tabs, backslashes, newlines survive");
	is_str(back.v[2].version, "", "an empty version is kept");
	is_str(back.v[2].path, "/weird path\t/x\\", "in the path too");
	is_int((int)back.v[2].deps.nr, 1, "one dependency");
	is_str(back.v[2].deps.v[0], "/dep\twith\\escapes\n", "escaped too");
	is_int((int)back.v[0].deps.nr, 2, "two dependencies");
	is_str(back.v[0].deps.v[1], "/cix/store/ccc-libc", "in their order");
	is_int((int)back.v[0].nr_search_paths, 2, "two search paths");
	{
		const struct cix_search_path *sp = &back.v[0].search_paths[0];
		is_str(sp->variable, "TERMINFO_DIRS", "the variable");
		is_str(sp->separator, ":", "the separator");
		ok(sp->file_type == CIX_FILE_DIRECTORY && !sp->file_pattern,
		   "a directory, no pattern");
		ok(sp->files.nr == 1 && !strcmp(sp->files.v[0], "share/terminfo"), "the file");
		sp = &back.v[0].search_paths[1];
		ok(!sp->separator, "no separator stays none");
		ok(sp->file_type == CIX_FILE_REGULAR, "a regular file");
		is_str(sp->file_pattern, "^a\tb\\c\n$", "the pattern, unescaped");
		ok(sp->files.nr == 2 && !strcmp(sp->files.v[1], "lib\\z\n"), "the files, unescaped");
		ok(back.v[2].nr_search_paths == 1 && back.v[2].search_paths[0].files.nr == 0 &&
		   back.v[2].search_paths[0].file_type == CIX_FILE_SYMLINK,
		   "a search path of no files");
		is_int((int)back.v[1].nr_search_paths, 0, "an entry without search paths");
	}

	{
		struct cix_manifest e;
		const char *only = "cix-manifest 2\n";
		ok(cix_manifest_parse(only, strlen(only), &e, &err) == 0 && e.nr == 0,
		   "a manifest of no entries");
		cix_manifest_release(&e);
	}
	{
		/* Version 1, as cix wrote it before search paths: read, written as 2. */
		struct cix_manifest e;
		struct strbuf c = STRBUF_INIT;
		const char *v1 = "cix-manifest 1\nhello\t2.12\tout\t/s/h\t/s/d /s/e\n"
				 "sed\t4.9\tout\t/s/sed\t\n";
		ok(cix_manifest_parse(v1, strlen(v1), &e, &err) == 0 && e.nr == 2 &&
		   e.v[0].deps.nr == 2 && !e.v[1].nr_search_paths,
		   "a manifest of version 1 is read");
		cix_manifest_format(&e, &c);
		ok(c.len == strlen(v1) && !memcmp(c.buf, "cix-manifest 2\n", 15) &&
		   !strcmp(c.buf + 15, v1 + 15), "and formats as version 2, the rest the same");
		strbuf_release(&c);
		cix_manifest_release(&e);
	}

	/* Every cut of a good manifest: refused and empty, unless at a line's end. */
	int refused = 1, accepted = 1;
	for (size_t cut = 0; cut < a.len; cut++) {
		struct cix_manifest t;
		int r = cix_manifest_parse(a.buf, cut, &t, &err);
		int at_eol = cut > 0 && a.buf[cut - 1] == '\n';
		if (r == 0 && !at_eol)
			refused = 0;
		if (r < 0 && (t.nr || t.v))
			refused = 0;
		if (r < 0 && at_eol)
			accepted = 0;
		cix_manifest_release(&t);
	}
	ok(refused, "every cut in the middle of a line is refused and leaves nothing");
	ok(accepted, "every cut at a line's end is a shorter manifest");

	/* add, remove, sort */
	is_int((int)cix_manifest_remove(&back, "nothing", NULL), 0, "removing what is not there");
	is_int((int)cix_manifest_remove(&back, "hello", "doc"), 1, "removing one output");
	is_int((int)back.nr, 3, "three left");
	is_str(back.v[1].output, "out", "the other output stays");
	is_str(back.v[1].name, "hello", "in its place");
	is_str(back.v[2].name, "a\tname\\with\nodd bytes", "the order is kept");
	cix_manifest_add(&back, "hello", "2.12", "doc", "/cix/store/eee-hello-2.12-doc");
	cix_manifest_add(&back, "aaa", "1", "out", "/cix/store/fff-aaa-1");
	cix_manifest_sort(&back);
	is_str(back.v[0].name, "a\tname\\with\nodd bytes", "sorted by name (bytewise)");
	is_str(back.v[1].name, "aaa", "sorted by name");
	is_str(back.v[2].name, "hello", "sorted by name");
	is_str(back.v[2].output, "doc", "then by output");
	is_str(back.v[3].output, "out", "then by output");
	is_str(back.v[4].name, "zed", "sorted by name");
	is_int((int)cix_manifest_remove(&back, back.v[2].name, NULL), 2,
	       "removing both outputs, by an entry's own name");
	is_int((int)back.nr, 3, "three left");
	is_str(back.v[2].deps.v[0], "/cix/store/bbb-libzed-1", "entries moved keep their deps");

	cix_manifest_release(&back);
	cix_manifest_release(&m);
	strbuf_release(&a);
	strbuf_release(&b);
}

static void refuse_n(const char *what, const char *text, size_t len)
{
	struct cix_manifest m;
	struct cix_err err = { 0 };
	int r = cix_manifest_parse(text, len, &m, &err);
	if (!ok(r == -CIX_EFORMAT && !m.nr && !m.v, "refused: %s", what))
		diag("  got %d", r);
	else if (!strchr(err.msg, '\n') && strlen(err.msg))
		ok(1, "  with a message: %s", err.msg);
	else
		ok(0, "  with a one-line message");
	cix_manifest_release(&m);
}

static void refuse(const char *what, const char *text)
{
	refuse_n(what, text, strlen(text));
}

static void test_hostile(void)
{
	struct strbuf sb = STRBUF_INIT;
	struct cix_manifest m;
	struct cix_err err = { 0 };

	refuse("empty", "");
	refuse("no first line", "a\t1\tout\t/p\t\n");
	refuse("another version", "cix-manifest 3\n");
	refuse("version 0", "cix-manifest 0\n");
	refuse("the version with a space after", "cix-manifest 1 \n");
	refuse("CRLF", "cix-manifest 1\r\n");
	refuse("no newline at the end", "cix-manifest 1\na\t1\tout\t/p\t");
	refuse("four fields", "cix-manifest 1\na\t1\tout\t/p\n");
	refuse("six fields", "cix-manifest 1\na\t1\tout\t/p\t\t\n");
	refuse("an empty line", "cix-manifest 1\n\n");
	refuse("an unknown escape", "cix-manifest 1\na\\q\t1\tout\t/p\t\n");
	refuse("an escaped space", "cix-manifest 1\na\\ \t1\tout\t/p\t\n");
	refuse("a backslash at a field's end", "cix-manifest 1\na\t1\tout\t/p\t/d\\\n");
	refuse("a backslash before a tab", "cix-manifest 1\na\\\t1\tout\t/p\t\n");
	refuse("an empty name", "cix-manifest 1\n\t1\tout\t/p\t\n");
	refuse("an empty output", "cix-manifest 1\na\t1\t\t/p\t\n");
	refuse("an empty path", "cix-manifest 1\na\t1\tout\t\t\n");
	refuse("a relative path", "cix-manifest 1\na\t1\tout\tp\t\n");
	refuse("a relative dependency", "cix-manifest 1\na\t1\tout\t/p\t/d e\n");
	refuse("two spaces between dependencies", "cix-manifest 1\na\t1\tout\t/p\t/d  /e\n");
	refuse("a space before the dependencies", "cix-manifest 1\na\t1\tout\t/p\t /d\n");
	refuse("a space after the dependencies", "cix-manifest 1\na\t1\tout\t/p\t/d \n");
	refuse("a lone space as dependencies", "cix-manifest 1\na\t1\tout\t/p\t \n");
	refuse("a good entry, then a bad one",
	       "cix-manifest 1\na\t1\tout\t/p\t\nb\t1\tout\tq\t\n");
	refuse("a search path in version 1",
	       "cix-manifest 1\na\t1\tout\t/p\t\n\tsearch-path\tV\t:\tdirectory\t\tf\n");
	refuse("a search path before any entry",
	       "cix-manifest 2\n\tsearch-path\tV\t:\tdirectory\t\tf\n");
	refuse("a line of an unknown kind",
	       "cix-manifest 2\na\t1\tout\t/p\t\n\tsearch-paths\tV\t:\tdirectory\t\tf\n");
	refuse("a search path of five fields",
	       "cix-manifest 2\na\t1\tout\t/p\t\n\tsearch-path\tV\t:\tdirectory\n");
	refuse("an unknown file type",
	       "cix-manifest 2\na\t1\tout\t/p\t\n\tsearch-path\tV\t:\tfifo\t\tf\n");
	refuse("a variable not a shell name",
	       "cix-manifest 2\na\t1\tout\t/p\t\n\tsearch-path\tV;rm\t:\tdirectory\t\tf\n");
	refuse("a variable starting with a digit",
	       "cix-manifest 2\na\t1\tout\t/p\t\n\tsearch-path\t1V\t:\tdirectory\t\tf\n");
	refuse("an empty variable",
	       "cix-manifest 2\na\t1\tout\t/p\t\n\tsearch-path\t\t:\tdirectory\t\tf\n");
	refuse("an absolute file",
	       "cix-manifest 2\na\t1\tout\t/p\t\n\tsearch-path\tV\t:\tdirectory\t\t/etc\n");
	refuse("an empty file",
	       "cix-manifest 2\na\t1\tout\t/p\t\n\tsearch-path\tV\t:\tdirectory\t\t\n");
	refuse("a separator with a dollar",
	       "cix-manifest 2\na\t1\tout\t/p\t\n\tsearch-path\tV\t$(x)\tdirectory\t\tf\n");
	refuse("a separator with a quote",
	       "cix-manifest 2\na\t1\tout\t/p\t\n\tsearch-path\tV\t\"\tdirectory\t\tf\n");
	refuse("a separator with a brace",
	       "cix-manifest 2\na\t1\tout\t/p\t\n\tsearch-path\tV\t}\tdirectory\t\tf\n");
	refuse("a separator with a newline",
	       "cix-manifest 2\na\t1\tout\t/p\t\n\tsearch-path\tV\t\\n\tdirectory\t\tf\n");
	refuse("an entry line with six fields in version 2",
	       "cix-manifest 2\na\t1\tout\t/p\t\t\n");
	refuse_n("a NUL byte in a search path",
		 "cix-manifest 2\na\t1\tout\t/p\t\n\tsearch-path\tV\t:\tdirectory\t\tf\0g\n",
		 59);
	refuse_n("a NUL byte in a field", "cix-manifest 1\na\0b\t1\tout\t/p\t\n", 29);
	refuse_n("a NUL byte in the first line", "cix-manifest 1\0\n", 16);
	refuse_n("a NUL byte after an escape", "cix-manifest 1\na\\\0\t1\tout\t/p\t\n", 29);

	strbuf_addstr(&sb, "cix-manifest 1\na\t1\tout\t/");
	for (size_t i = 0; i < ((size_t)1 << 20); i++)
		strbuf_addch(&sb, 'p');
	strbuf_addstr(&sb, "\t\n");
	refuse_n("a line over 1 MiB", sb.buf, sb.len);
	strbuf_reset(&sb);
	strbuf_addstr(&sb, "cix-manifest 1\na\t1\tout\t/");
	while (sb.len < 15 + ((size_t)1 << 20) - 1)
		strbuf_addch(&sb, 'p');
	strbuf_addstr(&sb, "\t\n");
	ok(cix_manifest_parse(sb.buf, sb.len, &m, &err) == 0 && m.nr == 1,
	   "a line of exactly 1 MiB is accepted");
	cix_manifest_release(&m);

	strbuf_reset(&sb);
	strbuf_addstr(&sb, "cix-manifest 1\n");
	for (int i = 0; i < 100000; i++)
		strbuf_addf(&sb, "p%d\t1\tout\t/s/%d\t\n", i, i);
	ok(cix_manifest_parse(sb.buf, sb.len, &m, &err) == 0 && m.nr == 100000,
	   "100000 entries are accepted");
	cix_manifest_release(&m);
	strbuf_addstr(&sb, "one\t1\tout\t/s/more\t\n");
	refuse_n("100001 entries", sb.buf, sb.len);

	/* The bounds of search paths: files per search path, search paths per entry. */
	for (int files = 256; files <= 257; files++) {
		strbuf_reset(&sb);
		strbuf_addstr(&sb, "cix-manifest 2\na\t1\tout\t/p\t\n\tsearch-path\tV\t:\tdirectory\t");
		for (int i = 0; i < files; i++)
			strbuf_addf(&sb, "\tf%d", i);
		strbuf_addch(&sb, '\n');
		if (files == 256)
			ok(cix_manifest_parse(sb.buf, sb.len, &m, &err) == 0 &&
			   m.v[0].search_paths[0].files.nr == 256, "a search path of 256 files");
		else
			refuse_n("a search path of 257 files", sb.buf, sb.len);
		cix_manifest_release(&m);
	}
	strbuf_reset(&sb);
	strbuf_addstr(&sb, "cix-manifest 2\na\t1\tout\t/p\t\n");
	for (int i = 0; i < CIX_MANIFEST_MAX_SEARCH_PATHS; i++)
		strbuf_addf(&sb, "\tsearch-path\tV%d\t:\tdirectory\t\tf\n", i);
	ok(cix_manifest_parse(sb.buf, sb.len, &m, &err) == 0 &&
	   m.v[0].nr_search_paths == CIX_MANIFEST_MAX_SEARCH_PATHS,
	   "an entry of %d search paths", CIX_MANIFEST_MAX_SEARCH_PATHS);
	cix_manifest_release(&m);
	strbuf_addstr(&sb, "\tsearch-path\tMORE\t:\tdirectory\t\tf\n");
	refuse_n("one more search path", sb.buf, sb.len);
	strbuf_release(&sb);
}

static void test_read(void)
{
	struct cix_manifest m;
	struct cix_err err = { 0 };
	char p[512], q[512];
	struct strbuf sb = STRBUF_INIT;

	tpath(p, sizeof(p), "no-such-profile");
	is_int(cix_manifest_read(p, &m, &err), 0, "a missing profile: no error");
	is_int((int)m.nr, 0, "and an empty manifest");
	cix_manifest_release(&m);

	mkdir_t("gen-r");
	fill(&m);
	cix_manifest_format(&m, &sb);
	cix_manifest_release(&m);
	put("gen-r/manifest", sb.buf);
	tpath(p, sizeof(p), "gen-r");
	tpath(q, sizeof(q), "prof-r");
	if (symlink(p, q) < 0)
		diag("cannot symlink %s", q);
	is_int(cix_manifest_read(q, &m, &err), 0, "the manifest of a profile, through its link");
	is_int((int)m.nr, 4, "with its entries");
	cix_manifest_release(&m);

	mkdir_t("gen-empty");
	tpath(p, sizeof(p), "gen-empty");
	ok(cix_manifest_read(p, &m, &err) == -ENOENT, "a profile without a manifest: an error");
	diag("%s", err.msg);

	tpath(p, sizeof(p), "dangling");
	if (symlink("nowhere", p) < 0)
		diag("cannot symlink %s", p);
	ok(cix_manifest_read(p, &m, &err) < 0, "a dangling profile link: an error");

	put("gen-r/manifest", "cix-manifest 1\nbad\n");
	ok(cix_manifest_read(q, &m, &err) == -CIX_EFORMAT && !m.nr, "a bad manifest: an error");
	cix_manifest_release(&m);
	strbuf_release(&sb);
}

/* ---- generations ---- */

static char prof[512];

/* PROFILE resolves to a directory through its link; its link target. */
static int resolves(const char *profile, char *target, size_t size)
{
	struct stat st;
	ssize_t l;
	if (lstat(profile, &st) < 0 || !S_ISLNK(st.st_mode) || stat(profile, &st) < 0 ||
	    !S_ISDIR(st.st_mode))
		return 0;
	l = readlink(profile, target, size - 1);
	if (l < 0)
		return 0;
	target[l] = 0;
	return 1;
}

static long cur(void)
{
	long n = -2;
	struct cix_err err = { 0 };
	if (cix_profile_current(prof, &n, &err) < 0)
		diag("current: %s", err.msg);
	return n;
}

static void store(char *buf, size_t size, const char *name)
{
	tpath(buf, size, name);
}

static void test_generations(void)
{
	struct cix_err err = { 0 };
	struct cix_generation *v;
	size_t n;
	long num = -5, cur_n;
	char sa[512], sb[512], sc[512], se[512], t[512], p[512];
	int r;

	mkdir_t("store");
	mkdir_t("store/a");
	mkdir_t("store/b");
	mkdir_t("store/c");
	mkdir_t("store/empty");
	put("store/a/manifest", "cix-manifest 1\na\t1\tout\t/x/a\t\n");
	put("store/b/manifest", "cix-manifest 1\nb\t1\tout\t/x/b\t\n");
	put("store/c/manifest", "cix-manifest 1\nc\t1\tout\t/x/c\t\n");
	put("store/empty/manifest", "cix-manifest 1\n");
	store(sa, sizeof(sa), "store/a");
	store(sb, sizeof(sb), "store/b");
	store(sc, sizeof(sc), "store/c");
	store(se, sizeof(se), "store/empty");
	mkdir_t("profiles");
	tpath(prof, sizeof(prof), "profiles/cix-profile");

	/* none yet */
	ok(cix_profile_current(prof, &cur_n, &err) == 0 && cur_n == -1,
	   "no profile: current is -1");
	ok(cix_profile_generations(prof, &v, &n, &err) == 0 && n == 0 && !v, "no generations");
	ok(cix_profile_roll_back(prof, se, &num, &err) == -CIX_ENOTFOUND,
	   "no roll back without a profile");
	tpath(p, sizeof(p), "no-dir/cix-profile");
	ok(cix_profile_generations(p, &v, &n, &err) == 0 && n == 0,
	   "a profile whose directory is missing has no generations");
	ok(cix_profile_add_generation(p, sa, &num, &err) == -ENOENT,
	   "adding a generation needs the directory");

	/* add three */
	is_int(cix_profile_add_generation(prof, sa, &num, &err), 0, "add a generation");
	is_int(num, 1, "the first is 1");
	ok(resolves(prof, t, sizeof(t)), "the profile resolves");
	is_str(t, "cix-profile-1-link", "a relative link to the generation's link");
	tpath(p, sizeof(p), "profiles/cix-profile-1-link");
	{
		char lt[512];
		ssize_t l = readlink(p, lt, sizeof(lt) - 1);
		lt[l < 0 ? 0 : l] = 0;
		is_str(lt, sa, "the generation's link points to the store path");
	}
	is_int(cix_profile_add_generation(prof, sb, &num, &err), 0, "add a second");
	is_int(num, 2, "numbered 2");
	is_int(cix_profile_add_generation(prof, sc, &num, &err), 0, "add a third");
	is_int(num, 3, "numbered 3");
	ok(resolves(prof, t, sizeof(t)) && !strcmp(t, "cix-profile-3-link"), "the profile is at 3");
	is_int(cur(), 3, "current is 3");
	{
		struct cix_manifest m;
		ok(cix_manifest_read(prof, &m, &err) == 0 && m.nr == 1 && !strcmp(m.v[0].name, "c"),
		   "the profile's manifest is the third's");
		cix_manifest_release(&m);
	}

	/* other files in the directory are no generations */
	put("profiles/cix-profile-01-link", "x");
	put("profiles/cix-profile-x-link", "x");
	put("profiles/cix-profile-2-link.bak", "x");
	put("profiles/cix-profile-9-link", "not a symlink");
	put("profiles/cix-profile-99999999999999999999-link", "x");
	tpath(p, sizeof(p), "profiles/other-4-link");
	if (symlink(sa, p) < 0)
		diag("cannot symlink %s", p);
	tpath(p, sizeof(p), "profiles/cix-profile-1-1-link");
	if (symlink(sa, p) < 0)
		diag("cannot symlink %s", p);

	r = cix_profile_generations(prof, &v, &n, &err);
	is_int(r, 0, "list the generations");
	is_int((int)n, 3, "three of them, other files ignored");
	if (n == 3) {
		ok(v[0].number == 1 && v[1].number == 2 && v[2].number == 3, "by number");
		is_str(v[0].target, sa, "the first's target");
		is_str(v[2].target, sc, "the third's target");
		ok(v[0].time > 1600000000 && v[0].time <= time(NULL), "their times");
	}
	cix_generations_release(v, n);

	/* switch */
	is_int(cix_profile_switch(prof, 1, &err), 0, "switch to 1");
	is_int(cur(), 1, "current is 1");
	ok(resolves(prof, t, sizeof(t)) && !strcmp(t, "cix-profile-1-link"), "the profile is at 1");
	is_int(cix_profile_switch(prof, 7, &err), -CIX_ENOTFOUND, "switch to a missing one");
	is_str(err.msg, "generation 7 does not exist", "its message");
	is_int(cix_profile_switch(prof, 9, &err), -CIX_ENOTFOUND,
	       "switch to a file named as a generation");
	is_int(cur(), 1, "current is still 1");

	/* roll back */
	is_int(cix_profile_switch(prof, 3, &err), 0, "switch to 3");
	tpath(p, sizeof(p), "profiles/cix-profile-2-link");
	unlink(p);
	is_int(cix_profile_roll_back(prof, se, &num, &err), 0, "roll back from 3, 2 deleted");
	is_int(num, 1, "to 1, the previous existing");
	ok(resolves(prof, t, sizeof(t)) && !strcmp(t, "cix-profile-1-link"), "the profile is at 1");
	is_int(cix_profile_roll_back(prof, NULL, &num, &err), -CIX_EINVAL,
	       "rolling back to 0 needs the empty profile's path");
	is_int(cur(), 1, "current is still 1");
	is_int(cix_profile_roll_back(prof, se, &num, &err), 0, "roll back from 1");
	is_int(num, 0, "to 0");
	ok(resolves(prof, t, sizeof(t)) && !strcmp(t, "cix-profile-0-link"), "the profile is at 0");
	{
		struct cix_manifest m;
		ok(cix_manifest_read(prof, &m, &err) == 0 && m.nr == 0, "which is empty");
		cix_manifest_release(&m);
	}
	is_int(cix_profile_roll_back(prof, se, &num, &err), -CIX_ENOTFOUND, "no rolling back past 0");
	is_str(err.msg, "no previous generation", "its message");
	is_int(cix_profile_add_generation(prof, sb, &num, &err), 0, "add a generation from 0");
	is_int(num, 4, "numbered after the highest");
	is_int(cix_profile_switch(prof, 1, &err), 0, "switch to 1");
	is_int(cix_profile_roll_back(prof, sa, &num, &err), 0, "roll back to 0 again");
	ok(num == 0 && resolves(prof, t, sizeof(t)), "to 0");
	tpath(p, sizeof(p), "profiles/cix-profile-0-link");
	{
		char lt[512];
		ssize_t l = readlink(p, lt, sizeof(lt) - 1);
		lt[l < 0 ? 0 : l] = 0;
		is_str(lt, se, "an existing 0 is kept as it is");
	}

	/* delete */
	long del[] = { 1, 3 };
	is_int(cix_profile_switch(prof, 3, &err), 0, "switch to 3");
	is_int(cix_profile_delete_generations(prof, del, 2, &err), -CIX_EINVAL,
	       "deleting the current generation is refused");
	is_str(err.msg, "cannot delete the current generation 3", "its message");
	del[1] = 2;
	is_int(cix_profile_delete_generations(prof, del, 2, &err), -CIX_ENOTFOUND,
	       "deleting a missing one is refused");
	is_str(err.msg, "generation 2 does not exist", "its message");
	ok(cix_profile_generations(prof, &v, &n, &err) == 0 && n == 4, "and nothing was deleted");
	cix_generations_release(v, n);
	del[1] = 0;
	is_int(cix_profile_delete_generations(prof, del, 2, &err), 0, "delete 1 and 0");
	ok(cix_profile_generations(prof, &v, &n, &err) == 0 && n == 2 && v[0].number == 3 &&
	   v[1].number == 4, "3 and 4 are left");
	cix_generations_release(v, n);
	ok(resolves(prof, t, sizeof(t)) && !strcmp(t, "cix-profile-3-link"), "the profile is at 3");
	is_int(cix_profile_roll_back(prof, se, &num, &err), 0, "roll back from the lowest, 3");
	is_int(num, 0, "to a new 0");

	/* stale temporaries */
	pid_t child = fork();
	if (child == 0)
		_exit(0);
	waitpid(child, NULL, 0);
	char name[512];
	snprintf(name, sizeof(name), "%s/profiles/.cix-profile.tmp-%ld", tmp, (long)getpid());
	if (symlink("garbage", name) < 0)
		diag("cannot symlink %s", name);
	snprintf(name, sizeof(name), "%s/profiles/.cix-profile-5-link.tmp-%ld", tmp,
		 (long)getpid());
	if (symlink("garbage", name) < 0)
		diag("cannot symlink %s", name);
	char dead1[512], dead2[512], alive[512];
	snprintf(dead1, sizeof(dead1), "%s/profiles/.cix-profile.tmp-%ld", tmp, (long)child);
	snprintf(dead2, sizeof(dead2), "%s/profiles/.cix-profile-7-link.tmp-%ld", tmp,
		 (long)child);
	snprintf(alive, sizeof(alive), "%s/profiles/.cix-profile-7-link.tmp-1", tmp);
	if (symlink("garbage", dead1) < 0 || symlink("garbage", dead2) < 0 ||
	    symlink("garbage", alive) < 0)
		diag("cannot symlink the stale ones");
	is_int(cix_profile_switch(prof, 4, &err), 0, "switch with a stale temporary of our pid");
	ok(resolves(prof, t, sizeof(t)) && !strcmp(t, "cix-profile-4-link"), "the profile is at 4");
	is_int(cix_profile_add_generation(prof, sa, &num, &err), 0,
	       "add with a stale temporary of our pid");
	is_int(num, 5, "numbered 5");
	ok(resolves(prof, t, sizeof(t)) && !strcmp(t, "cix-profile-5-link"), "the profile is at 5");
	{
		struct stat st;
		ok(lstat(dead1, &st) < 0 && lstat(dead2, &st) < 0,
		   "a dead process's temporaries are removed");
		ok(lstat(alive, &st) == 0, "a live process's are not");
		unlink(alive);
	}
	ok(cix_profile_generations(prof, &v, &n, &err) == 0 && n == 4, "0, 3, 4, 5");
	cix_generations_release(v, n);

	/* Another process looking at the profile never finds it missing. */
	{
		int pfd[2], status;
		if (pipe(pfd) < 0)
			diag("pipe");
		pid_t watcher = fork();
		if (watcher == 0) {
			struct stat st;
			char c;
			long looks = 0, missing = 0;
			close(pfd[1]);
			fcntl(pfd[0], F_SETFL, O_NONBLOCK);
			while (read(pfd[0], &c, 1) < 0 && errno == EAGAIN) {
				looks++;
				if (stat(prof, &st) < 0 || !S_ISDIR(st.st_mode))
					missing++;
			}
			_exit(missing ? 1 : looks ? 0 : 2);
		}
		close(pfd[0]);
		int fails = 0;
		for (int i = 0; i < 500; i++)
			if (cix_profile_switch(prof, 4 + i % 2, &err) < 0)
				fails++;
		close(pfd[1]);
		ok(!fails && waitpid(watcher, &status, 0) == watcher && WIFEXITED(status) &&
		   WEXITSTATUS(status) == 0, "500 switches, and the profile resolved all along");
	}

	/* what PROFILE must be */
	tpath(p, sizeof(p), "profiles/file-profile");
	put("profiles/file-profile", "mine");
	put("profiles/file-profile-1-link", "x");
	ok(cix_profile_current(p, &num, &err) == -CIX_EFORMAT, "a profile not a symlink");
	ok(cix_profile_add_generation(p, sa, &num, &err) == -CIX_EEXIST,
	   "is never replaced by a generation");
	{
		struct stat st;
		ok(lstat(p, &st) == 0 && S_ISREG(st.st_mode), "and is left as it was");
	}
	tpath(p, sizeof(p), "profiles/odd-profile");
	if (symlink(sa, p) < 0)
		diag("cannot symlink %s", p);
	ok(cix_profile_current(p, &num, &err) == -CIX_EFORMAT,
	   "a profile pointing elsewhere than a generation");
	diag("%s", err.msg);
	ok(cix_profile_add_generation(prof, "relative", &num, &err) == -CIX_EINVAL,
	   "a relative store path is refused");
	tpath(p, sizeof(p), "profiles/");
	ok(cix_profile_current(p, &num, &err) == -CIX_EINVAL, "a profile name ending in /");

	/* through a symlinked parent */
	tpath(p, sizeof(p), "profiles");
	tpath(t, sizeof(t), "via");
	if (symlink(p, t) < 0)
		diag("cannot symlink %s", t);
	tpath(p, sizeof(p), "via/cix-profile");
	is_int(cix_profile_add_generation(p, sb, &num, &err), 0,
	       "a profile reached through a symlinked directory");
	ok(num == 6 && cur() == 6, "is the same profile");
}

static void test_lock(void)
{
	struct cix_err err = { 0 };
	char lock[600];
	struct stat st;
	int fd = -1, status;
	pid_t pid;

	is_int(cix_profile_lock(prof, &fd, &err), 0, "lock the profile");
	snprintf(lock, sizeof(lock), "%s.lock", prof);
	ok(stat(lock, &st) == 0 && (st.st_mode & 07777) == 0644, "PROFILE.lock, mode 0644");

	pid = fork();
	if (pid == 0) {
		close(fd);
		int f = open(lock, O_RDWR);
		_exit(f >= 0 && flock(f, LOCK_EX | LOCK_NB) < 0 && errno == EWOULDBLOCK ? 0 : 1);
	}
	ok(waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0,
	   "another process cannot take it meanwhile");
	cix_profile_unlock(fd);

	pid = fork();
	if (pid == 0) {
		int f = open(lock, O_RDWR);
		_exit(f >= 0 && flock(f, LOCK_EX | LOCK_NB) == 0 ? 0 : 1);
	}
	ok(waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0,
	   "once unlocked, it can");

	/* A waiting locker gets it when the holder lets go. */
	is_int(cix_profile_lock(prof, &fd, &err), 0, "lock again");
	int pfd[2];
	if (pipe(pfd) < 0)
		diag("pipe");
	pid = fork();
	if (pid == 0) {
		int f2;
		close(pfd[0]);
		close(fd);         /* the parent's lock, shared by fork: not ours */
		int r = cix_profile_lock(prof, &f2, NULL);
		(void)!write(pfd[1], "x", 1);
		_exit(r == 0 ? 0 : 1);
	}
	close(pfd[1]);
	usleep(100000);
	{
		char c;
		int fl = fcntl(pfd[0], F_GETFL);
		fcntl(pfd[0], F_SETFL, fl | O_NONBLOCK);
		ok(read(pfd[0], &c, 1) < 0 && errno == EAGAIN, "a second locker waits");
		fcntl(pfd[0], F_SETFL, fl);
	}
	cix_profile_unlock(fd);
	ok(waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0,
	   "and gets it once the first lets go");
	close(pfd[0]);

	char link[600];
	snprintf(link, sizeof(link), "%s/evil", tmp);
	snprintf(lock, sizeof(lock), "%s/evil.lock", tmp);
	if (symlink("/nonexistent-target", lock) < 0)
		diag("cannot symlink %s", lock);
	ok(cix_profile_lock(link, &fd, &err) == -ELOOP, "a symlinked lock file is refused");
}

static void cleanup(const char *dir)
{
	char cmd[600];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		diag("cannot remove %s", dir);
}

int main(void)
{
	if (tap_mkdtemp(tmp, sizeof(tmp), "profile") < 0)
		return 1;
	test_round_trip();
	test_hostile();
	test_read();
	test_generations();
	test_lock();
	cleanup(tmp);
	return done_testing();
}
