/* cmd-gc.c - cix gc: collect garbage, list what is dead and alive, query references */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "cix.h"
#include "gc.h"
#include "store-ops.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include <unistd.h>

enum action {
	COLLECT, FREE_SPACE, DELETE, LIST_DEAD, LIST_LIVE, REFERENCES, REQUISITES, REFERRERS,
	LIST_ROOTS, OPTIMIZE,
};

static void usage(FILE *f)
{
	fprintf(f, "Usage: cix gc [OPTION]... [PATH]...\n"
		   "Invoke the garbage collector: delete the store paths that no root keeps alive.\n\n"
		   "  -C, --collect-garbage[=MIN]  collect at least MIN bytes of garbage (default: all);\n"
		   "                               MIN may have a unit: KiB, MiB, GiB, TiB, kB, MB, GB...\n"
		   "  -F, --free-space=FREE        collect garbage until FREE bytes are free in the store\n"
		   "  -d, --delete PATH...         delete PATH..., refused if any of them is alive\n"
		   "      --list-dead              list the store paths that would be deleted\n"
		   "      --list-live              list the store paths that are kept alive\n"
		   "      --list-roots             list the garbage collector's roots (your own, when\n"
		   "                               not privileged)\n"
		   "      --references PATH...     list the references of PATH...\n"
		   "  -R, --requisites PATH...     list the closure of PATH...\n"
		   "      --referrers PATH...      list the valid paths that refer to PATH...\n"
		   "      --optimize               hard-link identical files of the store (--optimise)\n"
		   "  -h, --help                   display this help and exit\n"
		   "  -V, --version                display version information and exit\n\n"
		   "Roots are the links below $CIX_STATE_DIR/gcroots (profiles included, through\n"
		   "gcroots/profiles), indirect roots made by 'cix build -r', and the store paths\n"
		   "that running cix processes and daemon clients use, and every running\n"
		   "process's program, files, libraries and environment (/proc).\n");
}

static int print_path(const char *path, void *opaque)
{
	(void)opaque;
	return puts(path) < 0 ? -1 : 0;
}

static void report_freed(uint64_t freed, size_t n)
{
	fprintf(stderr, "freed %.2f MiB (%zu store paths deleted)\n",
		(double)freed / (1024 * 1024), n);
}

static int collect(struct cix_store *s, enum action a, uint64_t amount, char **args, int nargs)
{
	struct cix_err err = { 0 };
	struct cix_gc_result res = { 0 };
	struct cix_gc_opts o = { .keep_derivations = 1, .each = print_path };
	unsigned action;
	switch (a) {
	case LIST_DEAD: action = CIX_GC_LIST_DEAD; break;
	case LIST_LIVE: action = CIX_GC_LIST_LIVE; break;
	case DELETE: action = CIX_GC_DELETE_SPECIFIC; break;
	default: action = CIX_GC_DELETE_DEAD; break;
	}
	if (a == FREE_SPACE) {
		struct statvfs v;
		if (statvfs(s->store_dir, &v) < 0)
			return error("cannot tell the free space of '%s'", s->store_dir);
		uint64_t avail = (uint64_t)v.f_bavail * v.f_frsize;
		if (avail >= amount) {
			fprintf(stderr, "%.2f MiB are free already: nothing to do\n",
				(double)avail / (1024 * 1024));
			return 0;
		}
		amount -= avail;
	}
	if (action == CIX_GC_DELETE_DEAD || action == CIX_GC_DELETE_SPECIFIC) {
		o.each = NULL;
		fprintf(stderr, "finding garbage collector roots...\n");
		fprintf(stderr, action == CIX_GC_DELETE_DEAD ? "deleting garbage...\n"
							     : "deleting paths...\n");
	}
	o.action = action;
	o.paths = (const char *const *)args;
	o.nr_paths = (size_t)nargs;
	o.max_freed = amount;
	if (cix_store_collect_garbage(s, &o, &res, &err) < 0)
		return error_err(&err);
	if (action == CIX_GC_DELETE_DEAD || action == CIX_GC_DELETE_SPECIFIC)
		report_freed(res.bytes_freed, res.nr_deleted);
	return 0;
}

static int list_roots(struct cix_store *s)
{
	struct strvec links = STRVEC_INIT, paths = STRVEC_INIT;
	struct cix_err err = { 0 };
	int r;
	if (!(r = cix_store_find_roots(s, &links, &paths, &err))) {
		struct strvec shown = STRVEC_INIT;
		/* The files that make roots; temporary roots are no files. */
		for (size_t i = 0; i < links.nr; i++)
			if (links.v[i][0] == '/')
				strvec_push(&shown, links.v[i]);
		strvec_sort_unique(&shown);
		for (size_t i = 0; i < shown.nr; i++)
			puts(shown.v[i]);
		strvec_clear(&shown);
	}
	strvec_clear(&links);
	strvec_clear(&paths);
	return r < 0 ? error_err(&err) : 0;
}

int cmd_gc(int argc, char **argv)
{
	enum { OPT_DEAD = 0x100, OPT_LIVE, OPT_REFS, OPT_REFERRERS, OPT_ROOTS, OPT_OPTIMIZE };
	static const struct option opts[] = {
		{ "collect-garbage", optional_argument, NULL, 'C' },
		{ "free-space", required_argument, NULL, 'F' },
		{ "delete", no_argument, NULL, 'd' },
		{ "list-dead", no_argument, NULL, OPT_DEAD },
		{ "list-live", no_argument, NULL, OPT_LIVE },
		{ "list-roots", no_argument, NULL, OPT_ROOTS },
		{ "references", no_argument, NULL, OPT_REFS },
		{ "requisites", no_argument, NULL, 'R' },
		{ "referrers", no_argument, NULL, OPT_REFERRERS },
		{ "optimize", no_argument, NULL, OPT_OPTIMIZE },
		{ "optimise", no_argument, NULL, OPT_OPTIMIZE },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	enum action a = COLLECT;
	int set = 0, c, r;
	uint64_t amount = 0;
	struct cix_store *s;
	struct cix_err err = { 0 };

	while ((c = getopt_long(argc, argv, ":C::F:dRhV", opts, NULL)) != -1) {
		enum action next;
		switch (c) {
		case 'C':
			next = COLLECT;
			if (!optarg && optind < argc && argv[optind][0] != '-')
				optarg = argv[optind++];   /* -C 500MiB */
			if (optarg && cix_parse_size(optarg, &amount) < 0)
				return usage_error("invalid amount of space '%s'", optarg);
			break;
		case 'F':
			next = FREE_SPACE;
			if (cix_parse_size(optarg, &amount) < 0)
				return usage_error("invalid amount of space '%s'", optarg);
			break;
		case 'd': next = DELETE; break;
		case OPT_DEAD: next = LIST_DEAD; break;
		case OPT_LIVE: next = LIST_LIVE; break;
		case OPT_ROOTS: next = LIST_ROOTS; break;
		case OPT_REFS: next = REFERENCES; break;
		case 'R': next = REQUISITES; break;
		case OPT_REFERRERS: next = REFERRERS; break;
		case OPT_OPTIMIZE: next = OPTIMIZE; break;
		case 'h': usage(stdout); return 0;
		case 'V': return print_version();
		default: return option_error(c, argv);
		}
		if (set && next != a)
			return usage_error("only one action at a time");
		a = next;
		set = 1;
	}
	int nargs = argc - optind;
	int wants_paths = a == DELETE || a == REFERENCES || a == REQUISITES || a == REFERRERS;
	if (wants_paths && !nargs)
		return usage_error("this action needs store paths");
	if (!wants_paths && nargs)
		return usage_error("unexpected argument '%s'", argv[optind]);
	if (cix_store_open_client(&s, &err) < 0)
		return error_err(&err);
	for (int i = 0; i < nargs; i++)
		if (cix_store_check_path(s, argv[optind + i], &err) < 0) {
			cix_store_close(s);
			return error_err(&err);
		}
	switch (a) {
	case REFERENCES:
	case REQUISITES:
	case REFERRERS: {
		struct store_flags f = { .query = a == REFERENCES ? QUERY_REFERENCES
						: a == REQUISITES ? QUERY_REQUISITES : QUERY_REFERRERS };
		r = op_query(s, &f, argv + optind, nargs);
		break;
	}
	case LIST_ROOTS:
		r = list_roots(s);
		break;
	case OPTIMIZE:
		r = op_optimise(s, NULL, NULL, 0);
		break;
	default:
		r = collect(s, a, amount, argv + optind, nargs);
		break;
	}
	cix_store_close(s);
	return r;
}
