/* cmd-store.c - cix store: low-level store operations */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "cix.h"
#include "nar.h"
#include "nar-read.h"

#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
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

static int op_dump(char **args, int nargs)
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

/*
 * Standard input, read in large blocks. The NAR reader asks for exactly what
 * it needs; whatever is left in the buffer or on the fd afterwards is
 * trailing data.
 */
struct stdin_source {
	int fd;
	size_t pos, len;
	unsigned char buf[64 * 1024];
};

static ssize_t stdin_read(void *opaque, void *buf, size_t len)
{
	struct stdin_source *s = opaque;
	if (s->pos == s->len) {
		ssize_t n = cix_fd_source_read(&s->fd, s->buf, sizeof(s->buf));
		if (n <= 0)
			return n;
		s->pos = 0;
		s->len = (size_t)n;
	}
	if (len > s->len - s->pos)
		len = s->len - s->pos;
	memcpy(buf, s->buf + s->pos, len);
	s->pos += len;
	return (ssize_t)len;
}

static int op_restore(char **args, int nargs)
{
	static struct stdin_source in = { .fd = 0 };
	struct cix_err err = { 0 };
	unsigned char c;
	ssize_t n;

	if (cix_nar_restore(stdin_read, &in, args[0], NULL, NULL, &err) < 0)
		return error_err(&err);
	n = stdin_read(&in, &c, 1);
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

static const struct op {
	const char *name;
	int nargs;
	int (*fn)(char **args, int nargs);
	const char *usage, *summary;
} ops[] = {
	{ "dump", 1, op_dump, "--dump PATH",
	  "write the NAR serialisation of PATH to standard output" },
	{ "restore", 1, op_restore, "--restore PATH",
	  "create PATH (which must not exist) from a NAR on standard input" },
};

static void usage(FILE *f)
{
	fprintf(f, "Usage: cix store OPERATION [ARG]...\n"
		   "Low-level store operations.\n\nOperations:\n");
	for (size_t i = 0; i < ARRAY_SIZE(ops); i++)
		fprintf(f, "  %-22s %s\n", ops[i].usage, ops[i].summary);
	fprintf(f, "\n  -h, --help             display this help and exit\n"
		   "  -V, --version          display version information and exit\n");
}

int cmd_store(int argc, char **argv)
{
	enum { OPT_OP = 0x100 };
	struct option opts[ARRAY_SIZE(ops) + 3];
	const struct op *op = NULL;
	int c, idx, n = 0;

	for (size_t i = 0; i < ARRAY_SIZE(ops); i++)
		opts[n++] = (struct option){ ops[i].name, no_argument, NULL, OPT_OP };
	opts[n++] = (struct option){ "help", no_argument, NULL, 'h' };
	opts[n++] = (struct option){ "version", no_argument, NULL, 'V' };
	opts[n] = (struct option){ NULL, 0, NULL, 0 };

	while ((c = getopt_long(argc, argv, ":hV", opts, &idx)) != -1) {
		switch (c) {
		case OPT_OP:
			if (op && op != &ops[idx])
				return usage_error("--%s and --%s are exclusive",
						   op->name, ops[idx].name);
			op = &ops[idx];
			break;
		case 'h': usage(stdout); return 0;
		case 'V': return print_version();
		default: return option_error(c, argv);
		}
	}
	if (!op)
		return usage_error("no operation given");
	if (argc - optind != op->nargs)
		return usage_error("%s takes %d argument%s", op->usage, op->nargs,
				   op->nargs == 1 ? "" : "s");
	return op->fn(argv + optind, argc - optind);
}
