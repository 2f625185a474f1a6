/* encoding.c - unit tests for hashing and the four encodings */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "tap.h"
#include "encoding.h"
#include "err.h"
#include "hash.h"

#include <stdlib.h>

static const char hello_sha256_hex[] =
	"5891b5b522d5df086d0ff0b110fbd9d21bb4fc7163af34d08286a2e846f6be03";

static void enc(struct strbuf *sb, void (*f)(struct strbuf *, const unsigned char *, size_t),
		const void *in, size_t n)
{
	strbuf_reset(sb);
	f(sb, in, n);
}

static void test_hashes(void)
{
	struct cix_hash h;
	struct strbuf sb = STRBUF_INIT;
	static const struct { enum cix_hash_algo a; const char *hex; } v[] = {
		{ CIX_HASH_MD5, "b1946ac92492d2347c6235b4d2611184" },
		{ CIX_HASH_SHA1, "f572d396fae9206628714fb2ce00f72e94f2258f" },
		{ CIX_HASH_SHA256, hello_sha256_hex },
		{ CIX_HASH_SHA512, "e7c22b994c59d9cf2b48e549b1e24666636045930d3da7c1acb299d1c3b7f931"
				   "f94aae41edda2c2b207a36e10f8bcb8d45223e54878f5b316e7ce3b6bc019629" },
	};
	for (size_t i = 0; i < ARRAY_SIZE(v); i++) {
		cix_hash_buf(v[i].a, "hello\n", 6, &h);
		enc(&sb, cix_base16_encode, h.bytes, h.len);
		is_str(sb.buf, v[i].hex, "%s of hello", cix_hash_algo_name(v[i].a));
	}
	/* Streaming in odd pieces gives the same digest. */
	struct cix_hash_ctx ctx;
	cix_hash_init(&ctx, CIX_HASH_SHA256);
	cix_hash_update(&ctx, "he", 2);
	cix_hash_update(&ctx, "", 0);
	cix_hash_update(&ctx, "llo\n", 4);
	cix_hash_final(&ctx, &h);
	enc(&sb, cix_base16_encode, h.bytes, h.len);
	is_str(sb.buf, hello_sha256_hex, "streaming sha256");

	enum cix_hash_algo a;
	ok(cix_hash_algo_parse("sha512", &a) == 0 && a == CIX_HASH_SHA512, "parse sha512");
	ok(cix_hash_algo_parse("sha3", &a) == -CIX_EINVAL, "unknown algorithm refused");
	strbuf_release(&sb);
}

static void test_nixbase32(void)
{
	struct strbuf sb = STRBUF_INIT;
	unsigned char raw[32], back[32];
	const char *want = "00xyyr3fi8l6hb839bv3f7yb86yjv7xi1cgh1xnhipym4asvb4aq";

	cix_base16_decode(hello_sha256_hex, 64, raw, sizeof(raw));
	enc(&sb, cix_nixbase32_encode, raw, 32);
	is_str(sb.buf, want, "nix-base32 of sha256(hello) (doc/formats.md §2 vector)");
	is_int(cix_nixbase32_len(32), 52, "52 chars for sha256");
	is_int(cix_nixbase32_len(20), 32, "32 chars for 20 bytes");
	is_int(cix_nixbase32_decode(want, 52, back, 32), 32, "decode accepted");
	ok(!memcmp(raw, back, 32), "decode round trip");

	/* Every length and many byte patterns round trip. */
	int good = 1;
	for (size_t n = 1; n <= 64 && good; n++)
		for (int seed = 0; seed < 20 && good; seed++) {
			unsigned char in[64], out[64];
			for (size_t i = 0; i < n; i++)
				in[i] = (unsigned char)(seed * 37 + i * 101 + (seed == 1 ? 255 : 0));
			enc(&sb, cix_nixbase32_encode, in, n);
			good = cix_nixbase32_decode(sb.buf, sb.len, out, n) == (int)n &&
			       !memcmp(in, out, n);
		}
	ok(good, "nix-base32 round trips for lengths 1..64");

	/* Strictness. */
	char bad[53];
	memcpy(bad, want, 53);
	bad[10] = 'e';
	is_int(cix_nixbase32_decode(bad, 52, back, 32), -CIX_EFORMAT, "letter e refused");
	bad[10] = 'u';
	is_int(cix_nixbase32_decode(bad, 52, back, 32), -CIX_EFORMAT, "letter u refused");
	is_int(cix_nixbase32_decode(want, 51, back, 32), -CIX_EFORMAT, "short string refused");
	/* 52 chars carry 260 bits: only the lowest bit of the first char is used. */
	memcpy(bad, want, 53);
	bad[0] = '2';
	is_int(cix_nixbase32_decode(bad, 52, back, 32), -CIX_EFORMAT, "overflow bits refused");
	strbuf_release(&sb);
}

static void test_base16_64_32(void)
{
	struct strbuf sb = STRBUF_INIT;
	unsigned char out[64];
	static const struct { const char *in, *b64, *b32; } v[] = {
		/* RFC 4648 section 10 vectors (base32 lowercased, unpadded). */
		{ "", "", "" },
		{ "f", "Zg==", "my" },
		{ "fo", "Zm8=", "mzxq" },
		{ "foo", "Zm9v", "mzxw6" },
		{ "foob", "Zm9vYg==", "mzxw6yq" },
		{ "fooba", "Zm9vYmE=", "mzxw6ytb" },
		{ "foobar", "Zm9vYmFy", "mzxw6ytboi" },
	};
	for (size_t i = 0; i < ARRAY_SIZE(v); i++) {
		size_t n = strlen(v[i].in);
		enc(&sb, cix_base64_encode, v[i].in, n);
		is_str(sb.buf, v[i].b64, "base64 '%s'", v[i].in);
		is_int(cix_base64_decode(v[i].b64, strlen(v[i].b64), out, sizeof(out)), n,
		       "base64 decode '%s'", v[i].in);
		enc(&sb, cix_base32_encode, v[i].in, n);
		is_str(sb.buf, v[i].b32, "base32 '%s'", v[i].in);
		is_int(cix_base32_decode(v[i].b32, strlen(v[i].b32), out, sizeof(out)), n,
		       "base32 decode '%s'", v[i].in);
		ok(!memcmp(out, v[i].in, n), "base32 decode bytes '%s'", v[i].in);
	}
	is_int(cix_base32_decode("MZXW6YQ=", 8, out, sizeof(out)), 4, "base32 accepts upper case and padding");
	is_int(cix_base64_decode("Zm9vYg=", 7, out, sizeof(out)), -CIX_EFORMAT, "base64 bad length");
	is_int(cix_base64_decode("Zm9vYh==", 8, out, sizeof(out)), -CIX_EFORMAT, "base64 non-canonical");
	is_int(cix_base64_decode("Zm=vYg==", 8, out, sizeof(out)), -CIX_EFORMAT, "base64 padding inside");
	is_int(cix_base64_decode("Zm9vYmFy", 8, out, 5), -CIX_EFORMAT, "base64 output bound");
	is_int(cix_base32_decode("mzxw6yr", 7, out, sizeof(out)), -CIX_EFORMAT, "base32 non-zero leftover bits");
	is_int(cix_base32_decode("mzxw1", 5, out, sizeof(out)), -CIX_EFORMAT, "base32 bad char");

	unsigned char bytes[] = { 0x00, 0x7f, 0x80, 0xff };
	enc(&sb, cix_base16_encode, bytes, 4);
	is_str(sb.buf, "007f80ff", "base16");
	is_int(cix_base16_decode("007F80FF", 8, out, sizeof(out)), 4, "base16 upper case");
	is_int(cix_base16_decode("007", 3, out, sizeof(out)), -CIX_EFORMAT, "base16 odd length");
	is_int(cix_base16_decode("0g", 2, out, sizeof(out)), -CIX_EFORMAT, "base16 bad digit");
	strbuf_release(&sb);
}

int main(void)
{
	test_hashes();
	test_nixbase32();
	test_base16_64_32();
	return done_testing();
}
