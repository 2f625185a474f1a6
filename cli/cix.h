/* cix.h - shared declarations of the cix command-line front-end */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef CIX_CLI_H
#define CIX_CLI_H

#include "err.h"

/*
 * Exit codes (documented in cix(1)): 0 success, 1 the operation failed
 * (bad input, mismatch), 2 usage error.
 */
enum { EXIT_FAIL = 1, EXIT_USAGE = 2 };

/* Each command is int cmd_NAME(int argc, char **argv); argv[0] is its name. */
int cmd_archive(int argc, char **argv);
int cmd_gc(int argc, char **argv);
int cmd_hash(int argc, char **argv);
int cmd_store(int argc, char **argv);
int cmd_derivation(int argc, char **argv);
int cmd_build(int argc, char **argv);
int cmd_package(int argc, char **argv);
int cmd_publish(int argc, char **argv);
int cmd_download(int argc, char **argv);
int cmd_pull(int argc, char **argv);
int cmd_refresh(int argc, char **argv);
int cmd_copy(int argc, char **argv);

extern const char *cix_progname; /* "cix hash" etc. for messages */

CIX_NORETURN void die(const char *fmt, ...) CIX_PRINTF(1, 2);
/* Print "cix CMD: msg" on stderr and return EXIT_FAIL. */
int error(const char *fmt, ...) CIX_PRINTF(1, 2);
/* Print "cix CMD: message of err" and return EXIT_FAIL. */
int error_err(const struct cix_err *err);
/* Usage error: message, then a hint to --help; returns EXIT_USAGE. */
int usage_error(const char *fmt, ...) CIX_PRINTF(1, 2);
/* -f/--format of cix hash and cix download (cli/cmd-hash.c): nix-base32,
 * base32 (RFC 4648), base16 (hex, hexadecimal), base64; -1 if unknown. */
enum hash_fmt { F_NIXBASE32, F_BASE32, F_BASE16, F_BASE64 };
struct cix_hash;
int hash_format_parse(const char *s, enum hash_fmt *f);
/* The hash in that format, on a line of standard output. */
void hash_format_print(const struct cix_hash *h, enum hash_fmt f);
/*
 * Run argv (found on PATH) with standard input /dev/null, its output and
 * errors into out (reset first; at most about max bytes kept): its exit
 * status (128 + N when killed by signal N), or -1 with err when it could not
 * be run at all (cli/run-program.c). read_bounded: fd to its end into out.
 */
struct strbuf;
int run_program(const char *const argv[], struct strbuf *out, size_t max, struct cix_err *err);
/*
 * Fork; the child runs child(arg, fd) and exits with what it returns, fd
 * the write end of a pipe whose bytes come into out (reset first; at most
 * about max kept). *status: its wait status. -1 with err when it could
 * not be run or waited for.
 */
int run_child(int (*child)(void *arg, int fd), void *arg, struct strbuf *out, size_t max,
	      int *status, struct cix_err *err);
void read_bounded(int fd, struct strbuf *out, size_t max);
/* Whether s looks like a GNU triplet, for --target (cli/target.c). */
int valid_triplet(const char *s);
int valid_system(const char *s);
/* Print "cix CMD (cix) VERSION" and return 0. */
int print_version(void);

/*
 * getopt_long error reporting is ours: main() sets opterr = 0 and every
 * optstring starts with ':'. On '?' or ':' from getopt_long, a command
 * returns option_error(c, argv), which prints one line plus the hint and
 * returns EXIT_USAGE.
 */
int option_error(int c, char **argv);

#endif
