/* cmd-copy.c - cix copy: closures from one store to another, over SSH */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "cix.h"
#include "store.h"
#include "store-path.h"
#include "strvec.h"

#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void usage(FILE *f)
{
	fprintf(f, "Usage: cix copy (--to=STORE | --from=STORE) [OPTION]... PATH...\n"
		   "Copy the closures of store paths to another store, or from it into this one.\n\n"
		   "      --to=STORE      copy from this machine's store to STORE\n"
		   "      --from=STORE    copy from STORE to this machine's store\n"
		   "  -v, --verbose       name each path as it is copied\n"
		   "  -h, --help          display this help and exit\n"
		   "  -V, --version       display version information and exit\n\n"
		   "STORE is ssh-ng://[USER@]HOST[:PORT][?PARAMS] (the store of cix-daemon --stdio\n"
		   "run by OpenSSH on HOST; $CIX_SSHOPTS are more options for ssh), unix://SOCKET\n"
		   "(a daemon of this machine), daemon or local. Paths already in the destination\n"
		   "are not sent again; each path arrives checked (its NAR hash and size) and\n"
		   "becomes valid only once whole, after its references.\n");
}

struct progress {
	int verbose;
	size_t n;
	const char *where;
};

static int sending(const char *path, void *opaque)
{
	struct progress *p = opaque;
	p->n++;
	if (p->verbose)
		fprintf(stderr, "copying '%s'\n", path);
	else if (isatty(2))
		fprintf(stderr, "\rcopying path %zu %s...", p->n, p->where);
	return 0;
}

/* A store path, or (copying out) a link to one, such as ./result. */
static int store_path_arg(struct cix_store *s, const char *arg, int resolve, struct strbuf *out,
			  struct cix_err *err)
{
	char real[PATH_MAX];
	strbuf_reset(out);
	if (resolve && cix_store_check_path(s, arg, NULL) < 0 && realpath(arg, real))
		arg = real;
	strbuf_addstr(out, arg);
	return cix_store_check_path(s, out->buf, err);
}

static int copy(const char *to, const char *from, int verbose, char **args, int n)
{
	struct cix_store *here = NULL, *there = NULL;
	struct cix_err err = { 0 };
	struct strvec paths = STRVEC_INIT;
	struct strbuf p = STRBUF_INIT;
	struct progress pr = { verbose, 0, to ? "to the other store" : "from the other store" };
	int r;
	if ((r = cix_store_open_client(&here, &err)) == 0)
		r = cix_store_open_uri(to ? to : from, &there, &err);
	for (int i = 0; !r && i < n; i++)
		if ((r = store_path_arg(here, args[i], to != NULL, &p, &err)) == 0)
			strvec_push(&paths, p.buf);
	if (!r)
		r = cix_store_copy_closure(to ? here : there, to ? there : here,
					   (const char *const *)paths.v, paths.nr, sending, &pr, &err);
	if (!verbose && pr.n && isatty(2))
		fputc('\n', stderr);
	if (there)
		cix_store_close(there);
	if (here)
		cix_store_close(here);
	strvec_clear(&paths);
	strbuf_release(&p);
	return r < 0 ? error_err(&err) : 0;
}

int cmd_copy(int argc, char **argv)
{
	enum { OPT_TO = 0x100, OPT_FROM };
	static const struct option opts[] = {
		{ "to", required_argument, NULL, OPT_TO },
		{ "from", required_argument, NULL, OPT_FROM },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	const char *to = NULL, *from = NULL;
	int verbose = 0, c;
	while ((c = getopt_long(argc, argv, ":vhV", opts, NULL)) != -1) {
		switch (c) {
		case OPT_TO: to = optarg; break;
		case OPT_FROM: from = optarg; break;
		case 'v': verbose = 1; break;
		case 'h': usage(stdout); return 0;
		case 'V': return print_version();
		default: return option_error(c, argv);
		}
	}
	if (!to == !from)
		return usage_error("give one of --to=STORE and --from=STORE");
	if (optind == argc)
		return usage_error("no store paths to copy");
	return copy(to, from, verbose, argv + optind, argc - optind);
}
