/* gnu-release.c - unit tests for GNU versions, source URLs, listings and package edits */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "tap.h"
#include "gnu-release.h"
#include "source-edit.h"

static int sign(int x)
{
	return x < 0 ? -1 : x > 0;
}

static void versions(void)
{
	static const struct { const char *a, *b; int want; } v[] = {
		{ "2.10", "2.9", 1 }, { "2.12", "2.12.1", -1 }, { "2.12", "2.12", 0 },
		{ "1.4.19", "1.4.20", -1 }, { "4.9.0", "4.9", 1 }, { "2.010", "2.10", 0 },
		{ "1.0rc1", "1.0", 1 }, { "1.0~rc1", "1.0", -1 }, { "5.2.1", "5.10", -1 },
		{ "1.0a", "1.0b", -1 }, { "1.0-2", "1.0.2", -1 }, { "20230101", "9", 1 },
		{ "1.10.100000000000000000000", "1.10.99999999999999999999", 1 },
	};
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		is_int(sign(cix_gnu_version_cmp(v[i].a, v[i].b)), v[i].want, "%s vs %s", v[i].a,
		       v[i].b);
		is_int(sign(cix_gnu_version_cmp(v[i].b, v[i].a)), -v[i].want, "%s vs %s", v[i].b,
		       v[i].a);
	}
}

static void sources(void)
{
	struct cix_gnu_source s;
	const char *base = "http://127.0.0.1:99/gnu/";

	ok(cix_gnu_source_parse("mirror://gnu/hello/hello-2.10.tar.gz", "2.10", NULL, &s) &&
	   !strcmp(s.dir, "hello") && !strcmp(s.project, "hello") && s.ext == CIX_GNU_TAR_GZ,
	   "mirror://gnu/hello/hello-2.10.tar.gz");
	cix_gnu_source_release(&s);
	ok(cix_gnu_source_parse("https://ftp.gnu.org/gnu/guile-www/guile-www-1.1.tar.xz", "1.1",
				NULL, &s) &&
	   !strcmp(s.project, "guile-www") && s.ext == CIX_GNU_TAR_XZ, "a project with a dash");
	cix_gnu_source_release(&s);
	ok(cix_gnu_source_parse("http://127.0.0.1:99/gnu/a/b/m4-1.4.tar.lz", "1.4", base, &s) &&
	   !strcmp(s.dir, "a/b") && s.ext == CIX_GNU_TAR_LZ, "under the GNU URL in use");
	cix_gnu_source_release(&s);
	ok(!cix_gnu_source_parse("mirror://gnu/hello/hello-2.10.tar.gz", "2.11", NULL, &s),
	   "another version than the package's");
	ok(!cix_gnu_source_parse("http://example.org/hello/hello-2.10.tar.gz", "2.10", NULL, &s),
	   "not GNU");
	ok(!cix_gnu_source_parse("mirror://gnu/hello-2.10.tar.gz", "2.10", NULL, &s), "no directory");
	ok(!cix_gnu_source_parse("mirror://gnu/hello/hello-2.10.zip", "2.10", NULL, &s), "a zip");
	ok(!cix_gnu_source_parse("mirror://gnu/../x/hello-2.10.tar.gz", "2.10", NULL, &s), "..");
	ok(!cix_gnu_source_parse(NULL, "2.10", NULL, &s), "no URL");
}

static void listings(void)
{
	const char *html =
		"<a href=\"?C=N;O=D\">Name</a><a href=\"/gnu/\">Parent</a>\n"
		"<a href=\"hello-2.9.tar.gz\">hello-2.9.tar.gz</a> 2014\n"
		"<a href=\"hello-2.12.tar.gz\">hello-2.12.tar.gz</a>\n"
		"<a href=\"hello-2.12.tar.xz\">hello-2.12.tar.xz</a>\n"
		"<a href=\"hello-3.0.tar.gz.sig\">hello-3.0.tar.gz.sig</a>\n"
		"<a href=\"hello-world-9.tar.gz\">x</a> <a href=\"hello-9.zip\">x</a>\n"
		"<a href=\"/gnu/hello/hello-2.10.tar.bz2\">x</a>";
	const char *ftp = "-rw-r--r--  1 0 0  12 May 28  2021 m4-1.4.19.tar.xz\r\n"
			  "-rw-r--r--  1 0 0  12 May 28  2021 m4-1.4.20.tar.lz\r\n"
			  "m4-latest.tar.xz\r\nm4-1.4.3.tar.gz";
	struct cix_err err = { 0 };
	char *v;
	int exts;

	ok(cix_gnu_latest_release(html, strlen(html), "hello", &v, &exts, &err) == 0 &&
	   !strcmp(v, "2.12") && exts == (CIX_GNU_TAR_GZ | CIX_GNU_TAR_XZ),
	   "HTML: the newest release with its compressions");
	free(v);
	ok(cix_gnu_latest_release(ftp, strlen(ftp), "m4", &v, &exts, &err) == 0 &&
	   !strcmp(v, "1.4.20") && exts == CIX_GNU_TAR_LZ, "FTP listing");
	free(v);
	ok(cix_gnu_latest_release(html, strlen(html), "sed", &v, &exts, &err) == -CIX_ENOTFOUND &&
	   !v, "no release of the project");
	ok(cix_gnu_latest_release("", 0, "sed", &v, &exts, &err) == -CIX_ENOTFOUND, "empty");
}

#define HASH_A "0ssi1wpaf7plaswqqjwigppsg5fyh99vdlb9kzl7c9lng89ndq1i"
#define HASH_B "13ng6qdyjhq67l9zvdfgfmhab59zh38xp03iyr8hracjwyqflx9v"

static int edit(const char *text, unsigned long line, unsigned long col, struct strbuf *out)
{
	struct cix_pkg_edit e = { "2.10", "2.12", HASH_A, HASH_B };
	struct cix_err err = { 0 };
	strbuf_reset(out);
	int r = cix_source_edit_package(text, strlen(text), line, col, &e, out, &err);
	if (r < 0)
		strbuf_addstr(out, err.msg);
	return r;
}

static void edits(void)
{
	struct strbuf out = STRBUF_INIT;
	const char *pkg =
		"(define x \"(\")\n"
		"(define hello\n"
		"\t(package ; (version \"0\")\n"
		"    (name \"h\\\")\") #| (version \"2.10\") |# #;(version \"2.10\")\n"
		"    (version \"2.10\")\n"
		"    (source (origin (uri (string-append \"mirror://gnu/h-\" version))\n"
		"      (sha256 (base32 \"" HASH_A "\"))))\n"
		"    (x #\\( #\\\")))\n"
		"(define other (package (version \"2.10\") (base32 \"" HASH_A "\")))\n";
	const char *want =
		"(define x \"(\")\n"
		"(define hello\n"
		"\t(package ; (version \"0\")\n"
		"    (name \"h\\\")\") #| (version \"2.10\") |# #;(version \"2.10\")\n"
		"    (version \"2.12\")\n"
		"    (source (origin (uri (string-append \"mirror://gnu/h-\" version))\n"
		"      (sha256 (base32 \"" HASH_B "\"))))\n"
		"    (x #\\( #\\\")))\n"
		"(define other (package (version \"2.10\") (base32 \"" HASH_A "\")))\n";

	is_int(edit(pkg, 3, 8, &out), 0, "the package at 3:8 (after a tab) edited");
	is_str(out.buf, want, "only its version and hash changed, comments and strings skipped");
	is_int(edit(pkg, 3, 1, &out), -CIX_EFORMAT, "no form at that column");
	is_int(edit(pkg, 1, 0, &out), -CIX_EFORMAT, "not a package form");
	is_int(edit(pkg, 99, 0, &out), -CIX_EFORMAT, "no such line");
	is_int(edit("(package (version (string-append \"2.\" \"10\")) (base32 \"" HASH_A "\"))",
		    1, 0, &out), -CIX_EFORMAT, "a version that is not a literal");
	ok(strstr(out.buf, "no field (version \"2.10\")") != NULL, "said so: %s", out.buf);
	is_int(edit("(package (version \"2.10\") (a (base32 \"" HASH_A "\")) (b (base32 \"" HASH_A
		    "\")))", 1, 0, &out), -CIX_EFORMAT, "the hash twice");
	is_int(edit("(package (version \"2.10\"))", 1, 0, &out), -CIX_EFORMAT, "no hash");
	is_int(edit("(package (version \"2.10\") (uri \"mirror://gnu/h/h-2.10.tar.gz\") (base32 \""
		    HASH_A "\"))", 1, 0, &out), -CIX_EFORMAT, "a uri that spells the version out");
	is_int(edit("(package (version \"2.10\") (base32 \"" HASH_A "\")", 1, 0, &out),
	       -CIX_EFORMAT, "a form that does not end");
	is_int(edit("  (package (base32 \"" HASH_A "\") (version \"2.10\"))", 1, 2, &out), 0,
	       "the hash before the version");
	is_str(out.buf, "  (package (base32 \"" HASH_B "\") (version \"2.12\"))", "both changed");
	is_int(edit("\xc3\xa9 (package (version \"2.10\") (base32 \"" HASH_A "\"))", 1, 2, &out), 0,
	       "columns count characters");
	strbuf_release(&out);
}

int main(void)
{
	versions();
	sources();
	listings();
	edits();
	return done_testing();
}
