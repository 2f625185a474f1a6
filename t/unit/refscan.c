/* refscan.c - unit tests for the reference scanner */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "tap.h"
#include "encoding.h"
#include "nar.h"
#include "remove.h"
#include "refscan.h"

#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define HLEN CIX_REFSCAN_HASH_LEN

static uint64_t rng_state;

static uint64_t rnd(void)
{
	/* xorshift64* */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545f4914f6cdd1dull;
}

static void seed(uint64_t s)
{
	rng_state = s * 0x9e3779b97f4a7c15ull + 1;
}

static void random_part(char *out)
{
	for (int i = 0; i < HLEN; i++)
		out[i] = cix_nixbase32_chars[rnd() % 32];
	out[HLEN] = '\0';
}

static struct cix_refscan *new_or_die(const char *const *parts, size_t n)
{
	struct cix_err err = { 0 };
	struct cix_refscan *s = cix_refscan_new(parts, n, &err);
	if (!s) {
		diag("cix_refscan_new: %s", err.msg);
		abort();
	}
	return s;
}

/* Scan buf as one piece; return a bitmask of the found candidates. */
static uint64_t scan_mask(const char *const *parts, size_t n,
			  const void *buf, size_t len)
{
	struct cix_refscan *s = new_or_die(parts, n);
	uint64_t m = 0;
	cix_refscan_feed(s, buf, len);
	for (size_t i = 0; i < n; i++)
		if (cix_refscan_found(s, i))
			m |= UINT64_C(1) << i;
	cix_refscan_free(s);
	return m;
}

static void test_invalid(void)
{
	struct cix_err err = { 0 };
	char good[HLEN + 1];
	static const char *bad[] = {
		"",
		"0123456789abcdfghijklmnpqrsvwxy",    /* 31 */
		"0123456789abcdfghijklmnpqrsvwxyz0",  /* 33 */
		"0123456789abcdfghijklmnpqrsvwxye",   /* e */
		"o123456789abcdfghijklmnpqrsvwxyz",   /* o */
		"0123456789abcdfghijklmnpqrsvwxyt",   /* t */
		"0123456789abcdfghijklmnpqrsvwxyu",   /* u */
		"0123456789ABCDFGHIJKLMNPQRSVWXYZ",   /* upper case */
		"0123456789abcdfghijklmnpqrsvwx-z",
		"0123456789abcdfghijklmnpqrsvwx\nz",
		"0123456789abcdfghijklmnpqrsvwx\xffz",
	};
	seed(1);
	random_part(good);
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		const char *parts[] = { good, bad[i] };
		struct cix_refscan *s;
		cix_err_clear(&err);
		s = cix_refscan_new(parts, 2, &err);
		ok(!s && err.code == -CIX_EINVAL && strstr(err.msg, "invalid hash part") &&
		   !strchr(err.msg, '\n'),
		   "invalid hash part %zu refused (%s)", i, err.msg);
		cix_refscan_free(s);
	}
	{
		const char *parts[] = { good, NULL };
		cix_err_clear(&err);
		ok(!cix_refscan_new(parts, 2, &err) && err.code == -CIX_EINVAL,
		   "missing hash part refused");
	}
	{
		const char *parts[] = { cix_nixbase32_chars };
		struct cix_refscan *s = cix_refscan_new(parts, 1, &err);
		ok(s != NULL, "the whole alphabet is a valid hash part");
		cix_refscan_free(s);
	}
	{
		struct cix_refscan *s = cix_refscan_new(NULL, 0, &err);
		ok(s && cix_refscan_nfound(s) == 0, "no candidates");
		cix_refscan_feed(s, good, HLEN);
		ok(cix_refscan_nfound(s) == 0, "no candidates, nothing found");
		cix_refscan_free(s);
	}
}

static void test_positions(void)
{
	char a[HLEN + 1], b[HLEN + 1], buf[256];
	const char *parts[] = { a, b };

	seed(2);
	random_part(a);
	random_part(b);

	is_int(scan_mask(parts, 2, a, HLEN), 1, "exactly the hash part");
	is_int(scan_mask(parts, 2, a, HLEN - 1), 0, "31 bytes of it are not enough");
	snprintf(buf, sizeof(buf), "%s-hello/bin:/nix/store/%s-x", a, b);
	is_int(scan_mask(parts, 2, buf, strlen(buf)), 3, "at the start and inside");
	snprintf(buf, sizeof(buf), "\x01\x02/nix/store/%s", b);
	is_int(scan_mask(parts, 2, buf, strlen(buf)), 2, "at the end");

	/* Every alignment relative to the stream start, and to the blocks. */
	for (int pre = 0; pre < 48; pre++) {
		int good = 1;
		for (int post = 0; post < 20; post++) {
			memset(buf, '/', sizeof(buf));
			memcpy(buf + pre, a, HLEN);
			if (scan_mask(parts, 2, buf, (size_t)(pre + HLEN + post)) != 1)
				good = 0;
		}
		ok(good, "found after %d bytes of prefix", pre);
	}

	/* Inside a longer base-32 run (Nix does not care where a run starts). */
	for (int off = 0; off <= 8; off++) {
		char run[64];
		for (int i = 0; i < 40; i++)
			run[i] = cix_nixbase32_chars[(i * 7 + 3) % 32];
		memcpy(run + off, a, HLEN);
		ok(scan_mask(parts, 2, run, 40) == 1,
		   "found at offset %d of a 40-character base-32 run", off);
	}
	for (int off = 0; off < 64; off++) {
		char run[160];
		for (size_t i = 0; i < sizeof(run); i++)
			run[i] = cix_nixbase32_chars[rnd() % 32];
		memcpy(run + off, a, HLEN);
		memcpy(run + off + HLEN + 13, b, HLEN);
		if (scan_mask(parts, 2, run, sizeof(run)) != 3) {
			ok(0, "two hash parts inside a 160-character run at %d", off);
			return;
		}
	}
	ok(1, "two hash parts inside a 160-character run at every offset");
}

static void test_overlap_and_duplicates(void)
{
	char a[HLEN + 1], b[HLEN + 1], c[HLEN + 1], run[HLEN + 8];
	const char *parts[] = { a, b, c, a };

	seed(3);
	random_part(run);
	for (int i = HLEN; i < HLEN + 7; i++)
		run[i] = cix_nixbase32_chars[rnd() % 32];
	memcpy(a, run, HLEN);
	memcpy(b, run + 5, HLEN);     /* shares 27 characters with a */
	memcpy(c, run + 7, HLEN);     /* one past the end: absent */
	a[HLEN] = b[HLEN] = c[HLEN] = '\0';
	c[HLEN - 1] = c[HLEN - 1] == 'z' ? 'y' : 'z';
	is_int(scan_mask(parts, 4, run, HLEN + 7), 1 | 2 | 8,
	       "overlapping hash parts both found, duplicate candidate too");
	is_int(scan_mask(parts, 4, run + 1, HLEN + 6), 2,
	       "the one shifted out is not");
}

static void test_near_misses(void)
{
	char a[HLEN + 1], buf[HLEN + 16];
	const char *parts[] = { a };
	int fp = 0;

	seed(4);
	random_part(a);
	for (int i = 0; i < HLEN; i++)
		for (int k = 0; k < 32; k++) {
			memset(buf, 'x', sizeof(buf));
			memcpy(buf + 5, a, HLEN);
			if (cix_nixbase32_chars[k] == a[i])
				continue;
			buf[5 + i] = cix_nixbase32_chars[k];
			if (scan_mask(parts, 1, buf, sizeof(buf)))
				fp++;
		}
	is_int(fp, 0, "no match with any one character changed");
	memset(buf, 'x', sizeof(buf));
	memcpy(buf + 5, a, HLEN);
	buf[5 + 16] = '/';
	is_int(scan_mask(parts, 1, buf, sizeof(buf)), 0, "nor with a separator inside");
}

/* Feeding in pieces: every split point, and one byte at a time. */
static void test_splits(void)
{
	char a[HLEN + 1], b[HLEN + 1], buf[120];
	const char *parts[] = { a, b };
	int good = 1;

	seed(5);
	random_part(a);
	random_part(b);
	for (size_t i = 0; i < sizeof(buf); i++)
		buf[i] = (char)(rnd() % 2 ? cix_nixbase32_chars[rnd() % 32] : '-');
	memcpy(buf + 17, a, HLEN);
	memcpy(buf + 70, b, HLEN);
	for (size_t i = 0; i <= sizeof(buf); i++)
		for (size_t j = i; j <= sizeof(buf); j++) {
			struct cix_refscan *s = new_or_die(parts, 2);
			cix_refscan_feed(s, buf, i);
			cix_refscan_feed(s, buf + i, j - i);
			cix_refscan_feed(s, buf + j, sizeof(buf) - j);
			if (!cix_refscan_found(s, 0) || !cix_refscan_found(s, 1)) {
				diag("split at %zu and %zu", i, j);
				good = 0;
			}
			cix_refscan_free(s);
		}
	ok(good, "found across feed boundaries at every pair of split offsets");

	struct cix_refscan *s = new_or_die(parts, 2);
	for (size_t i = 0; i < sizeof(buf); i++)
		cix_refscan_feed(s, buf + i, 1);
	ok(cix_refscan_found(s, 0) && cix_refscan_found(s, 1), "one byte at a time");
	cix_refscan_free(s);
}

/*
 * Random streams against the obvious implementation: a mix of binary,
 * base-32 runs and store-path-like text, candidates planted at random
 * offsets (and near misses of others), fed in random pieces.
 */
static void fill_random(unsigned char *buf, size_t len)
{
	size_t i = 0;
	while (i < len) {
		size_t run = 1 + rnd() % 200, kind = rnd() % 3;
		for (; run && i < len; run--, i++)
			buf[i] = kind == 0 ? (unsigned char)rnd()
			       : kind == 1 ? (unsigned char)cix_nixbase32_chars[rnd() % 32]
			       : (unsigned char)"/nix/store-abcdefgh0123."[rnd() % 24];
	}
}

static int naive_found(const unsigned char *buf, size_t len, const char *part)
{
	return memmem(buf, len, part, HLEN) != NULL;
}

static void test_random(void)
{
	enum { NCAND = 40, MAXLEN = 5000 };
	static char parts_buf[NCAND][HLEN + 1];
	const char *parts[NCAND];
	unsigned char *buf = xmalloc(MAXLEN);
	int bad = 0, onebyte_bad = 0, seeds = 300;
	size_t total_found = 0;

	for (int i = 0; i < NCAND; i++)
		parts[i] = parts_buf[i];
	for (int sd = 0; sd < seeds; sd++) {
		struct cix_refscan *s, *s1;
		size_t len;

		seed(1000 + (uint64_t)sd);
		len = rnd() % MAXLEN;
		for (int i = 0; i < NCAND; i++)
			random_part(parts_buf[i]);
		if (sd % 5 == 0) /* some equal candidates */
			memcpy(parts_buf[1], parts_buf[0], HLEN);
		fill_random(buf, len);
		for (int k = 0, np = (int)(rnd() % 12); k < np && len >= HLEN; k++) {
			size_t at = rnd() % (len - HLEN + 1);
			const char *p = parts[rnd() % NCAND];
			/* a whole one, or all but its first or last byte */
			switch (rnd() % 3) {
			case 0: memcpy(buf + at, p, HLEN); break;
			case 1: memcpy(buf + at, p + 1, HLEN - 1); break;
			default: memcpy(buf + at, p, HLEN - 1); break;
			}
		}

		s = new_or_die(parts, NCAND);
		s1 = new_or_die(parts, NCAND);
		for (size_t i = 0; i < len;) {
			size_t piece = rnd() % 4 ? rnd() % 64 : rnd() % 2000;
			if (piece > len - i)
				piece = len - i;
			cix_refscan_feed(s, buf + i, piece);
			i += piece;
		}
		for (size_t i = 0; i < len; i++)
			cix_refscan_feed(s1, buf + i, 1);
		for (int i = 0; i < NCAND; i++) {
			int want = naive_found(buf, len, parts[i]);
			total_found += (size_t)want;
			if (cix_refscan_found(s, i) != want) {
				if (bad++ < 5)
					diag("seed %d candidate %d: got %d, want %d",
					     sd, i, cix_refscan_found(s, i), want);
			}
			if (cix_refscan_found(s1, i) != want)
				onebyte_bad++;
		}
		cix_refscan_free(s);
		cix_refscan_free(s1);
	}
	is_int(bad, 0, "random pieces agree with memmem over %d streams (%zu hits)",
	       seeds, total_found);
	is_int(onebyte_bad, 0, "one byte at a time agrees with memmem too");
	ok(total_found > (size_t)seeds, "the streams held enough occurrences");
	free(buf);
}

/* Many candidates, few of them present. */
static void test_many(void)
{
	enum { N = 20000 };
	char (*pb)[HLEN + 1] = xmalloc(N * sizeof(*pb));
	const char **parts = xmalloc(N * sizeof(*parts));
	size_t len = 1 << 18, bad = 0;
	unsigned char *buf = xmalloc(len);
	struct cix_refscan *s;

	seed(6);
	for (size_t i = 0; i < N; i++) {
		random_part(pb[i]);
		parts[i] = pb[i];
	}
	fill_random(buf, len);
	for (size_t i = 0; i < N; i += 97)
		memcpy(buf + rnd() % (len - HLEN), parts[i], HLEN);
	s = new_or_die(parts, N);
	cix_refscan_feed(s, buf, len);
	for (size_t i = 0; i < N; i++)
		bad += cix_refscan_found(s, i) != naive_found(buf, len, parts[i]);
	is_int(bad, 0, "%d candidates over 256 KiB agree with memmem", N);
	ok(cix_refscan_nfound(s) > N / 100, "and found %zu", cix_refscan_nfound(s));
	cix_refscan_free(s);
	free(buf);
	free(parts);
	free(pb);
}

/* Once everything is found, feeding stops looking but stays correct. */
static void test_all_found(void)
{
	char a[HLEN + 1];
	const char *parts[] = { a };
	struct cix_refscan *s;

	seed(7);
	random_part(a);
	s = new_or_die(parts, 1);
	cix_refscan_feed(s, a, 10);
	cix_refscan_feed(s, a + 10, HLEN - 10);
	ok(cix_refscan_found(s, 0) && cix_refscan_nfound(s) == 1, "found");
	cix_refscan_feed(s, "xyz", 3);
	ok(cix_refscan_found(s, 0), "still found");
	cix_refscan_free(s);
}

static char tmp[1024];

static void write_file(const char *path, const void *data, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || cix_write_full(fd, data, len) < 0 || close(fd) < 0) {
		perror(path);
		abort();
	}
}

static void test_path(void)
{
	char h[6][HLEN + 1], p[1200], q[1200];
	const char *parts[6];
	struct cix_err err = { 0 };
	struct cix_refscan *s;
	struct strbuf sb = STRBUF_INIT;
	size_t big = 3 << 20;
	unsigned char *data = xmalloc(big);

	seed(8);
	for (int i = 0; i < 6; i++) {
		random_part(h[i]);
		parts[i] = h[i];
	}
	/* h0 in contents, h1 as a symlink target, h2 in a name, h3 absent,
	 * h4 near the end of a large file, h5 straddling a likely buffer edge */
	snprintf(p, sizeof(p), "%s/out", tmp);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/out/bin", tmp);
	mkdir(p, 0755);
	strbuf_addf(&sb, "#!/bin/sh\nexec /cix/store/%s-bash/bin/bash \"$@\"\n", h[0]);
	snprintf(p, sizeof(p), "%s/out/bin/run", tmp);
	write_file(p, sb.buf, sb.len);
	snprintf(p, sizeof(p), "%s/out/lib", tmp);
	snprintf(q, sizeof(q), "/cix/store/%s-glibc/lib", h[1]);
	if (symlink(q, p))
		abort();
	snprintf(p, sizeof(p), "%s/out/%s-data", tmp, h[2]);
	write_file(p, "", 0);
	fill_random(data, big);
	for (size_t i = 0; i < big; i++)
		if (data[i] == (unsigned char)h[3][0])
			data[i] = '!';
	memcpy(data + big - HLEN - 3, h[4], HLEN);
	for (size_t k = 1; k <= 2; k++)
		memcpy(data + (k << 20) - 40, h[5], HLEN);
	snprintf(p, sizeof(p), "%s/out/big", tmp);
	write_file(p, data, big);

	s = new_or_die(parts, 6);
	snprintf(p, sizeof(p), "%s/out", tmp);
	is_int(cix_refscan_path(s, p, &err), 0, "scan a tree");
	ok(cix_refscan_found(s, 0), "hash part in file contents");
	ok(cix_refscan_found(s, 1), "hash part in a symlink target");
	ok(cix_refscan_found(s, 2), "hash part in an entry name");
	ok(!cix_refscan_found(s, 3), "absent hash part not found");
	ok(cix_refscan_found(s, 4), "hash part at the end of a large file");
	ok(cix_refscan_found(s, 5), "hash part in a large file");
	cix_refscan_free(s);

	s = new_or_die(parts, 6);
	snprintf(p, sizeof(p), "%s/nonexistent", tmp);
	ok(cix_refscan_path(s, p, &err) < 0 && err.msg[0], "missing path: %s", err.msg);
	cix_refscan_free(s);

	strbuf_release(&sb);
	free(data);
}

int main(void)
{
	if (tap_mkdtemp(tmp, sizeof(tmp), "refscan") < 0)
		return 1;

	test_invalid();
	test_positions();
	test_overlap_and_duplicates();
	test_near_misses();
	test_splits();
	test_random();
	test_many();
	test_all_found();
	test_path();

	/* Again on the SSE2 path where the vector path is AVX2. */
	setenv("CIX_REFSCAN_NO_AVX2", "1", 1);
	diag("without AVX2");
	test_positions();
	test_splits();
	test_random();
	test_many();

	cix_remove_tree_at(AT_FDCWD, tmp, NULL);
	return done_testing();
}
