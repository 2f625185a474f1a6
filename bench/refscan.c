/* refscan.c - reference scanner throughput, and a scanning tool for tests */
/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Usage: refscan [MIB]            benchmark (default 1024 MiB of data)
 *        refscan --scan PATH HASH...
 *
 * The benchmark builds MIB MiB of data in memory, 70% random binary and
 * 30% text-like (store paths, base-32 runs, words), prints how fast one
 * thread merely reads it (the ceiling), and scans it with
 * 10, 1,000 and 100,000 candidate hash parts, some of which occur in the
 * text; then 256 MiB made only of base-32 characters (the worst case: every
 * aligned block needs a lookup); then, on 16 MiB, the obvious approach
 * (one memmem per candidate) for comparison. Each figure is the best of
 * three runs, in GB/s (10^9 bytes per second).
 *
 * --scan prints each HASH that occurs in the NAR serialisation of PATH,
 * one per line in the order given: what the daemon will record as
 * references (t/t0300-refscan.sh compares it with grep).
 */
#include "encoding.h"
#include "refscan.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define HLEN CIX_REFSCAN_HASH_LEN
#define RUNS 3

static uint64_t rng = 88172645463325252ull;

static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void random_part(char *out)
{
	for (int i = 0; i < HLEN; i++)
		out[i] = cix_nixbase32_chars[rnd() % 32];
	out[HLEN] = '\0';
}

/* A pool of hash parts: the text draws store paths from it. */
#define POOL 4096
static char pool[POOL][HLEN + 1];

static size_t put(unsigned char *buf, size_t at, size_t len, const char *s)
{
	size_t n = strlen(s);
	if (n > len - at)
		n = len - at;
	memcpy(buf + at, s, n);
	return at + n;
}

static void fill_text(unsigned char *buf, size_t at, size_t end)
{
	static const char *words[] = {
		"the ", "lib", "/bin/", "share", "-1.2.3", "include ", "gcc-12",
		"configure ", "\n", "static ", "void ", "int ", "main", "(", ") ",
		"0x1f3a", "glibc-2.35", "usr", "python3.10", "=", "\t", "libz.so.1 ",
	};
	while (at < end) {
		unsigned k = (unsigned)(rnd() % 16);
		if (k < 3) {
			at = put(buf, at, end, "/nix/store/");
			at = put(buf, at, end, pool[rnd() % POOL]);
			at = put(buf, at, end, "-pkg-2.0/lib:");
		} else if (k < 5) {
			/* a run of base-32 characters, 1 to 100 long */
			for (size_t n = 1 + rnd() % 100; n && at < end; n--)
				buf[at++] = (unsigned char)cix_nixbase32_chars[rnd() % 32];
			if (at < end)
				buf[at++] = ' ';
		} else {
			at = put(buf, at, end, words[rnd() % ARRAY_SIZE(words)]);
		}
	}
}

/* 70% binary, 30% text, in regions of 4 to 64 KiB. */
static void fill_mixed(unsigned char *buf, size_t len)
{
	size_t at = 0;
	while (at < len) {
		size_t n = 4096 + rnd() % 61440;
		if (n > len - at)
			n = len - at;
		if (rnd() % 10 < 3) {
			fill_text(buf, at, at + n);
		} else {
			for (size_t i = 0; i + 8 <= n; i += 8) {
				uint64_t v = rnd();
				memcpy(buf + at + i, &v, 8);
			}
			for (size_t i = n & ~(size_t)7; i < n; i++)
				buf[at + i] = (unsigned char)rnd();
		}
		at += n;
	}
}

/* n candidates: every fourth from the pool (present), the rest random. */
static char **candidates(size_t n)
{
	char **c = xmalloc(n * sizeof(*c));
	for (size_t i = 0; i < n; i++) {
		c[i] = xmalloc(HLEN + 1);
		if (i % 4 == 0)
			memcpy(c[i], pool[(i / 4) % POOL], HLEN + 1);
		else
			random_part(c[i]);
	}
	return c;
}

static void free_candidates(char **c, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(c[i]);
	free(c);
}

static double bench_scan(const unsigned char *buf, size_t len, size_t n,
			 size_t *found)
{
	char **c = candidates(n);
	double best = 0, t_new;
	struct cix_err err;

	t_new = now();
	struct cix_refscan *s0 = cix_refscan_new((const char *const *)c, n, &err);
	t_new = now() - t_new;
	cix_refscan_free(s0);
	for (int run = 0; run < RUNS; run++) {
		struct cix_refscan *s = cix_refscan_new((const char *const *)c, n, &err);
		double t0 = now(), dt;
		/* In 1 MiB pieces, as a NAR sink would receive them. */
		for (size_t at = 0; at < len; at += 1 << 20)
			cix_refscan_feed(s, buf + at, len - at < (1 << 20) ? len - at : 1 << 20);
		dt = now() - t0;
		if (dt > 0 && (double)len / dt > best)
			best = (double)len / dt;
		*found = cix_refscan_nfound(s);
		cix_refscan_free(s);
	}
	printf("  %6zu candidates: %6.2f GB/s  (%zu found, set-up %.1f ms)\n",
	       n, best / 1e9, *found, t_new * 1e3);
	free_candidates(c, n);
	return best;
}

static double bench_naive(const unsigned char *buf, size_t len, size_t n)
{
	char **c = candidates(n);
	size_t found = 0;
	double t0 = now(), dt;
	for (size_t i = 0; i < n; i++)
		found += memmem(buf, len, c[i], HLEN) != NULL;
	dt = now() - t0;
	printf("  %6zu candidates: %6.3f GB/s  (%zu found, one memmem per candidate)\n",
	       n, (double)len / dt / 1e9, found);
	free_candidates(c, n);
	return (double)len / dt;
}

/* The ceiling: reading the buffer 8 bytes at a time, doing nothing else. */
static void memory_speed(const unsigned char *buf, size_t len)
{
	double best = 0;
	uint64_t x = 0;
	for (int run = 0; run < RUNS; run++) {
		double t0 = now(), dt;
		for (size_t i = 0; i + 8 <= len; i += 8) {
			uint64_t v;
			memcpy(&v, buf + i, 8);
			x ^= v;
		}
		dt = now() - t0;
		if (dt > 0 && (double)len / dt > best)
			best = (double)len / dt;
	}
	printf("  memory read speed: %.2f GB/s (xor %02x)\n", best / 1e9, (unsigned)(x & 0xff));
}

static int scan_tool(int argc, char **argv)
{
	struct cix_err err = { 0 };
	struct cix_refscan *s;
	size_t n = (size_t)argc - 3;

	s = cix_refscan_new((const char *const *)argv + 3, n, &err);
	if (!s) {
		fprintf(stderr, "refscan: %s\n", err.msg);
		return 1;
	}
	if (cix_refscan_path(s, argv[2], &err) < 0) {
		fprintf(stderr, "refscan: %s\n", err.msg);
		cix_refscan_free(s);
		return 1;
	}
	for (size_t i = 0; i < n; i++)
		if (cix_refscan_found(s, i))
			printf("%s\n", argv[3 + i]);
	cix_refscan_free(s);
	return fflush(stdout) ? 1 : 0;
}

int main(int argc, char **argv)
{
	static const size_t counts[] = { 10, 1000, 100000 };
	unsigned long mib = 1024;
	size_t len, found;
	unsigned char *buf;

	if (argc >= 3 && !strcmp(argv[1], "--scan"))
		return scan_tool(argc, argv);
	if (argc > 2 || (argc == 2 && ((mib = strtoul(argv[1], NULL, 10)) < 16 ||
				       mib > 64 * 1024))) {
		fprintf(stderr, "usage: refscan [MIB]   (16 or more)\n"
				"       refscan --scan PATH HASH...\n");
		return 2;
	}
	for (size_t i = 0; i < POOL; i++)
		random_part(pool[i]);

	len = (size_t)mib << 20;
	buf = xmalloc(len);
	fill_mixed(buf, len);
	printf("refscan: %lu MiB, 70%% binary / 30%% text, fed in 1 MiB pieces\n", mib);
	memory_speed(buf, len);
	for (size_t i = 0; i < ARRAY_SIZE(counts); i++)
		bench_scan(buf, len, counts[i], &found);

	size_t blen = (size_t)256 << 20;
	for (size_t i = 0; i < blen; i++)
		buf[i] = (unsigned char)cix_nixbase32_chars[rnd() % 32];
	printf("refscan: 256 MiB of base-32 characters only (worst case)\n");
	for (size_t i = 0; i < ARRAY_SIZE(counts); i++)
		bench_scan(buf, blen, counts[i], &found);

	size_t nlen = (size_t)16 << 20;
	fill_mixed(buf, nlen);
	printf("naive: 16 MiB mixed\n");
	bench_naive(buf, nlen, 10);
	bench_naive(buf, nlen, 1000);
	printf("refscan: the same 16 MiB\n");
	bench_scan(buf, nlen, 10, &found);
	bench_scan(buf, nlen, 1000, &found);
	free(buf);
	return 0;
}
