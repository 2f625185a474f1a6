/* fetch-tool.c - test driver of lib/fetch.c (downloads and builtin:fetchurl) */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "fetch.h"
#include "encoding.h"
#include "nar.h"
#include "store-path.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * Until the build code calls it, this drives lib/fetch.c for
 * t/t2100-fetch.sh:
 *
 *   fetch-tool [OPTIONS] URL DEST           cix_fetch_url
 *   fetch-tool [OPTIONS] --builtin OUT K=V... cix_builtin_fetchurl
 *   fetch-tool [OPTIONS] --expand URL       print the URLs to try
 *   fetch-tool --parse-hash ALGO HASH       print ALGO:BASE16
 *
 * OPTIONS: --hash=[ALGO:]HASH (expected), -r (recursive), -x (executable),
 * -m MIRROR-FILE, -c CAS-DIR (repeatable), --ca-file=F, --no-file,
 * --timeout=S, --max-size=N, --progress (on standard error), --keep-mismatch,
 * --print-path=NAME (after a download: the fixed-output store path of
 * what was written, in $CIX_STORE_DIR, for its sha256, flat or with -r
 * recursive).
 * Errors: one line on stderr, exit 1; usage errors exit 2.
 */

#define MAX_LIST 16

static int fail(const struct cix_err *err)
{
	fprintf(stderr, "fetch-tool: %s\n", err->msg);
	return 1;
}

static int print_path(const char *path, const char *name, int recursive)
{
	struct strbuf sb = STRBUF_INIT;
	struct cix_hash h;
	struct cix_err err;
	int r = recursive ? cix_nar_hash_path(path, CIX_HASH_SHA256, &h, NULL, &err)
			  : cix_hash_file(CIX_HASH_SHA256, path, &h, &err);
	if (r == 0)
		r = cix_store_path_make_fixed(&sb, cix_store_dir(), name, recursive, &h, &err);
	if (r < 0)
		return fail(&err);
	printf("%s\n", sb.buf);
	strbuf_release(&sb);
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "hash", required_argument, NULL, 'H' },
		{ "ca-file", required_argument, NULL, 'C' },
		{ "no-file", no_argument, NULL, 'F' },
		{ "timeout", required_argument, NULL, 'T' },
		{ "max-size", required_argument, NULL, 'S' },
		{ "progress", no_argument, NULL, 'P' },
		{ "builtin", no_argument, NULL, 'B' },
		{ "expand", no_argument, NULL, 'E' },
		{ "parse-hash", no_argument, NULL, 'p' },
		{ "print-path", required_argument, NULL, 'N' },
		{ "keep-mismatch", no_argument, NULL, 'K' },
		{ NULL, 0, NULL, 0 },
	};
	const char *mirrors[MAX_LIST + 1] = { 0 }, *cas[MAX_LIST + 1] = { 0 };
	const char *hash = NULL, *print_name = NULL;
	size_t nm = 0, nc = 0;
	struct cix_fetch_opts opts;
	struct cix_hash expected;
	struct cix_err err;
	int recursive = 0, executable = 0, mode = 0, c, r;

	cix_fetch_opts_init(&opts);
	while ((c = getopt_long(argc, argv, "rxm:c:", longopts, NULL)) != -1) {
		switch (c) {
		case 'H': hash = optarg; break;
		case 'r': recursive = 1; break;
		case 'x': executable = 1; break;
		case 'm':
			if (nm == MAX_LIST)
				return 2;
			mirrors[nm++] = optarg;
			break;
		case 'c':
			if (nc == MAX_LIST)
				return 2;
			cas[nc++] = optarg;
			break;
		case 'C': opts.ca_file = optarg; break;
		case 'F': opts.allow_file = 0; break;
		case 'T': opts.timeout_s = atol(optarg); break;
		case 'S': opts.max_size = strtoull(optarg, NULL, 10); break;
		case 'P': opts.progress_fd = 2; break;
		case 'B': case 'E': case 'p': mode = c; break;
		case 'N': print_name = optarg; break;
		case 'K': opts.keep_mismatch = 1; break;
		default: return 2;
		}
	}
	opts.mirror_files = mirrors;
	opts.cas_dirs = cas;
	argc -= optind;
	argv += optind;

	if (mode == 'p') {
		struct strbuf sb = STRBUF_INIT;
		if (argc != 2)
			return 2;
		if (cix_fetch_parse_hash(argv[0], argv[1], &expected, &err) < 0)
			return fail(&err);
		cix_base16_encode(&sb, expected.bytes, expected.len);
		printf("%s:%s\n", cix_hash_algo_name(expected.algo), sb.buf);
		strbuf_release(&sb);
		return 0;
	}
	if (mode == 'E') {
		char **urls;
		size_t n;
		if (argc != 1)
			return 2;
		if (cix_fetch_expand_url(argv[0], &opts, &urls, &n, &err) < 0)
			return fail(&err);
		for (size_t i = 0; i < n; i++)
			printf("%s\n", urls[i]);
		cix_fetch_free_urls(urls);
		return 0;
	}
	if (mode == 'B') {
		const char **keys, **values;
		if (argc < 1)
			return 2;
		keys = xcalloc((size_t)argc, sizeof(*keys));
		values = xcalloc((size_t)argc, sizeof(*values));
		for (int i = 1; i < argc; i++) {
			char *eq = strchr(argv[i], '=');
			if (!eq)
				return 2;
			*eq = '\0';
			keys[i - 1] = argv[i];
			values[i - 1] = eq + 1;
		}
		r = cix_builtin_fetchurl(keys, values, (size_t)argc - 1, argv[0], &opts, &err);
		free(keys);
		free(values);
		if (r < 0) {
			fail(&err);
			/* A kept mismatch: say where its content belongs. */
			if (r == -CIX_EMISMATCH && opts.keep_mismatch && print_name)
				print_path(argv[0], print_name, recursive);
			return 1;
		}
		return print_name ? print_path(argv[0], print_name, recursive) : 0;
	}
	if (argc != 2)
		return 2;
	if (hash && cix_fetch_parse_hash("", hash, &expected, &err) < 0)
		return fail(&err);
	r = cix_fetch_url(argv[0], argv[1], hash ? &expected : NULL, recursive, executable,
			  &opts, &err);
	if (r < 0)
		return fail(&err);
	return print_name ? print_path(argv[1], print_name, recursive) : 0;
}
