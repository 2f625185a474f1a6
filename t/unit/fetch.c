/* fetch.c - unit tests for hash parsing, mirror lists and local downloads */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "tap.h"
#include "encoding.h"
#include "fetch.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

static char dir[256];

static const char *at(const char *name)
{
	static char buf[64][512];
	static int k;
	k = (k + 1) % 64; /* enough for every name one test holds */
	snprintf(buf[k], sizeof(buf[k]), "%s/%s", dir, name);
	return buf[k];
}

static void write_file(const char *path, const void *data, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || cix_write_full(fd, data, len) < 0 || close(fd) < 0)
		BUG("cannot write %s", path);
}

static int exists(const char *path)
{
	struct stat st;
	return lstat(path, &st) == 0;
}

static void test_parse_hash(void)
{
	static const char data[] = "hello\n";
	struct cix_hash h, got;
	struct cix_err err;
	struct strbuf b16 = STRBUF_INIT, b32 = STRBUF_INIT, b64 = STRBUF_INIT, s = STRBUF_INIT;

	cix_hash_buf(CIX_HASH_SHA256, data, strlen(data), &h);
	cix_base16_encode(&b16, h.bytes, h.len);
	cix_nixbase32_encode(&b32, h.bytes, h.len);
	cix_base64_encode(&b64, h.bytes, h.len);

	ok(cix_fetch_parse_hash("sha256", b16.buf, &got, &err) == 0 &&
	   got.algo == CIX_HASH_SHA256 && got.len == 32 && !memcmp(got.bytes, h.bytes, 32),
	   "base16");
	ok(cix_fetch_parse_hash("sha256", b32.buf, &got, &err) == 0 &&
	   !memcmp(got.bytes, h.bytes, 32), "nix-base32");
	ok(cix_fetch_parse_hash("r:sha256", b64.buf, &got, &err) == 0 &&
	   !memcmp(got.bytes, h.bytes, 32), "base64, r: prefix ignored");
	strbuf_addf(&s, "sha256:%s", b32.buf);
	ok(cix_fetch_parse_hash("", s.buf, &got, &err) == 0 && !memcmp(got.bytes, h.bytes, 32),
	   "algo:hash");
	is_int(cix_fetch_parse_hash("sha512", s.buf, &got, &err), -CIX_EMISMATCH,
	       "algo:hash of another algo");
	strbuf_reset(&s);
	strbuf_addf(&s, "sha256-%s", b64.buf);
	ok(cix_fetch_parse_hash("", s.buf, &got, &err) == 0 && !memcmp(got.bytes, h.bytes, 32),
	   "SRI");
	strbuf_reset(&s);
	strbuf_addf(&s, "sha256-%s", b16.buf);
	ok(cix_fetch_parse_hash("", s.buf, &got, &err) < 0, "SRI must be base64");
	is_int(cix_fetch_parse_hash("", b16.buf, &got, &err), -CIX_EINVAL, "no algorithm");
	is_int(cix_fetch_parse_hash("sha3", b16.buf, &got, &err), -CIX_EINVAL, "unknown algo");
	ok(cix_fetch_parse_hash("sha256", "", &got, &err) == 0 && got.len == 32 &&
	   got.bytes[0] == 0 && got.bytes[31] == 0, "empty hash: zeros");
	is_int(cix_fetch_parse_hash("sha1", b16.buf, &got, &err), -CIX_EFORMAT, "wrong length");
	b32.buf[0] = 'e'; /* not in nix-base32's alphabet */
	is_int(cix_fetch_parse_hash("sha256", b32.buf, &got, &err), -CIX_EFORMAT, "bad digit");
	ok(cix_fetch_parse_hash("", "verylongalgorithmname:abc", &got, &err) < 0 &&
	   !strchr(err.msg, '\n'), "long algo name");
	ok(cix_fetch_parse_hash("", "sha256:\n\x01", &got, &err) < 0 && !strchr(err.msg, '\n'),
	   "control bytes quoted");
	strbuf_release(&b16);
	strbuf_release(&b32);
	strbuf_release(&b64);
	strbuf_release(&s);
}

static int expand(const char *url, const char *const *files, char ***urls, size_t *n,
		  struct cix_err *err)
{
	struct cix_fetch_opts o;
	cix_fetch_opts_init(&o);
	o.mirror_files = files;
	return cix_fetch_expand_url(url, &o, urls, n, err);
}

static void test_mirrors(void)
{
	const char *files[] = { at("m1"), at("none"), at("m2"), NULL };
	char **urls;
	size_t n;
	struct cix_err err;
	static const char m1[] = "  # comment\n\ngnu\thttp://a/gnu  ftp://b/x/ # tail\n"
				 "gnux http://wrong/\ngn http://wrong2/\n";
	static const char m2[] = "gnu http://c/"; /* no final newline */

	write_file(at("m1"), m1, strlen(m1));
	write_file(at("m2"), m2, strlen(m2));
	ok(expand("mirror://gnu/hello/hello-2.tar.gz", files, &urls, &n, &err) == 0 && n == 3 &&
	   !strcmp(urls[0], "http://a/gnu/hello/hello-2.tar.gz") &&
	   !strcmp(urls[1], "ftp://b/x/hello/hello-2.tar.gz") &&
	   !strcmp(urls[2], "http://c/hello/hello-2.tar.gz") && !urls[3],
	   "mirrors in order, '/' added, comments and other names skipped");
	cix_fetch_free_urls(urls);
	ok(expand("http://x/y", files, &urls, &n, &err) == 0 && n == 1 &&
	   !strcmp(urls[0], "http://x/y"), "plain url kept");
	cix_fetch_free_urls(urls);
	ok(expand("mirror://gnu", files, &urls, &n, &err) == 0 && n == 3 &&
	   !strcmp(urls[2], "http://c/"), "no rest");
	cix_fetch_free_urls(urls);
	is_int(expand("mirror://nope/x", files, &urls, &n, &err), -CIX_ENOTFOUND, "unknown");
	is_int(expand("mirror:///x", files, &urls, &n, &err), -CIX_EINVAL, "empty name");
	is_int(expand("mirror://gnu/x", NULL, &urls, &n, &err), -CIX_ENOTFOUND, "no lists");

	write_file(at("m3"), "gnu http://a/\0 http://b/\n", 25);
	const char *f3[] = { at("m3"), NULL };
	is_int(expand("mirror://gnu/x", f3, &urls, &n, &err), -CIX_EFORMAT, "NUL refused");

	struct strbuf big = STRBUF_INIT;
	strbuf_addstr(&big, "gnu");
	for (int i = 0; i < 2000; i++)
		strbuf_addstr(&big, " http://m/");
	write_file(at("m4"), big.buf, big.len);
	strbuf_release(&big);
	const char *f4[] = { at("m4"), NULL };
	is_int(expand("mirror://gnu/x", f4, &urls, &n, &err), -CIX_ELIMIT, "too many mirrors");
	const char *f5[] = { dir, NULL };
	ok(expand("mirror://gnu/x", f5, &urls, &n, &err) < 0, "a directory as list fails");
}

static void test_local(void)
{
	static const char data[] = "some content\n";
	struct cix_fetch_opts o;
	struct cix_hash h, bad;
	struct cix_err err;
	struct strbuf url = STRBUF_INIT, want = STRBUF_INIT, cas = STRBUF_INIT;
	struct stat st;
	char casdir[512];
	const char *cas_dirs[] = { casdir, NULL };

	snprintf(casdir, sizeof(casdir), "%s/cas", dir);
	cix_fetch_opts_init(&o);
	write_file(at("src"), data, strlen(data));
	cix_hash_buf(CIX_HASH_SHA256, data, strlen(data), &h);
	strbuf_addf(&url, "file://%s", at("src"));

	ok(cix_fetch_url(url.buf, at("d1"), &h, 0, 0, &o, &err) == 0 &&
	   stat(at("d1"), &st) == 0 && (st.st_mode & 07777) == 0644 &&
	   st.st_size == (off_t)strlen(data), "file:// fetch, flat hash, 0644");
	ok(cix_fetch_url(url.buf, at("d2"), NULL, 0, 1, NULL, &err) == 0 &&
	   stat(at("d2"), &st) == 0 && (st.st_mode & 07777) == 0755, "executable, no opts");

	bad = h;
	bad.bytes[0] ^= 1;
	strbuf_addf(&want, "hash mismatch for '%s': expected sha256:", url.buf);
	cix_nixbase32_encode(&want, bad.bytes, bad.len);
	strbuf_addstr(&want, ", got sha256:");
	cix_nixbase32_encode(&want, h.bytes, h.len);
	is_int(cix_fetch_url(url.buf, at("d3"), &bad, 0, 0, &o, &err), -CIX_EMISMATCH,
	       "mismatch");
	is_str(err.msg, want.buf, "mismatch message");
	ok(!exists(at("d3")), "mismatch leaves nothing");

	o.keep_mismatch = 1;
	is_int(cix_fetch_url(url.buf, at("d3k"), &bad, 0, 0, &o, &err), -CIX_EMISMATCH,
	       "mismatch, kept");
	ok(stat(at("d3k"), &st) == 0 && st.st_size == (off_t)strlen(data), "kept content");
	o.keep_mismatch = 0;
	is_int(cix_fetch_url(url.buf, at("d1"), NULL, 0, 0, &o, &err), -CIX_EEXIST,
	       "existing destination");
	if (symlink(at("src"), at("lnk")) == 0) {
		ok(cix_fetch_url(url.buf, at("lnk"), NULL, 0, 0, &o, &err) < 0, "symlink dest");
		ok(stat(at("src"), &st) == 0 && st.st_size == (off_t)strlen(data),
		   "symlink target untouched");
	}
	o.allow_file = 0;
	is_int(cix_fetch_url(url.buf, at("d4"), NULL, 0, 0, &o, &err), -CIX_EUNSUPPORTED,
	       "file:// refused when not allowed");
	ok(!exists(at("d4")), "nothing left");
	o.allow_file = 1;
	is_int(cix_fetch_url("gopher://x/y", at("d5"), NULL, 0, 0, &o, &err),
	       -CIX_EUNSUPPORTED, "unknown scheme");
	is_int(cix_fetch_url("http://x/\x7f", at("d5"), NULL, 0, 0, &o, &err), -CIX_EINVAL,
	       "control byte in url");
	is_int(cix_fetch_url("", at("d5"), NULL, 0, 0, &o, &err), -CIX_EINVAL, "empty url");
	ok(cix_fetch_url("file:///nonexistent/x", at("d5"), NULL, 0, 0, &o, &err) < 0 &&
	   !exists(at("d5")), "missing file");
	o.max_size = 4;
	is_int(cix_fetch_url(url.buf, at("d6"), NULL, 0, 0, &o, &err), -CIX_ELIMIT, "size limit");
	ok(!exists(at("d6")), "nothing left");
	o.max_size = 0;

	/* A content-addressed directory: no network needed at all. */
	mkdir(at("cas"), 0755);
	mkdir(at("cas/sha256"), 0755);
	strbuf_addf(&cas, "%s/sha256/", at("cas"));
	cix_base16_encode(&cas, h.bytes, h.len);
	write_file(cas.buf, data, strlen(data));
	o.cas_dirs = cas_dirs;
	ok(cix_fetch_url("http://127.0.0.1:1/none", at("d7"), &h, 0, 0, &o, &err) == 0,
	   "content-addressed hit");
	ok(cix_fetch_url("http://127.0.0.1:1/none", at("d8"), NULL, 0, 0, &o, &err) < 0 &&
	   !exists(at("d8")), "no hash, no lookup");
	ok(cix_fetch_url("http://127.0.0.1:1/none", at("d9"), &h, 1, 0, &o, &err) < 0 &&
	   !exists(at("d9")), "recursive hash, no lookup");

	/* builtin:fetchurl */
	const char *keys[] = { "out", "url", "outputHashMode", "outputHashAlgo", "outputHash",
			       "executable" };
	struct strbuf hs = STRBUF_INIT;
	cix_nixbase32_encode(&hs, h.bytes, h.len);
	const char *vals[] = { "/cix/store/x", url.buf, "flat", "sha256", hs.buf, "0" };
	ok(cix_builtin_fetchurl(keys, vals, 6, at("b1"), NULL, &err) == 0 &&
	   stat(at("b1"), &st) == 0 && st.st_size == (off_t)strlen(data), "builtin, flat");
	is_int(cix_builtin_fetchurl(keys + 1, vals + 1, 5, at("b2"), NULL, &err), -CIX_EINVAL,
	       "builtin without out");
	is_int(cix_builtin_fetchurl(keys, vals, 1, at("b2"), NULL, &err), -CIX_EINVAL,
	       "builtin without url");
	vals[4] = "sha256:0";
	ok(cix_builtin_fetchurl(keys, vals, 6, at("b3"), NULL, &err) < 0 && !exists(at("b3")),
	   "builtin, bad hash");

	strbuf_release(&hs);
	strbuf_release(&url);
	strbuf_release(&want);
	strbuf_release(&cas);
}

int main(void)
{
	if (tap_mkdtemp(dir, sizeof(dir), "fetch") < 0)
		return 1;
	unsetenv("http_proxy");
	unsetenv("all_proxy");
	test_parse_hash();
	test_mirrors();
	test_local();
	char cmd[300];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		diag("cannot remove %s", dir);
	return done_testing();
}
