/* sha256-limit.c - single-stream SHA-256 throughput of libcix's digest */
/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The speed at which one thread can hash bytes already in memory is the
 * ceiling for `cix hash -r` (a NAR hash is one SHA-256 stream). This feeds
 * 1 MiB buffers through cix_hash_init/update/final, the same path the NAR
 * hasher uses, and prints the best of a few runs.
 *
 * Usage: sha256-limit [MIB]   (MiB hashed per run, default 2048)
 */
#include "hash.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define BUF (1024 * 1024)
#define RUNS 3

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	unsigned long mib = 2048;
	double best = 0;
	unsigned char *buf;
	struct cix_hash h;

	if (argc > 2 || (argc == 2 && ((mib = strtoul(argv[1], NULL, 10)) == 0 ||
				       mib > 1024 * 1024))) {
		fprintf(stderr, "usage: sha256-limit [MIB]\n");
		return 2;
	}
	buf = xmalloc(BUF);
	for (size_t i = 0; i < BUF; i++)
		buf[i] = (unsigned char)(i * 2654435761u >> 24);

	/* Warm up: page in the buffer, let the CPU reach its clock. */
	cix_hash_buf(CIX_HASH_SHA256, buf, BUF, &h);
	for (int run = 0; run < RUNS; run++) {
		struct cix_hash_ctx ctx;
		double t0 = now(), dt;
		cix_hash_init(&ctx, CIX_HASH_SHA256);
		for (unsigned long i = 0; i < mib; i++)
			cix_hash_update(&ctx, buf, BUF);
		cix_hash_final(&ctx, &h);
		dt = now() - t0;
		if (dt > 0 && (double)mib * BUF / dt > best)
			best = (double)mib * BUF / dt;
	}
	/* Print a byte of the digest so that nothing is optimised away. */
	printf("sha256 limit: %.2f GB/s (%lu MiB, best of %d, digest %02x...)\n",
	       best / 1e9, mib, RUNS, h.bytes[0]);
	free(buf);
	return 0;
}
