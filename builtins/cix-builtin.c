/* cix-builtin.c - cix's builtins that fetch, run as the builder of a sandbox */
/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Derivations whose builder is "builtin:NAME" are not run by the daemon
 * itself, with its rights, on behalf of whichever client asked: the
 * daemon runs this program in the build's sandbox instead, as the build
 * user, with the derivation's environment, exactly as it would run any
 * builder. What it can read is what the sandbox shows a build user.
 *
 *   cix-builtin fetchurl [--no-file-urls] [--mirrors=FILE]... [--cas=DIR]...
 *
 * --mirrors names a mirror list and --cas a content-addressed mirror (a
 * directory or a URL prefix), both as the sandbox shows them; with
 * --no-file-urls (an untrusted client) file:// URLs are refused.
 */
#include "fetch.h"
#include "strvec.h"
#include "util.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

extern char **environ;

static const char *progname = "cix-builtin";

/* The environment as the keys and values that cix_builtin_fetchurl takes. */
static void split_environ(struct strvec *keys, struct strvec *values)
{
	for (char **e = environ; *e; e++) {
		const char *eq = strchr(*e, '=');
		if (!eq)
			continue;
		char *key = xstrndup(*e, (size_t)(eq - *e));
		strvec_push(keys, key);
		strvec_push(values, eq + 1);
		free(key);
	}
}

static int builtin_fetchurl(int argc, char **argv)
{
	enum { OPT_NO_FILE = 0x100, OPT_MIRRORS, OPT_CAS };
	static const struct option opts[] = {
		{ "no-file-urls", no_argument, NULL, OPT_NO_FILE },
		{ "mirrors", required_argument, NULL, OPT_MIRRORS },
		{ "cas", required_argument, NULL, OPT_CAS },
		{ NULL, 0, NULL, 0 },
	};
	struct strvec mirrors = STRVEC_INIT, cas = STRVEC_INIT, keys = STRVEC_INIT,
		      values = STRVEC_INIT;
	struct cix_fetch_opts fo;
	struct cix_err err = { 0 };
	const char *out = getenv("out");
	int c, r;

	cix_fetch_opts_init(&fo);
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case OPT_NO_FILE: fo.allow_file = 0; break;
		case OPT_MIRRORS: strvec_push(&mirrors, optarg); break;
		case OPT_CAS: strvec_push(&cas, optarg); break;
		default:
			fprintf(stderr, "%s: fetchurl: bad arguments\n", progname);
			return 2;
		}
	}
	if (optind < argc || !out) {
		fprintf(stderr, "%s: fetchurl: %s\n", progname,
			out ? "unexpected argument" : "attribute 'out' missing");
		return 2;
	}
	if (mirrors.nr)
		fo.mirror_files = (const char *const *)mirrors.v;
	if (cas.nr)
		fo.cas_dirs = (const char *const *)cas.v;
	fo.progress_fd = 2;
	split_environ(&keys, &values);
	r = cix_builtin_fetchurl((const char *const *)keys.v, (const char *const *)values.v,
				 keys.nr, out, &fo, &err);
	if (r < 0)
		fprintf(stderr, "%s\n", err.msg);
	strvec_clear(&mirrors);
	strvec_clear(&cas);
	strvec_clear(&keys);
	strvec_clear(&values);
	return r < 0 ? 1 : 0;
}

static const struct builtin {
	const char *name;
	int (*fn)(int argc, char **argv);
} builtins[] = {
	{ "fetchurl", builtin_fetchurl },
};

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: %s BUILTIN [ARGUMENT]...\n", progname);
		return 2;
	}
	for (size_t i = 0; i < ARRAY_SIZE(builtins); i++)
		if (!strcmp(argv[1], builtins[i].name))
			return builtins[i].fn(argc - 1, argv + 1);
	fprintf(stderr, "%s: unknown builtin '%s'\n", progname, argv[1]);
	return 2;
}
