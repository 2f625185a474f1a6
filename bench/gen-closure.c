/* gen-closure.c - write an export stream of a synthetic closure of N paths */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "encoding.h"
#include "export.h"
#include "store-path.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 *   gen-closure [-p FILE] STORE_DIR N [SEED]
 *
 * Writes to standard output an export stream (as nix-store --export writes
 * it) of N store paths STORE_DIR/<hash>-node-<i>, dependencies first, for
 * bench/store-query and t/t1030-gen-closure.sh. Each path is a small
 * regular file naming its references. They form a DAG: path i mostly
 * refers to path i - 1 (a deep chain, so that the closure of the last path
 * covers nearly every path and the referrers closure of the first one
 * too), plus 0 to 4 random earlier paths; about one path in 200 is a hub
 * referring to up to 200 earlier paths, one in 100 starts a new chain
 * (no references), one in 50 also refers to itself. The hash part of
 * path i is the first 20 bytes of sha256("gen-closure:SEED:i"), so the
 * stream depends only on STORE_DIR, N and SEED (default 1).
 *
 * The "top" path (the last one) and the "bottom" path (the first) are
 * written, one a line, to FILE with -p, else to standard error.
 */

#define MAX_PATHS 10000000UL

static uint64_t rng_state;

/* splitmix64: small, fast and the same everywhere. */
static uint64_t rnd(void)
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static int out_sink(void *opaque, const void *data, size_t len)
{
	FILE *f = opaque;
	return fwrite(data, 1, len, f) == len ? 0 : -EIO;
}

/* A NAR string: length, bytes, zero padding to 8. */
static void nar_str(struct strbuf *sb, const char *s, size_t n)
{
	unsigned char len[8];
	cix_put_u64le(len, n);
	strbuf_add(sb, len, 8);
	strbuf_add(sb, s, n);
	while (sb->len % 8)
		strbuf_addch(sb, 0);
}

static void nar_token(struct strbuf *sb, const char *s)
{
	nar_str(sb, s, strlen(s));
}

/* The NAR of a regular, non-executable file holding contents. */
static void nar_regular(struct strbuf *nar, const struct strbuf *contents)
{
	strbuf_reset(nar);
	nar_token(nar, "nix-archive-1");
	nar_token(nar, "(");
	nar_token(nar, "type");
	nar_token(nar, "regular");
	nar_token(nar, "contents");
	nar_str(nar, contents->buf, contents->len);
	nar_token(nar, ")");
}

static int parse_ulong(const char *s, unsigned long max, unsigned long *out)
{
	char *end;
	errno = 0;
	*out = strtoul(s, &end, 10);
	return errno || *end || !*s || *s == '-' || *out > max ? -1 : 0;
}

static void usage(int code)
{
	fprintf(code ? stderr : stdout, "usage: gen-closure [-p FILE] STORE_DIR N [SEED]\n");
	exit(code);
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "print-ends", required_argument, NULL, 'p' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *ends_file = NULL, *dir;
	unsigned long n, seed = 1;
	struct cix_err err = { 0 };
	struct strbuf contents = STRBUF_INIT, nar = STRBUF_INIT;
	char **paths;
	const char **refs;
	size_t max_refs = 256;
	int opt;

	while ((opt = getopt_long(argc, argv, "p:h", longopts, NULL)) != -1) {
		if (opt == 'p')
			ends_file = optarg;
		else
			usage(opt == 'h' ? 0 : 2);
	}
	argc -= optind;
	argv += optind;
	if (argc < 2 || argc > 3)
		usage(2);
	dir = argv[0];
	if (cix_store_dir_check(dir, &err) < 0) {
		fprintf(stderr, "gen-closure: %s\n", err.msg);
		return 1;
	}
	if (parse_ulong(argv[1], MAX_PATHS, &n) < 0 || !n ||
	    (argc == 3 && parse_ulong(argv[2], ULONG_MAX, &seed) < 0))
		usage(2);
	rng_state = seed;

	paths = xcalloc(n, sizeof(*paths));
	refs = xcalloc(max_refs, sizeof(*refs));
	for (size_t i = 0; i < n; i++) {
		struct strbuf sb = STRBUF_INIT;
		struct cix_hash h;
		strbuf_addf(&sb, "gen-closure:%lu:%zu", seed, i);
		cix_hash_buf(CIX_HASH_SHA256, sb.buf, sb.len, &h);
		strbuf_reset(&sb);
		strbuf_addf(&sb, "%s/", dir);
		cix_nixbase32_encode(&sb, h.bytes, CIX_STORE_HASH_LEN);
		strbuf_addf(&sb, "-node-%zu", i);
		paths[i] = strbuf_detach(&sb, NULL);
	}

	for (size_t i = 0; i < n; i++) {
		size_t nr = 0;
		uint64_t kind = rnd() % 1000;
		if (i && kind >= 10) {
			size_t extra = rnd() % 5;
			if (kind < 15)   /* a hub */
				extra = 20 + rnd() % 180;
			refs[nr++] = paths[i - 1];
			for (size_t k = 0; k < extra; k++)
				refs[nr++] = paths[rnd() % i];
		}
		if (rnd() % 50 == 0)
			refs[nr++] = paths[i];
		/* Duplicates are fine: the writer drops them. */
		strbuf_reset(&contents);
		strbuf_addf(&contents, "node %zu\n", i);
		for (size_t k = 0; k < nr; k++)
			strbuf_addf(&contents, "%s\n", refs[k]);
		nar_regular(&nar, &contents);

		struct cix_export_meta m = { paths[i], refs, nr, "" };
		if (cix_export_begin(out_sink, stdout, &err) < 0 ||
		    out_sink(stdout, nar.buf, nar.len) < 0 ||
		    cix_export_meta(out_sink, stdout, &m, &err) < 0) {
			fprintf(stderr, "gen-closure: %s\n",
				err.msg[0] ? err.msg : "cannot write to standard output");
			return 1;
		}
	}
	if (cix_export_end(out_sink, stdout, &err) < 0 || fflush(stdout) == EOF) {
		fprintf(stderr, "gen-closure: cannot write to standard output\n");
		return 1;
	}

	FILE *ends = ends_file ? fopen(ends_file, "w") : stderr;
	if (!ends) {
		fprintf(stderr, "gen-closure: cannot open '%s': %s\n", ends_file, strerror(errno));
		return 1;
	}
	fprintf(ends, "%s\n%s\n", paths[n - 1], paths[0]);
	if (ends_file ? fclose(ends) == EOF : ferror(ends)) {
		fprintf(stderr, "gen-closure: cannot write '%s'\n", ends_file);
		return 1;
	}
	for (size_t i = 0; i < n; i++)
		free(paths[i]);
	free(paths);
	free(refs);
	strbuf_release(&contents);
	strbuf_release(&nar);
	return 0;
}
