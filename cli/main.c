/* main.c - the cix command: dispatch to sub-commands through a table */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "cix.h"
#include "hash.h"

#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *cix_progname = "cix";

static const struct command {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;
} commands[] = {
	{ "archive", cmd_archive, "manage signing keys and the keys this machine trusts" },
	{ "build", cmd_build, "build packages or derivations" },
	{ "copy", cmd_copy, "copy closures to or from another store (over SSH)" },
	{ "derivation", cmd_derivation, "inspect derivations (.drv files)" },
	{ "download", cmd_download, "download files into the store and print their hashes" },
	{ "gc", cmd_gc, "collect garbage: delete what no root keeps alive" },
	{ "hash", cmd_hash, "print the cryptographic hash of files" },
	{ "package", cmd_package, "query the distribution's packages" },
	{ "publish", cmd_publish, "serve the store over HTTP as a binary cache" },
	{ "pull", cmd_pull, "update the package collection from a git repository" },
	{ "refresh", cmd_refresh, "find newer upstream releases of GNU packages, and update to them" },
	{ "store", cmd_store, "low-level store operations (NAR dump/restore)" },
};

static void vreport(const char *fmt, va_list ap)
{
	fprintf(stderr, "%s: ", cix_progname);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void die(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vreport(fmt, ap);
	va_end(ap);
	exit(EXIT_FAIL);
}

int error(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vreport(fmt, ap);
	va_end(ap);
	return EXIT_FAIL;
}

int error_err(const struct cix_err *err)
{
	return error("%s", err->msg[0] ? err->msg : cix_strerror(err->code));
}

int usage_error(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vreport(fmt, ap);
	va_end(ap);
	fprintf(stderr, "Try '%s --help' for more information.\n", cix_progname);
	return EXIT_USAGE;
}

int option_error(int c, char **argv)
{
	const char *arg = optind > 0 ? argv[optind - 1] : "";
	if (c == ':')
		return usage_error("option '%s' requires an argument", arg);
	if (optopt)
		return usage_error("invalid option -- '%c'", optopt);
	return usage_error("unrecognized option '%s'", arg);
}

int print_version(void)
{
	printf("%s (cix) %s\n", cix_progname, CIX_VERSION);
	return 0;
}

static void usage(FILE *f)
{
	fprintf(f, "Usage: cix COMMAND [OPTION]... [ARG]...\n"
		   "cix, a functional package manager.\n\nCommands:\n");
	for (size_t i = 0; i < ARRAY_SIZE(commands); i++)
		fprintf(f, "  %-12s %s\n", commands[i].name, commands[i].summary);
	fprintf(f, "\nRun 'cix COMMAND --help' for the options of a command.\n"
		   "  -h, --help     display this help and exit\n"
		   "  -V, --version  display version information and exit\n");
}

/* Output is buffered: a full disk or closed pipe shows only at the end. */
static int finish_stdout(int status)
{
	if (fflush(stdout) || ferror(stdout))
		return error("error writing to standard output");
	return status;
}

int main(int argc, char **argv)
{
	static char progname[64];

	/*
	 * libgcrypt reads a /proc file when first used, and aborts if it
	 * cannot: first use it while descriptors are surely free.
	 */
	cix_hash_global_init();
	if (argc < 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	opterr = 0;
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		usage(stdout);
		return finish_stdout(0);
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V"))
		return finish_stdout(print_version());
	for (size_t i = 0; i < ARRAY_SIZE(commands); i++) {
		if (strcmp(argv[1], commands[i].name))
			continue;
		snprintf(progname, sizeof(progname), "cix %s", commands[i].name);
		cix_progname = progname;
		return finish_stdout(commands[i].fn(argc - 1, argv + 1));
	}
	return usage_error("'%s' is not a cix command", argv[1]);
}
