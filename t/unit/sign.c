/* sign.c - unit tests for Ed25519 keys, detached signatures and the trusted-key list */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "tap.h"
#include "encoding.h"
#include "sign.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void unhex(const char *hex, unsigned char *out, size_t n)
{
	if (strlen(hex) != 2 * n || cix_base16_decode(hex, 2 * n, out, n) != (int)n)
		BUG("bad hex in a test vector");
}

/*
 * RFC 8032 section 7.1, tests 1-3 (seed, public key, message, signature):
 * published reference values, not outputs of this code.
 */
static const struct {
	const char *seed, *pub, *msg, *sig;
} rfc8032[] = {
	{ "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60",
	  "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a", "",
	  "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b" },
	{ "4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb",
	  "3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c", "72",
	  "92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00" },
	{ "c5aa8df43f9f837bedb7442f31dcb7b166d38535076f094b85ce3a2e0b4458f7",
	  "fc51cd8e6218a1a38da47ed00230f0580816ed13ba3303ac5deb911548908025", "af82",
	  "6291d657deec24024827e69c3abe01a30ce548a284743a445e3680d7db5ac3ac18ff9b538d16f290ae67f760984dc6594a7c15e9716ed28dc027beceea1ec40a" },
};

static void test_rfc8032(void)
{
	for (size_t i = 0; i < ARRAY_SIZE(rfc8032); i++) {
		struct cix_secret_key k = { .name = "rfc" };
		struct cix_public_key pk;
		unsigned char pub[32], sig[64], msg[2];
		size_t mlen = strlen(rfc8032[i].msg) / 2;
		struct strbuf sb = STRBUF_INIT, want = STRBUF_INIT;

		unhex(rfc8032[i].seed, k.key, 32);
		unhex(rfc8032[i].pub, pub, 32);
		unhex(rfc8032[i].sig, sig, 64);
		unhex(rfc8032[i].msg, msg, mlen);
		ok(!cix_public_key_derive(k.key, k.key + 32, NULL) && !memcmp(k.key + 32, pub, 32),
		   "RFC 8032 test %zu: public key derived from the seed", i + 1);
		ok(!cix_sign_detached(&k, (const char *)msg, mlen, &sb, NULL),
		   "RFC 8032 test %zu: signed", i + 1);
		strbuf_addstr(&want, "rfc:");
		cix_base64_encode(&want, sig, 64);
		is_str(sb.buf, want.buf, "RFC 8032 test %zu: the published signature", i + 1);
		cix_secret_key_public(&k, &pk);
		is_int(cix_verify_detached(want.buf, (const char *)msg, mlen, &pk, 1), 1,
		       "RFC 8032 test %zu: verified", i + 1);
		strbuf_release(&sb);
		strbuf_release(&want);
	}
}

static void test_round_trip(void)
{
	struct cix_secret_key k, k2;
	struct cix_public_key pk, pk2;
	struct strbuf s = STRBUF_INIT, p = STRBUF_INIT, s2 = STRBUF_INIT;
	struct cix_err err = { 0 };

	is_int(cix_secret_key_generate("cache.example.org-1", &k, &err), 0, "generate a key pair");
	cix_secret_key_format(&k, &s);
	ok(s.len == strlen("cache.example.org-1:") + 88 && !strchr(s.buf, '\n'),
	   "secret key text: NAME:base64 of 64 bytes, no newline");
	is_int(cix_secret_key_parse(s.buf, s.len, &k2, &err), 0, "secret key parsed back");
	ok(!strcmp(k2.name, k.name) && !memcmp(k2.key, k.key, 64), "same name and bytes");
	cix_secret_key_format(&k2, &s2);
	is_str(s2.buf, s.buf, "formatted again: the same text");
	cix_secret_key_public(&k, &pk);
	cix_public_key_format(&pk, &p);
	is_int(p.len, strlen("cache.example.org-1:") + 44, "public key text: base64 of 32 bytes");
	is_int(cix_public_key_parse(p.buf, p.len, &pk2, &err), 0, "public key parsed back");
	ok(!strcmp(pk.name, pk2.name) && !memcmp(pk.key, pk2.key, 32), "same public key");

	/* A seed with leading zero bytes: nothing is lost as an MPI. */
	memset(k.key, 0, 32);
	k.key[31] = 1;
	ok(!cix_public_key_derive(k.key, k.key + 32, NULL), "derive from 00...01");
	strbuf_reset(&s);
	cix_secret_key_format(&k, &s);
	is_int(cix_secret_key_parse(s.buf, s.len, &k2, &err), 0, "its secret key parses");
	strbuf_reset(&s);
	cix_secret_key_public(&k, &pk);
	ok(!cix_sign_detached(&k, "x", 1, &s, NULL) && cix_verify_detached(s.buf, "x", 1, &pk, 1),
	   "and signs verifiably");
	strbuf_release(&s);
	strbuf_release(&s2);
	strbuf_release(&p);
}

static void test_sign_verify(void)
{
	struct cix_secret_key k, other;
	struct cix_public_key keys[3];
	struct strbuf sig = STRBUF_INIT, bad = STRBUF_INIT;
	const char *fp = "1;/nix/store/zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz-x;sha256:0000;120;";
	size_t n = strlen(fp);

	cix_secret_key_generate("k-1", &k, NULL);
	cix_secret_key_generate("k-1", &other, NULL);
	cix_secret_key_public(&other, &keys[0]);   /* same name, another key */
	cix_secret_key_public(&k, &keys[1]);
	is_int(cix_sign_detached(&k, fp, n, &sig, NULL), 0, "sign a fingerprint");
	ok(!strncmp(sig.buf, "k-1:", 4) && sig.len == 4 + 88, "signature is NAME:base64(64 bytes)");
	is_int(cix_verify_detached(sig.buf, fp, n, keys, 2), 1,
	       "verified by the key of that name that made it");
	is_int(cix_verify_detached(sig.buf, fp, n, keys, 1), 0, "not by another key of that name");
	is_int(cix_verify_detached(sig.buf, fp, n, keys, 0), 0, "not without keys");

	char *data = xstrdup(fp);
	data[5] ^= 1;
	is_int(cix_verify_detached(sig.buf, data, n, keys, 2), 0, "a changed byte of data: invalid");
	is_int(cix_verify_detached(sig.buf, fp, n - 1, keys, 2), 0, "truncated data: invalid");
	free(data);

	strbuf_addstr(&bad, sig.buf);
	bad.buf[10] = bad.buf[10] == 'A' ? 'B' : 'A';
	is_int(cix_verify_detached(bad.buf, fp, n, keys, 2), 0, "a changed signature: invalid");
	strbuf_reset(&bad);
	strbuf_addf(&bad, "k-2%s", sig.buf + 3);
	is_int(cix_verify_detached(bad.buf, fp, n, keys, 2), 0, "an unknown key name: invalid");

	static const char *malformed[] = {
		"", ":", "k-1", "k-1:", ":AAAA", "k-1:AAAA", "k-1:!!!!", "k 1:AAAA",
	};
	for (size_t i = 0; i < ARRAY_SIZE(malformed); i++)
		is_int(cix_verify_detached(malformed[i], fp, n, keys, 2), 0,
		       "malformed signature '%s': invalid", malformed[i]);
	strbuf_reset(&bad);
	strbuf_addf(&bad, "%.*s", (int)sig.len - 2, sig.buf);
	is_int(cix_verify_detached(bad.buf, fp, n, keys, 2), 0, "no padding: invalid");
	strbuf_reset(&bad);
	strbuf_addf(&bad, "%s\n", sig.buf);
	is_int(cix_verify_detached(bad.buf, fp, n, keys, 2), 0, "a trailing newline: invalid");
	strbuf_reset(&bad);
	strbuf_addf(&bad, "%sAAAA", sig.buf);
	is_int(cix_verify_detached(bad.buf, fp, n, keys, 2), 0, "too long: invalid");

	/* The empty message is signed too. */
	strbuf_reset(&sig);
	ok(!cix_sign_detached(&k, "", 0, &sig, NULL) &&
	   cix_verify_detached(sig.buf, "", 0, keys, 2) == 1, "empty data: signed and verified");
	strbuf_release(&sig);
	strbuf_release(&bad);
}

static void refused_key(int secret, const char *text, int want, const char *why)
{
	struct cix_secret_key k;
	struct cix_public_key pk;
	struct cix_err err = { 0 };
	int r = secret ? cix_secret_key_parse(text, strlen(text), &k, &err)
		       : cix_public_key_parse(text, strlen(text), &pk, &err);
	if (!ok(r == want && err.msg[0], "%s key refused: %s", secret ? "secret" : "public", why))
		diag("  got %d (%s)", r, err.msg);
}

static void test_refusals(void)
{
	struct cix_secret_key k;
	struct cix_public_key pk;
	struct strbuf s = STRBUF_INIT, p = STRBUF_INIT, t = STRBUF_INIT;
	const int F = -CIX_EFORMAT;

	cix_secret_key_generate("n-1", &k, NULL);
	cix_secret_key_format(&k, &s);
	cix_secret_key_public(&k, &pk);
	cix_public_key_format(&pk, &p);

	refused_key(0, "", F, "empty");
	refused_key(0, p.buf + 3, F, "no name");
	refused_key(0, p.buf + 4, F, "no colon");
	refused_key(0, s.buf, F, "a secret key's length");
	refused_key(1, p.buf, F, "a public key's length");
	strbuf_addf(&t, "%s\n", p.buf);
	refused_key(0, t.buf, F, "trailing newline");
	strbuf_reset(&t);
	strbuf_addf(&t, "a b%s", p.buf + 3);
	refused_key(0, t.buf, F, "a space in the name");
	strbuf_reset(&t);
	strbuf_addf(&t, "a:b%s", p.buf + 3);
	refused_key(0, t.buf, F, "a colon in the name");
	strbuf_reset(&t);
	for (int i = 0; i < CIX_KEY_NAME_MAX + 1; i++)
		strbuf_addch(&t, 'x');
	strbuf_addstr(&t, p.buf + 3);
	refused_key(0, t.buf, F, "a name too long");
	strbuf_reset(&t);
	strbuf_addf(&t, "%.*s", (int)p.len - 1, p.buf);
	refused_key(0, t.buf, F, "base64 cut short");
	strbuf_reset(&t);
	strbuf_addstr(&t, p.buf);
	t.buf[t.len - 2] = t.buf[t.len - 2] == 'B' ? 'C' : 'B';    /* low bits after '=' */
	if (t.buf[t.len - 2] == 'C')
		t.buf[t.len - 2] = 'D';
	refused_key(0, t.buf, F, "non-canonical base64");
	strbuf_reset(&t);
	strbuf_addstr(&t, s.buf);
	t.buf[t.len - 5] = t.buf[t.len - 5] == 'A' ? 'B' : 'A';    /* the public half */
	refused_key(1, t.buf, -CIX_EMISMATCH, "a public half not its seed's");

	/* Any length of the name, up to the bound, is fine. */
	strbuf_reset(&t);
	for (int i = 0; i < CIX_KEY_NAME_MAX; i++)
		strbuf_addch(&t, 'x');
	ok(!cix_secret_key_generate(t.buf, &k, NULL), "a name of %d bytes", CIX_KEY_NAME_MAX);
	struct cix_err err = { 0 };
	ok(cix_secret_key_generate("", &k, &err) == F && err.msg[0], "no key with an empty name");
	ok(cix_secret_key_generate("a:b", &k, NULL) == F, "no key with ':' in its name");
	ok(cix_secret_key_generate("a\nb", &k, NULL) == F, "no key with a newline in its name");
	strbuf_release(&s);
	strbuf_release(&p);
	strbuf_release(&t);
}

static void test_acl(void)
{
	struct cix_secret_key k1, k2;
	struct cix_public_key p1, p2;
	struct cix_acl acl = CIX_ACL_INIT;
	struct strbuf text = STRBUF_INIT, out = STRBUF_INIT, want = STRBUF_INIT;
	struct cix_err err = { 0 };

	cix_secret_key_generate("one-1", &k1, NULL);
	cix_secret_key_generate("two-1", &k2, NULL);
	cix_secret_key_public(&k1, &p1);
	cix_secret_key_public(&k2, &p2);
	strbuf_addstr(&text, "# trusted keys\n\n  ");
	cix_public_key_format(&p1, &text);
	strbuf_addstr(&text, "\t\n   # another\n");
	cix_public_key_format(&p2, &text);
	strbuf_addch(&text, '\n');
	cix_public_key_format(&p1, &text);          /* again, and no final newline */
	is_int(cix_acl_parse(text.buf, text.len, &acl, &err), 0, "ACL parsed");
	is_int(acl.nr, 2, "two keys, the duplicate once");
	ok(cix_acl_has(&acl, &p1) && cix_acl_has(&acl, &p2), "both held");
	cix_public_key_format(&p1, &want);
	strbuf_addch(&want, '\n');
	cix_public_key_format(&p2, &want);
	strbuf_addch(&want, '\n');
	cix_acl_format(&acl, &out);
	is_str(out.buf, want.buf, "formatted: one key per line");
	is_int(cix_acl_add(&acl, &p2, NULL), 0, "adding a held key: nothing");
	cix_acl_release(&acl);

	is_int(cix_acl_parse("", 0, &acl, &err), 0, "empty ACL");
	is_int(acl.nr, 0, "no keys");
	is_int(cix_acl_add(&acl, &p1, NULL), 1, "a key added");
	cix_acl_release(&acl);

	strbuf_reset(&text);
	strbuf_addstr(&text, "# ok\n");
	cix_public_key_format(&p1, &text);
	strbuf_addstr(&text, "\nnot a key\n");
	is_int(cix_acl_parse(text.buf, text.len, &acl, &err), -CIX_EFORMAT, "a bad line refused");
	ok(!strncmp(err.msg, "line 3: ", 8), "the error names line 3 (%s)", err.msg);
	ok(!acl.nr && !acl.keys, "and nothing kept");

	strbuf_reset(&text);
	for (int i = 0; i <= CIX_ACL_MAX_LINE; i++)
		strbuf_addch(&text, '#');
	is_int(cix_acl_parse(text.buf, text.len, &acl, &err), -CIX_ELIMIT, "a line too long");
	is_int(cix_acl_parse("a:b\0c", 5, &acl, &err), -CIX_EFORMAT, "a NUL byte refused");
	strbuf_release(&text);
	strbuf_release(&out);
	strbuf_release(&want);
}

/* Hidden modes for t6000 (the Nix oracle): print to stdout, status 0 or 1. */
static int read_key_file(const char *path, struct strbuf *sb)
{
	if (strbuf_read_file(sb, path, 65536) < 0) {
		fprintf(stderr, "cannot read %s\n", path);
		return -1;
	}
	if (sb->len && sb->buf[sb->len - 1] == '\n')
		strbuf_setlen(sb, sb->len - 1);
	return 0;
}

static int tool(int argc, char **argv)
{
	struct strbuf sb = STRBUF_INIT, out = STRBUF_INIT;
	struct cix_secret_key k;
	struct cix_public_key pk;
	struct cix_err err = { 0 };
	int r = 1;

	if (!strcmp(argv[1], "--sign") && argc == 4) {
		/* --sign SECFILE DATA: the signature of DATA */
		if (!read_key_file(argv[2], &sb) && !cix_secret_key_parse(sb.buf, sb.len, &k, &err) &&
		    !cix_sign_detached(&k, argv[3], strlen(argv[3]), &out, &err))
			r = 0;
	} else if (!strcmp(argv[1], "--verify") && argc == 5) {
		/* --verify PUBFILE SIG DATA */
		int valid = !read_key_file(argv[2], &sb) &&
			    !cix_public_key_parse(sb.buf, sb.len, &pk, &err) &&
			    cix_verify_detached(argv[3], argv[4], strlen(argv[4]), &pk, 1);
		strbuf_release(&sb);
		return !valid;
	} else if (!strcmp(argv[1], "--public") && argc == 3) {
		/* --public SECFILE: the public key computed from its seed */
		if (!read_key_file(argv[2], &sb) && !cix_secret_key_parse(sb.buf, sb.len, &k, &err) &&
		    !cix_public_key_derive(k.key, pk.key, &err)) {
			memcpy(pk.name, k.name, sizeof(pk.name));
			cix_public_key_format(&pk, &out);
			r = 0;
		}
	} else if (!strcmp(argv[1], "--from-seed") && argc == 4) {
		/* --from-seed NAME HEX: the secret key of that seed */
		snprintf(k.name, sizeof(k.name), "%s", argv[2]);
		if (strlen(argv[3]) == 64 && cix_base16_decode(argv[3], 64, k.key, 32) == 32 &&
		    !cix_public_key_derive(k.key, k.key + 32, &err)) {
			cix_secret_key_format(&k, &out);
			r = 0;
		}
	} else {
		fprintf(stderr, "usage: sign.t [--sign SEC DATA | --verify PUB SIG DATA |"
				" --public SEC | --from-seed NAME HEX]\n");
		return 2;
	}
	if (r)
		fprintf(stderr, "sign.t: %s\n", err.msg[0] ? err.msg : "failed");
	else
		puts(out.buf);
	strbuf_release(&sb);
	strbuf_release(&out);
	return r;
}

int main(int argc, char **argv)
{
	if (argc > 1)
		return tool(argc, argv);
	test_rfc8032();
	test_round_trip();
	test_sign_verify();
	test_refusals();
	test_acl();
	return done_testing();
}
