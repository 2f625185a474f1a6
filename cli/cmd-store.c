/* cmd-store.c - cix store: low-level store operations */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "cix.h"
#include "nar.h"
#include "remove.h"
#include "store-ops.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/*
 * As in nix-store, the operation is an option (--dump, --restore, ...);
 * each has an entry in ops[] saying how many arguments it takes and which
 * function runs it.
 */

static int fd_sink(void *opaque, const void *data, size_t len)
{
	return cix_write_full(*(int *)opaque, data, len);
}

static int op_dump(struct cix_store *s, const struct store_flags *f, char **args, int nargs)
{
	struct cix_err err = { 0 };
	int fd = 1;
	int r = cix_nar_dump(args[0], fd_sink, &fd, &err);
	if (r < 0) {
		if (!err.msg[0])
			cix_error_errno(&err, r, "cannot write to standard output");
		return error_err(&err);
	}
	return 0;
}

static int op_restore(struct cix_store *s, const struct store_flags *f, char **args, int nargs)
{
	/* The NAR reader asks for exactly what it needs: anything left in the
	 * buffer or on standard input afterwards is trailing data. */
	static struct cix_buf_source in = CIX_BUF_SOURCE_INIT(0);
	struct cix_err err = { 0 };
	unsigned char c;
	ssize_t n;

	if (cix_nar_restore(cix_buf_source_read, &in, args[0], NULL, NULL, &err) < 0)
		return error_err(&err);
	n = cix_buf_source_read(&in, &c, 1);
	if (n != 0) {
		/* The whole input is refused: take back what was restored. */
		size_t len = strlen(args[0]);
		while (len > 1 && args[0][len - 1] == '/')
			args[0][--len] = '\0';
		cix_remove_tree_at(AT_FDCWD, args[0], NULL);
		if (n < 0)
			return error("cannot read standard input: %s", cix_strerror((int)n));
		return error("trailing data after NAR");
	}
	return 0;
}

/* nargs: exact count, or -1 for one or more. */
static const struct op {
	const char *name;
	int short_opt;
	int nargs;
	int need_store;
	int (*fn)(struct cix_store *s, const struct store_flags *f, char **args, int nargs);
	const char *usage, *summary;
} ops[] = {
	{ "add", 0, -1, 1, op_add, "--add PATH...",
	  "copy PATH into the store (recursive sha256), print its store path" },
	{ "add-fixed", 0, -1, 1, op_add_fixed, "--add-fixed [--recursive] ALGO PATH...",
	  "copy PATH into the store as a fixed-output path" },
	{ "check-validity", 0, -1, 1, op_check_validity, "--check-validity PATH...",
	  "fail unless every PATH is valid (--print-invalid: list the invalid)" },
	{ "delete", 0, -1, 1, op_delete, "--delete PATH...",
	  "delete PATH from the store, unless another valid path refers to it" },
	{ "dump", 0, 1, 0, op_dump, "--dump PATH",
	  "write the NAR serialisation of PATH to standard output" },
	{ "export", 0, -1, 1, op_export, "--export PATH...",
	  "write PATH... as an export stream (dependencies first)" },
	{ "import", 0, 0, 1, op_import, "--import",
	  "import an export stream from standard input, all or nothing" },
	{ "optimise", 0, 0, 1, op_optimise, "--optimise",
	  "hard-link identical files in the store" },
	{ "query", 'q', -1, 1, op_query, "-q, --query MODE PATH...",
	  "query the store; MODE is one of the options below" },
	{ "read-log", 'l', -1, 1, op_read_log, "-l, --read-log PATH...",
	  "print the build log of a derivation or of an output path's deriver" },
	{ "realise", 'r', -1, 1, op_realise, "-r, --realise DRV[!OUT,...]...",
	  "build the derivations (inputs first) and print their output paths" },
	{ "restore", 0, 1, 0, op_restore, "--restore PATH",
	  "create PATH (which must not exist) from a NAR on standard input" },
	{ "substitute", 0, -1, 1, op_substitute, "--substitute URL PATH...",
	  "install PATH... from the binary cache at URL, signed by a trusted key" },
	{ "verify", 0, 0, 1, op_verify, "--verify [--check-contents] [--repair]",
	  "check that every valid path exists (and is unmodified)" },
	{ "verify-path", 0, -1, 1, op_verify_path, "--verify-path PATH...",
	  "check that each PATH is unmodified" },
};

static const struct modifier {
	const char *name;
	int short_opt;
	int query;     /* QUERY_* set by this option, or 0 */
	const char *summary;
} modifiers[] = {
	{ "references", 0, QUERY_REFERENCES, "the paths PATH refers to" },
	{ "referrers", 0, QUERY_REFERRERS, "the valid paths that refer to PATH" },
	{ "requisites", 'R', QUERY_REQUISITES, "the closure of PATH (-R)" },
	{ "referrers-closure", 0, QUERY_REFERRERS_CLOSURE, "the closure of PATH under referrers" },
	{ "deriver", 0, QUERY_DERIVER, "the derivation PATH was built from" },
	{ "hash", 0, QUERY_HASH, "the sha256 of PATH's NAR" },
	{ "size", 0, QUERY_SIZE, "the size of PATH's NAR" },
	{ "valid-derivers", 0, QUERY_VALID_DERIVERS, "valid derivations that output PATH" },
	{ "outputs", 0, QUERY_OUTPUTS, "the outputs of the derivation PATH" },
	{ "tree", 0, QUERY_TREE, "the closure of PATH as a tree" },
	{ "graph", 0, QUERY_GRAPH, "the closure of PATH as a Graphviz graph" },
	{ "recursive", 0, 0, "with --add-fixed: hash the NAR, not the file" },
	{ "print-invalid", 0, 0, "with --check-validity: print invalid paths" },
	{ "check-contents", 0, 0, "with --verify: also re-hash every path" },
	{ "repair", 0, 0, "with --verify: repair what can be repaired" },
	{ "keep-failed", 'K', 0, "with --realise: keep the build directory of a failed build" },
	{ "keep-going", 'k', 0, "with --realise: after a failed build, go on with the others" },
	{ "check", 0, 0, "with --realise: build valid outputs again and compare (exit 104 if they differ)" },
};

static void usage(FILE *f)
{
	fprintf(f, "Usage: cix store OPERATION [OPTION]... [ARG]...\n"
		   "Operations on the store ($CIX_STORE_DIR, default /cix/store).\n\n"
		   "Operations:\n");
	for (size_t i = 0; i < ARRAY_SIZE(ops); i++)
		fprintf(f, "  %-38s %s\n", ops[i].usage, ops[i].summary);
	fprintf(f, "\nOptions:\n");
	for (size_t i = 0; i < ARRAY_SIZE(modifiers); i++) {
		char o[40];
		if (modifiers[i].short_opt)
			snprintf(o, sizeof(o), "-%c, --%s", modifiers[i].short_opt, modifiers[i].name);
		else
			snprintf(o, sizeof(o), "    --%s", modifiers[i].name);
		fprintf(f, "  %-38s %s\n", o, modifiers[i].summary);
	}
	fprintf(f, "  -j, --max-jobs=N                       with --realise: run N builds at once (default 1)\n"
		   "      --cores=N                          with --realise: NIX_BUILD_CORES (default: all)\n"
		   "      --timeout=S                        with --realise: kill a build after S seconds\n"
		   "      --max-silent-time=S                with --realise: ... after S seconds without output\n"
		   "      --max-build-log-size=BYTES         with --realise: ... after BYTES of output\n"
		   "      --substitute-urls=URLS             with --realise: fetch from these caches\n"
		   "      --no-substitutes                   with --realise: fetch nothing, build\n"
		   "      --fallback                         with --realise: build what cannot be fetched\n"
		   "      --builders=SPEC                    with --realise: offload builds to these machines\n");
	fprintf(f, "\n  -h, --help                             display this help and exit\n"
		   "  -V, --version                          display version information and exit\n");
}

int cmd_store(int argc, char **argv)
{
	enum { OPT_OP = 0x100, OPT_MOD = 0x200, OPT_CORES = 0x300, OPT_TIMEOUT, OPT_SILENT, OPT_LOG,
	       OPT_SUBST_URLS, OPT_NOSUBST, OPT_FALLBACK, OPT_BUILDERS };
	struct option opts[ARRAY_SIZE(ops) + ARRAY_SIZE(modifiers) + 12];
	struct store_flags flags = { 0 };
	const struct op *op = NULL;
	int c, n = 0, r;

	for (size_t i = 0; i < ARRAY_SIZE(ops); i++)
		opts[n++] = (struct option){ ops[i].name, no_argument, NULL, OPT_OP + (int)i };
	for (size_t i = 0; i < ARRAY_SIZE(modifiers); i++)
		opts[n++] = (struct option){ modifiers[i].name, no_argument, NULL, OPT_MOD + (int)i };
	opts[n++] = (struct option){ "max-jobs", required_argument, NULL, 'j' };
	opts[n++] = (struct option){ "cores", required_argument, NULL, OPT_CORES };
	opts[n++] = (struct option){ "timeout", required_argument, NULL, OPT_TIMEOUT };
	opts[n++] = (struct option){ "max-silent-time", required_argument, NULL, OPT_SILENT };
	opts[n++] = (struct option){ "max-build-log-size", required_argument, NULL, OPT_LOG };
	opts[n++] = (struct option){ "substitute-urls", required_argument, NULL, OPT_SUBST_URLS };
	opts[n++] = (struct option){ "no-substitutes", no_argument, NULL, OPT_NOSUBST };
	opts[n++] = (struct option){ "fallback", no_argument, NULL, OPT_FALLBACK };
	opts[n++] = (struct option){ "builders", required_argument, NULL, OPT_BUILDERS };
	opts[n++] = (struct option){ "help", no_argument, NULL, 'h' };
	opts[n++] = (struct option){ "version", no_argument, NULL, 'V' };
	opts[n] = (struct option){ NULL, 0, NULL, 0 };

	while ((c = getopt_long(argc, argv, ":qrlRKkj:hV", opts, NULL)) != -1) {
		const struct op *this = NULL;
		const struct modifier *mod = NULL;
		/* Short options stand for the entry that names them. */
		for (size_t i = 0; i < ARRAY_SIZE(ops); i++)
			if (c == ops[i].short_opt)
				c = OPT_OP + (int)i;
		for (size_t i = 0; i < ARRAY_SIZE(modifiers); i++)
			if (c == modifiers[i].short_opt)
				c = OPT_MOD + (int)i;
		if (c >= OPT_OP && c < OPT_OP + (int)ARRAY_SIZE(ops))
			this = &ops[c - OPT_OP];
		else if (c >= OPT_MOD && c < OPT_MOD + (int)ARRAY_SIZE(modifiers))
			mod = &modifiers[c - OPT_MOD];
		if (this) {
			if (op && op != this)
				return usage_error("--%s and --%s are exclusive", op->name, this->name);
			op = this;
		} else if (mod) {
			if (mod->query) {
				if (flags.query && flags.query != mod->query)
					return usage_error("only one query mode at a time");
				flags.query = mod->query;
			} else if (!strcmp(mod->name, "recursive")) {
				flags.recursive = 1;
			} else if (!strcmp(mod->name, "check-contents")) {
				flags.check_contents = 1;
			} else if (!strcmp(mod->name, "repair")) {
				flags.repair = 1;
			} else if (!strcmp(mod->name, "keep-failed")) {
				flags.keep_failed = 1;
			} else if (!strcmp(mod->name, "keep-going")) {
				flags.keep_going = 1;
			} else if (!strcmp(mod->name, "check")) {
				flags.check = 1;
			} else {
				flags.print_invalid = 1;
			}
		} else if (c == 'j' || c == OPT_CORES || c == OPT_TIMEOUT || c == OPT_SILENT ||
			   c == OPT_LOG) {
			unsigned long long v, max = c == 'j' || c == OPT_CORES ? 1024 :
				c == OPT_LOG ? 1ULL << 50 : 10ULL * 365 * 86400;
			if (cix_parse_decimal(optarg, max, &v) < 0)
				return usage_error("invalid number '%s'", optarg);
			if (c == 'j') {
				flags.max_jobs = (unsigned)v;
				flags.no_build = v == 0;
			}
			else if (c == OPT_CORES)
				flags.cores = (unsigned)v;
			else if (c == OPT_TIMEOUT)
				flags.timeout = (unsigned)v;
			else if (c == OPT_LOG)
				flags.max_log = v;
			else
				flags.max_silent = (unsigned)v;
		} else if (c == OPT_SUBST_URLS) {
			flags.substitute_urls = optarg;
		} else if (c == OPT_NOSUBST) {
			flags.no_subst = 1;
		} else if (c == OPT_FALLBACK) {
			flags.fallback = 1;
		} else if (c == OPT_BUILDERS) {
			flags.builders = optarg;
		} else if (c == 'h') {
			usage(stdout);
			return 0;
		} else if (c == 'V') {
			return print_version();
		} else {
			return option_error(c, argv);
		}
	}
	if (!op)
		return usage_error("no operation given");
	if (op->nargs >= 0 ? argc - optind != op->nargs : argc - optind < 1)
		return usage_error("%s: wrong number of arguments", op->usage);
	if (flags.query && op->fn != op_query)
		return usage_error("a query mode needs --query");
	if (!op->need_store)
		return op->fn(NULL, &flags, argv + optind, argc - optind);

	struct cix_store *s;
	struct cix_err err = { 0 };
	if (cix_store_open_client(&s, &err) < 0)
		return error_err(&err);
	r = op->fn(s, &flags, argv + optind, argc - optind);
	cix_store_close(s);
	return r;
}
