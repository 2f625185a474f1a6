/* strvec.h - growable arrays of owned strings, after git's strvec */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef CIX_STRVEC_H
#define CIX_STRVEC_H

#include <stddef.h>

/* v[0..nr) are owned copies; v is NULL-terminated once anything is pushed. */
struct strvec {
	char **v;
	size_t nr, alloc;
};

#define STRVEC_INIT { NULL, 0, 0 }

void strvec_push(struct strvec *sv, const char *s);
/* Push each argument up to a NULL. */
void strvec_pushl(struct strvec *sv, ...);
/* Push the string printf would print. */
void strvec_pushf(struct strvec *sv, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A cix_path_fn that pushes each path onto the strvec given as opaque. */
int strvec_push_fn(const char *s, void *opaque);
/*
 * Sort v[0..n) bytewise and drop (free) duplicates; returns how many
 * strings are left. strvec_sort_unique does so to a strvec.
 */
size_t cix_sort_unique(char **v, size_t n);
void strvec_sort_unique(struct strvec *sv);
/*
 * A strvec kept sorted bytewise, as a set: strvec_insert_sorted adds s
 * unless it is there (1 if added, 0 if not); strvec_find_sorted gives
 * its index, or -1.
 */
int strvec_insert_sorted(struct strvec *sv, const char *s);
long strvec_find_sorted(const struct strvec *sv, const char *s);
/* Push each word of s, words being separated by any of the bytes of seps. */
void strvec_split(struct strvec *sv, const char *s, const char *seps);
/* Free the strings and the array; sv is empty again. */
void strvec_clear(struct strvec *sv);

#endif
