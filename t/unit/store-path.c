/* store-path.c - unit tests for store path validation and computation */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "tap.h"
#include "encoding.h"
#include "hash.h"
#include "store-path.h"

#include <stdlib.h>
#include <string.h>

static const char *hello = "hello\n";
/* doc/formats.md §3: the NAR hash of the file "hello\n". */
static const char *hello_nar_sha256 =
	"1c37d01af40be2e80691de3cc3df44377a699afbb17c68f080964b2fd071fc13";

static void hash_hex(struct cix_hash *h, const char *hex)
{
	h->algo = CIX_HASH_SHA256;
	h->len = 32;
	if (cix_base16_decode(hex, strlen(hex), h->bytes, sizeof(h->bytes)) != 32)
		abort();
}

static void test_vectors(void)
{
	struct strbuf sb = STRBUF_INIT;
	struct cix_hash h, nar;
	struct cix_err err = { 0 };

	cix_hash_buf(CIX_HASH_SHA256, hello, strlen(hello), &h);
	hash_hex(&nar, hello_nar_sha256);

	is_int(cix_store_path_make_fixed(&sb, "/nix/store", "hello.txt", 0, &h, &err), 0,
	       "flat fixed path");
	is_str(sb.buf, "/nix/store/gy454w1cxaq731grqwylhzf4pp9r5izh-hello.txt",
	       "nix-store --add-fixed sha256 hello.txt");
	strbuf_reset(&sb);

	is_int(cix_store_path_make_source(&sb, "/nix/store", "hello.txt", &nar, NULL, 0, 0, &err),
	       0, "source path");
	is_str(sb.buf, "/nix/store/i9pmrzmpshapij2kin22pff6fc2adavx-hello.txt",
	       "nix-store --add hello.txt");
	strbuf_reset(&sb);

	is_int(cix_store_path_make_fixed(&sb, "/nix/store", "hello.txt", 1, &nar, &err), 0,
	       "recursive sha256 fixed path");
	is_str(sb.buf, "/nix/store/i9pmrzmpshapij2kin22pff6fc2adavx-hello.txt",
	       "recursive sha256 fixed path is the source path");
	strbuf_reset(&sb);

	is_int(cix_store_path_make_text(&sb, "/nix/store", "foo.txt", &h, NULL, 0, &err), 0,
	       "text path");
	is_str(sb.buf, "/nix/store/xl3jbiq4g9jnqn8yp9y4cski5n3ylk1q-foo.txt",
	       "builtins.toFile \"foo.txt\" \"hello\\n\"");
	strbuf_reset(&sb);

	is_int(cix_store_path_make_fixed(&sb, "/nix/store", "fixed", 0, &h, &err), 0,
	       "fixed output path");
	is_str(sb.buf, "/nix/store/ilghkg8sqnh9275b62zcvsq9kpkym8yl-fixed",
	       "fixed flat sha256 derivation output");
	strbuf_reset(&sb);

	/* The store directory is part of the fingerprint. */
	cix_store_path_make_fixed(&sb, "/cix/store", "hello.txt", 0, &h, &err);
	ok(!strncmp(sb.buf, "/cix/store/", 11) && strcmp(sb.buf + 11, "gy454w1cxaq731grqwylhzf4pp9r5izh-hello.txt"),
	   "another store directory gives another hash");
	strbuf_release(&sb);
}

static void test_refs(void)
{
	struct strbuf a = STRBUF_INIT, b = STRBUF_INIT, c = STRBUF_INIT;
	struct cix_hash h;
	struct cix_err err = { 0 };
	const char *r1[] = { "/nix/store/xl3jbiq4g9jnqn8yp9y4cski5n3ylk1q-foo.txt",
			     "/nix/store/gy454w1cxaq731grqwylhzf4pp9r5izh-hello.txt" };
	const char *r2[] = { "/nix/store/gy454w1cxaq731grqwylhzf4pp9r5izh-hello.txt",
			     "/nix/store/xl3jbiq4g9jnqn8yp9y4cski5n3ylk1q-foo.txt",
			     "/nix/store/gy454w1cxaq731grqwylhzf4pp9r5izh-hello.txt" };
	const char *bad[] = { "/etc/passwd" };

	cix_hash_buf(CIX_HASH_SHA256, hello, strlen(hello), &h);
	is_int(cix_store_path_make_text(&a, "/nix/store", "x", &h, r1, 2, &err), 0, "text with refs");
	is_int(cix_store_path_make_text(&b, "/nix/store", "x", &h, r2, 3, &err), 0,
	       "text with refs in another order, repeated");
	is_str(a.buf, b.buf, "references are sorted and deduplicated");
	cix_store_path_make_text(&c, "/nix/store", "x", &h, NULL, 0, &err);
	ok(strcmp(a.buf, c.buf), "references change the path");
	is_int(cix_store_path_make_text(&c, "/nix/store", "x", &h, bad, 1, &err), -CIX_EFORMAT,
	       "a reference outside the store is refused");
	strbuf_reset(&a);
	strbuf_reset(&b);
	cix_store_path_make_source(&a, "/nix/store", "x", &h, r1, 2, 0, &err);
	cix_store_path_make_source(&b, "/nix/store", "x", &h, r1, 2, 1, &err);
	ok(strcmp(a.buf, b.buf), "self reference changes a source path");
	strbuf_release(&a);
	strbuf_release(&b);
	strbuf_release(&c);
}

static void test_output_names(void)
{
	struct strbuf sb = STRBUF_INIT;
	struct cix_hash h;
	struct cix_err err = { 0 };

	cix_store_output_path_name(&sb, "hello", "out");
	is_str(sb.buf, "hello", "output out is named after the derivation");
	strbuf_reset(&sb);
	cix_store_output_path_name(&sb, "hello", "doc");
	is_str(sb.buf, "hello-doc", "other outputs get a suffix");
	strbuf_reset(&sb);
	cix_hash_buf(CIX_HASH_SHA256, "x", 1, &h);
	is_int(cix_store_path_make_output(&sb, "/nix/store", "hello", "doc", &h, &err), 0,
	       "output path");
	ok(sb.len == strlen("/nix/store/") + 32 + strlen("-hello-doc") &&
	   !strcmp(sb.buf + sb.len - 10, "-hello-doc"), "output path shape");
	strbuf_release(&sb);
}

static void test_names(void)
{
	char name[300];
	static const char *good[] = { "a", "hello-2.10", "A+b_c?d=e", ".foo", ".", "..", "..-x" };
	static const char *bad[] = { "", "a b", "a/b", "a:b", "caf\xc3\xa9", "a\nb", "a*" };

	for (size_t i = 0; i < sizeof(good) / sizeof(*good); i++)
		is_int(cix_store_name_check(good[i], strlen(good[i]), NULL), 0,
		       "name '%s' is valid (as in Nix 2.8)", good[i]);
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++)
		is_int(cix_store_name_check(bad[i], strlen(bad[i]), NULL), -CIX_EFORMAT,
		       "name #%zu is invalid", i);
	memset(name, 'a', sizeof(name));
	is_int(cix_store_name_check(name, 211, NULL), 0, "211 characters is the maximum");
	is_int(cix_store_name_check(name, 212, NULL), -CIX_EFORMAT, "212 characters is too long");
	is_int(cix_store_name_check("a\0b", 3, NULL), -CIX_EFORMAT, "NUL in a name");
}

static void test_parse(void)
{
	struct cix_store_path_parts parts;
	struct cix_err err = { 0 };
	unsigned char bytes[20];
	static const char *bad[] = {
		"/nix/store",
		"/nix/store/",
		"/nix/storex/gy454w1cxaq731grqwylhzf4pp9r5izh-hello.txt",
		"/nix/gy454w1cxaq731grqwylhzf4pp9r5izh-hello.txt",
		"nix/store/gy454w1cxaq731grqwylhzf4pp9r5izh-hello.txt",
		"/nix/store/gy454w1cxaq731grqwylhzf4pp9r5izh-hello.txt/etc",
		"/nix/store/gy454w1cxaq731grqwylhzf4pp9r5izh-hello.txt/",
		"/nix/store/gy454w1cxaq731grqwylhzf4pp9r5izh-",
		"/nix/store/gy454w1cxaq731grqwylhzf4pp9r5izh",
		"/nix/store/gy454w1cxaq731grqwylhzf4pp9r5izhxhello.txt",
		"/nix/store/gy454w1cxaq731grqwylhzf4pp9r5ize-hello.txt",
		"/nix/store/GY454W1CXAQ731GRQWYLHZF4PP9R5IZH-hello.txt",
		"/nix/store/short-hello.txt",
		"/nix/store/../gy454w1cxaq731grqwylhzf4pp9r5izh-hello.txt",
		"/nix/store/../../etc/passwd",
		"/nix/store//gy454w1cxaq731grqwylhzf4pp9r5izh-hello.txt",
		"/nix/store/gy454w1cxaq731grqwylhzf4pp9r5izh-hello txt",
	};

	is_int(cix_store_path_parse("/nix/store", "/nix/store/gy454w1cxaq731grqwylhzf4pp9r5izh-hello.txt",
				    &parts, &err), 0, "parse a store path");
	ok(!strncmp(parts.hash, "gy454w1cxaq731grqwylhzf4pp9r5izh", 32), "hash part");
	is_str(parts.name, "hello.txt", "name part");
	is_int(parts.name_len, 9, "name length");
	is_int(cix_store_path_hash_bytes(parts.hash, bytes), 0, "hash part decodes");
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		err.msg[0] = '\0';
		is_int(cix_store_path_parse("/nix/store", bad[i], NULL, &err), -CIX_EFORMAT,
		       "refuse '%s'", bad[i]);
		ok(err.msg[0] && !strchr(err.msg, '\n'), "one-line message: %s", err.msg);
	}
	is_int(cix_store_path_parse("/nix/store", "/nix/store/gy454w1cxaq731grqwylhzf4pp9r5izh-.",
				    NULL, NULL), 0, "name '.' accepted, as Nix 2.8 does");
}

/* Every byte in a hash part is accepted exactly when it is a nix-base32 digit. */
static void test_hash_chars(void)
{
	char path[64] = "/s/00000000000000000000000000000000-x";
	int wrong = 0;
	for (int c = 0; c < 256; c++) {
		path[3 + 7] = (char)c;
		int in = c && strchr(cix_nixbase32_chars, c) != NULL;
		int r = cix_store_path_parse("/s", path, NULL, NULL);
		if ((r == 0) != in) {
			diag("byte %d: %s", c, r == 0 ? "accepted" : "refused");
			wrong++;
		}
	}
	is_int(wrong, 0, "hash part: nix-base32 digits only, all of them");
}

/* Every byte in a name is accepted exactly when Nix accepts it. */
static void test_name_chars(void)
{
	static const char allowed[] = "0123456789abcdefghijklmnopqrstuvwxyz"
				      "ABCDEFGHIJKLMNOPQRSTUVWXYZ+-._?=";
	int wrong = 0;
	for (int c = 1; c < 256; c++) {
		char name[2] = { (char)c, 0 };
		int in = strchr(allowed, c) != NULL;
		if ((cix_store_name_check(name, 1, NULL) == 0) != in)
			wrong++;
	}
	is_int(wrong, 0, "name: letters, digits and +-._?= only, all of them");
}

static void test_store_dir(void)
{
	static const char *good[] = { "/nix/store", "/cix/store", "/a", "/tmp/x.y/store" };
	static const char *bad[] = { "", "/", "nix/store", "/nix/store/", "/nix//store",
				     "/nix/./store", "/nix/../store", "/nix/store/.." };
	struct strbuf sb = STRBUF_INIT;
	struct cix_hash h;

	for (size_t i = 0; i < sizeof(good) / sizeof(*good); i++)
		is_int(cix_store_dir_check(good[i], NULL), 0, "store dir '%s'", good[i]);
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++)
		is_int(cix_store_dir_check(bad[i], NULL), -CIX_EINVAL, "bad store dir '%s'", bad[i]);
	cix_hash_buf(CIX_HASH_SHA256, "x", 1, &h);
	is_int(cix_store_path_make(&sb, "/nix/store/", "text", &h, "x", NULL), -CIX_EINVAL,
	       "making a path needs a canonical store dir");
	is_int(cix_store_path_make(&sb, "/nix/store", "text", &h, "a/b", NULL), -CIX_EFORMAT,
	       "making a path checks the name");
	is_int(sb.len, 0, "nothing appended on error");

	unsetenv("CIX_STORE_DIR");
	is_str(cix_store_dir(), "/cix/store", "default store dir");
	setenv("CIX_STORE_DIR", "/tmp/s", 1);
	is_str(cix_store_dir(), "/tmp/s", "CIX_STORE_DIR");
	strbuf_release(&sb);
}

int main(void)
{
	test_vectors();
	test_refs();
	test_output_names();
	test_names();
	test_parse();
	test_hash_chars();
	test_name_chars();
	test_store_dir();
	return done_testing();
}
