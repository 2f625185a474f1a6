/* tap.h - minimal TAP producer for cix's C unit tests */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef CIX_TAP_H
#define CIX_TAP_H

/*
 * Header-only: each unit test is one binary. Use ok(), is_int(), is_str(),
 * is_mem(), diag(), then return done_testing() from main.
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <sys/stat.h>

static int tap_count, tap_failed;

__attribute__((format(printf, 2, 3), unused))
static int ok(int cond, const char *fmt, ...)
{
	va_list ap;
	tap_count++;
	if (!cond)
		tap_failed++;
	printf("%sok %d - ", cond ? "" : "not ", tap_count);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
	return cond;
}

/* Count a test as skipped (TAP's "# skip"), for a missing prerequisite. */
__attribute__((unused))
static void skip(const char *what, const char *why)
{
	tap_count++;
	printf("ok %d - %s # skip %s\n", tap_count, what, why);
	fflush(stdout);
}

__attribute__((format(printf, 1, 2), unused))
static void diag(const char *fmt, ...)
{
	va_list ap;
	fputs("# ", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

#define is_int(got, want, ...)                                                  \
	do {                                                                    \
		long long g_ = (long long)(got), w_ = (long long)(want);        \
		if (!ok(g_ == w_, __VA_ARGS__))                                 \
			diag("  got %lld, want %lld", g_, w_);                  \
	} while (0)

#define is_str(got, want, ...)                                                  \
	do {                                                                    \
		const char *g_ = (got), *w_ = (want);                           \
		if (!ok(g_ && w_ && !strcmp(g_, w_), __VA_ARGS__))              \
			diag("  got '%s', want '%s'", g_ ? g_ : "(null)",       \
			     w_ ? w_ : "(null)");                               \
	} while (0)

#define is_mem(got, gotlen, want, wantlen, ...)                                 \
	ok((size_t)(gotlen) == (size_t)(wantlen) &&                             \
	   !memcmp((got), (want), (size_t)(wantlen)), __VA_ARGS__)

/*
 * Make a fresh directory $TMPDIR/cix-TAG-XXXXXX (TMPDIR defaults to /tmp)
 * into buf, with umask 022 for predictable modes; 0, or -1 with a message.
 */
__attribute__((unused))
static int tap_mkdtemp(char *buf, size_t size, const char *tag)
{
	const char *t = getenv("TMPDIR");
	snprintf(buf, size, "%s/cix-%s-XXXXXX", t && *t ? t : "/tmp", tag);
	if (!mkdtemp(buf)) {
		perror("mkdtemp");
		return -1;
	}
	umask(022);
	return 0;
}

/* A reproducible pseudo-random sequence (xorshift64), the same in every run. */
static uint64_t tap_random_state = 88172645463325252u;

__attribute__((unused))
static uint64_t tap_random(void)
{
	tap_random_state ^= tap_random_state << 13;
	tap_random_state ^= tap_random_state >> 7;
	tap_random_state ^= tap_random_state << 17;
	return tap_random_state;
}

__attribute__((unused))
static int done_testing(void)
{
	printf("1..%d\n", tap_count);
	return tap_failed ? 1 : 0;
}

#endif
