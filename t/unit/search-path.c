/* search-path.c - unit tests for search paths: their checks, values and shell lines */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "tap.h"
#include "search-path.h"
#include "util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char tmp[256];
static char prof[512];

static void mk(const char *rel)
{
	char p[1024];
	snprintf(p, sizeof(p), "%s/%s", prof, rel);
	if (mkdir(p, 0755) < 0)
		diag("cannot make %s", p);
}

static void put(const char *rel)
{
	char p[1024];
	snprintf(p, sizeof(p), "%s/%s", prof, rel);
	FILE *f = fopen(p, "w");
	if (!f || fclose(f))
		diag("cannot write %s", p);
}

static void ln(const char *target, const char *rel)
{
	char p[1024];
	snprintf(p, sizeof(p), "%s/%s", prof, rel);
	if (symlink(target, p) < 0)
		diag("cannot symlink %s", p);
}

/* A search path on the stack: files separated by commas. */
static void sp_init(struct cix_search_path *sp, const char *var, const char *files,
		    const char *sep, enum cix_file_type type, const char *pattern)
{
	memset(sp, 0, sizeof(*sp));
	sp->variable = (char *)var;
	if (files)
		strvec_split(&sp->files, files, ",");
	sp->separator = (char *)sep;
	sp->file_type = type;
	sp->file_pattern = (char *)pattern;
}

static void test_check(void)
{
	struct cix_search_path sp;
	enum cix_file_type t;
	enum cix_search_path_kind k;

	sp_init(&sp, "TERMINFO_DIRS", "share/terminfo", ":", CIX_FILE_DIRECTORY, NULL);
	ok(!cix_search_path_check(&sp), "Guix's kind of search path is fine");
	ok(!cix_search_path_check(&cix_search_path_PATH), "so is $PATH");
	sp.variable = "_x9";
	ok(!cix_search_path_check(&sp), "a variable of _, letters and digits");
	sp.variable = "9x";
	ok(cix_search_path_check(&sp) != NULL, "not starting with a digit");
	sp.variable = "A-B";
	ok(cix_search_path_check(&sp) != NULL, "no dash");
	sp.variable = "";
	ok(cix_search_path_check(&sp) != NULL, "not empty");
	sp.variable = "X";
	sp.separator = "";
	ok(cix_search_path_check(&sp) != NULL, "an empty separator");
	sp.separator = "${";
	ok(cix_search_path_check(&sp) != NULL, "a separator with shell characters");
	sp.separator = "; ";
	ok(!cix_search_path_check(&sp), "a separator of two characters");
	sp.separator = NULL;
	ok(!cix_search_path_check(&sp), "no separator");
	sp.file_pattern = "";
	ok(cix_search_path_check(&sp) != NULL, "an empty pattern");
	sp.file_pattern = NULL;
	strvec_push(&sp.files, "/etc");
	ok(cix_search_path_check(&sp) != NULL, "an absolute file");
	strvec_clear(&sp.files);
	for (int i = 0; i < CIX_SEARCH_PATH_MAX_FILES + 1; i++)
		strvec_push(&sp.files, "f");
	ok(cix_search_path_check(&sp) != NULL, "too many files");
	strvec_clear(&sp.files);

	for (int i = CIX_FILE_DIRECTORY; i <= CIX_FILE_SYMLINK; i++)
		ok(cix_file_type_parse(cix_file_type_name((enum cix_file_type)i), &t) == 0 &&
		   (int)t == i, "file type %s, both ways", cix_file_type_name((enum cix_file_type)i));
	ok(cix_file_type_parse("fifo", &t) == -CIX_EINVAL, "an unknown file type");
	ok(cix_search_path_kind_parse("prefix", &k) == 0 && k == CIX_SEARCH_PATH_PREFIX &&
	   cix_search_path_kind_parse("suffix", &k) == 0 && k == CIX_SEARCH_PATH_SUFFIX &&
	   cix_search_path_kind_parse("exact", &k) == 0 && k == CIX_SEARCH_PATH_EXACT,
	   "the kinds");
	ok(cix_search_path_kind_parse("Exact", &k) == -CIX_EINVAL, "an unknown kind");
}

static int value(const struct cix_search_path *sp, struct strbuf *out)
{
	struct cix_err err = { 0 };
	strbuf_reset(out);
	int r = cix_search_path_value(prof, sp, out, &err);
	if (r < 0)
		diag("%s", err.msg);
	return r;
}

static void test_value(void)
{
	struct cix_search_path sp;
	struct strbuf v = STRBUF_INIT, want = STRBUF_INIT;
	struct cix_err err = { 0 };

	snprintf(prof, sizeof(prof), "%s/profile", tmp);
	mkdir(prof, 0755);
	mk("bin");
	mk("share");
	mk("share/doc");
	mk("share/doc/b");
	mk("share/doc/a");
	mk("share/doc/a/deep");
	put("share/doc/b/README");
	put("share/doc/a/README");
	put("share/doc/a/deep/README");
	mk("share/doc/a/deep/README.d");    /* a directory: not a regular file */
	put("lib");                         /* a file, not a directory */
	ln("..", "share/doc/a/loop");       /* a cycle */
	ln("nowhere", "share/dangling");

	sp_init(&sp, "X", "share/doc", ":", CIX_FILE_DIRECTORY, NULL);
	is_int(value(&sp, &v), 1, "a directory that exists");
	strbuf_addf(&want, "%s/share/doc", prof);
	is_str(v.buf, want.buf, "its path in the profile");
	strvec_clear(&sp.files);

	sp_init(&sp, "X", "share/none,lib", ":", CIX_FILE_DIRECTORY, NULL);
	is_int(value(&sp, &v), 0, "missing, or not a directory: nothing");
	is_int((int)v.len, 0, "no value");
	strvec_clear(&sp.files);

	sp_init(&sp, "X", "lib", ":", CIX_FILE_REGULAR, NULL);
	is_int(value(&sp, &v), 1, "a regular file, when asked for");
	strvec_clear(&sp.files);

	sp_init(&sp, "X", "share/dangling", ":", CIX_FILE_SYMLINK, NULL);
	is_int(value(&sp, &v), 0, "files are stat()ed: a dangling link is nothing");
	strvec_clear(&sp.files);

	sp_init(&sp, "X", "bin,share/none,share/doc", ";", CIX_FILE_DIRECTORY, NULL);
	is_int(value(&sp, &v), 1, "several files");
	strbuf_reset(&want);
	strbuf_addf(&want, "%s/bin;%s/share/doc", prof, prof);
	is_str(v.buf, want.buf, "those that exist, in their order, with the separator");
	sp.separator = NULL;
	value(&sp, &v);
	strbuf_reset(&want);
	strbuf_addf(&want, "%s/bin", prof);
	is_str(v.buf, want.buf, "no separator: the first alone");
	strvec_clear(&sp.files);

	sp_init(&sp, "X", "share/doc", ":", CIX_FILE_REGULAR, "^README$");
	is_int(value(&sp, &v), 1, "a pattern: files found below, through a symlink cycle");
	strbuf_reset(&want);
	strbuf_addf(&want, "%s/share/doc/a/README:%s/share/doc/a/deep/README:%s/share/doc/b/README",
		    prof, prof, prof);
	is_str(v.buf, want.buf, "regular files whose base name matches, sorted, each once");
	sp.separator = NULL;
	value(&sp, &v);
	strbuf_reset(&want);
	strbuf_addf(&want, "%s/share/doc/a/README", prof);
	is_str(v.buf, want.buf, "no separator: the first of them");
	sp.file_type = CIX_FILE_DIRECTORY;
	sp.file_pattern = "^(doc|deep)$";
	sp.separator = ":";
	value(&sp, &v);
	strbuf_reset(&want);
	strbuf_addf(&want, "%s/share/doc:%s/share/doc/a/deep", prof, prof);
	is_str(v.buf, want.buf, "directories, the file itself included");
	sp.file_pattern = "(";
	is_int(cix_search_path_value(prof, &sp, &v, &err), -CIX_EINVAL, "a bad pattern: an error");
	diag("%s", err.msg);
	strvec_clear(&sp.files);

	/* Deeper than 64 directories: refused, not followed forever. */
	{
		char rel[1024] = "deep";
		mk(rel);
		for (int i = 0; i < 66; i++) {
			strcat(rel, "/d");
			mk(rel);
		}
		sp_init(&sp, "X", "deep", ":", CIX_FILE_REGULAR, "x");
		is_int(cix_search_path_value(prof, &sp, &v, &err), -CIX_ELIMIT,
		       "directories too deep: an error");
		diag("%s", err.msg);
		strvec_clear(&sp.files);
	}
	strbuf_release(&v);
	strbuf_release(&want);
}

static void test_export(void)
{
	struct cix_search_path a, b, c, d, path;
	struct strbuf out = STRBUF_INIT, want = STRBUF_INIT;
	struct cix_err err = { 0 };

	sp_init(&a, "DOCS", "share/doc", ":", CIX_FILE_DIRECTORY, NULL);
	sp_init(&b, "NONE", "share/none", ":", CIX_FILE_DIRECTORY, NULL);
	sp_init(&c, "DOCS", "share/doc", ":", CIX_FILE_DIRECTORY, NULL);   /* a's twin */
	sp_init(&d, "ONE", "share/doc", NULL, CIX_FILE_REGULAR, "^README$");
	sp_init(&path, "PATH", "bin,sbin", ":", CIX_FILE_DIRECTORY, NULL);
	const struct cix_search_path *sps[] = { &a, &b, &c, &d, &path };

	is_int(cix_search_paths_export(prof, sps, 5, CIX_SEARCH_PATH_EXACT, &out, &err), 0,
	       "exact");
	strbuf_addf(&want, "export PATH=\"%s/bin\"\nexport DOCS=\"%s/share/doc\"\n"
		    "export ONE=\"%s/share/doc/a/README\"\n", prof, prof, prof);
	is_str(out.buf, want.buf, "PATH first, each once, those with a value, in their order");

	strbuf_reset(&out);
	strbuf_reset(&want);
	cix_search_paths_export(prof, sps, 5, CIX_SEARCH_PATH_PREFIX, &out, &err);
	strbuf_addf(&want, "export PATH=\"%s/bin${PATH:+:}$PATH\"\n"
		    "export DOCS=\"%s/share/doc${DOCS:+:}$DOCS\"\n"
		    "export ONE=\"%s/share/doc/a/README\"\n", prof, prof, prof);
	is_str(out.buf, want.buf, "prefix; without a separator, exact");

	strbuf_reset(&out);
	strbuf_reset(&want);
	cix_search_paths_export(prof, sps, 5, CIX_SEARCH_PATH_SUFFIX, &out, &err);
	strbuf_addf(&want, "export PATH=\"$PATH${PATH:+:}%s/bin\"\n"
		    "export DOCS=\"$DOCS${DOCS:+:}%s/share/doc\"\n"
		    "export ONE=\"%s/share/doc/a/README\"\n", prof, prof, prof);
	is_str(out.buf, want.buf, "suffix");

	strbuf_reset(&out);
	is_int(cix_search_paths_export(prof, NULL, 0, CIX_SEARCH_PATH_EXACT, &out, &err), 0,
	       "no search paths at all");
	strbuf_reset(&want);
	strbuf_addf(&want, "export PATH=\"%s/bin\"\n", prof);
	is_str(out.buf, want.buf, "PATH alone");

	/* A profile whose name the shell would expand: quoted. */
	{
		char odd[600], link[700];
		snprintf(odd, sizeof(odd), "%s/a\"b$c`d\\e", tmp);
		snprintf(link, sizeof(link), "%s/bin", odd);
		mkdir(odd, 0755);
		if (symlink(prof, link) < 0)
			diag("cannot symlink %s", link);
		snprintf(link, sizeof(link), "%s/bin", prof);
		strbuf_reset(&out);
		cix_search_paths_export(odd, NULL, 0, CIX_SEARCH_PATH_EXACT, &out, &err);
		strbuf_reset(&want);
		strbuf_addf(&want, "export PATH=\"%s/a\\\"b\\$c\\`d\\\\e/bin\"\n", tmp);
		is_str(out.buf, want.buf, "\", $, ` and \\ escaped in the value");
	}

	/* A bad search path (from a hostile manifest) is an error, not a line. */
	b.variable = "A;B";
	strbuf_reset(&out);
	ok(cix_search_paths_export(prof, sps, 5, CIX_SEARCH_PATH_EXACT, &out, &err) ==
	   -CIX_EINVAL, "a variable not a shell name: an error");
	diag("%s", err.msg);

	strvec_clear(&a.files);
	strvec_clear(&b.files);
	strvec_clear(&c.files);
	strvec_clear(&d.files);
	strvec_clear(&path.files);
	strbuf_release(&out);
	strbuf_release(&want);
}

static void test_copy(void)
{
	struct cix_search_path a, b;
	sp_init(&a, "V", "x,y", NULL, CIX_FILE_REGULAR, "p");
	cix_search_path_copy(&b, &a);
	ok(!cix_search_path_cmp(&a, &b) && b.variable != a.variable && !b.separator,
	   "a copy is equal, and its own");
	b.separator = xstrdup(":");
	ok(cix_search_path_cmp(&a, &b) < 0, "no separator sorts first");
	strvec_push(&b.files, "z");
	free(b.separator);
	b.separator = NULL;
	ok(cix_search_path_cmp(&a, &b) < 0 && cix_search_path_cmp(&b, &a) > 0,
	   "fewer files sort first");
	cix_search_path_release(&b);
	ok(!b.variable && !b.files.nr, "released");
	strvec_clear(&a.files);
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
	if (tap_mkdtemp(tmp, sizeof(tmp), "search-path") < 0)
		return 1;
	test_check();
	test_value();
	test_export();
	test_copy();
	cleanup(tmp);
	return done_testing();
}
