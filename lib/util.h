/* util.h - allocation wrappers and small helpers shared by libcix */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef CIX_UTIL_H
#define CIX_UTIL_H

#include <stddef.h>
#include <dirent.h>
#include <stdint.h>
#include <sys/types.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define CIX_NORETURN __attribute__((noreturn))
#define CIX_PRINTF(f, a) __attribute__((format(printf, f, a)))

/*
 * Allocation never fails: on out-of-memory these print one line and abort,
 * as git's xmalloc does. Everything else in the library returns errors.
 */
void *xmalloc(size_t n);
void *xcalloc(size_t nmemb, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
void *xmemdup(const void *p, size_t n);

/* Grow *p (holding *alloc elements) so that it can hold nr elements. */
#define ALLOC_GROW(p, nr, alloc)                                              \
	do {                                                                  \
		if ((size_t)(nr) > (size_t)(alloc)) {                         \
			size_t na_ = (alloc) < 8 ? 16 : (size_t)(alloc) * 2;  \
			if (na_ < (size_t)(nr)) na_ = (nr);                   \
			(p) = xrealloc((p), na_ * sizeof(*(p)));              \
			(alloc) = na_;                                        \
		}                                                             \
	} while (0)

CIX_NORETURN void cix_bug(const char *file, int line, const char *fmt, ...)
	CIX_PRINTF(3, 4);
#define BUG(...) cix_bug(__FILE__, __LINE__, __VA_ARGS__)

/* Full read/write with EINTR and short transfer handling; -errno on error. */
ssize_t cix_read_full(int fd, void *buf, size_t len);
int cix_write_full(int fd, const void *buf, size_t len);
/* A formatted message written whole to fd (nothing when fd < 0; errors ignored). */
void cix_fd_printf(int fd, const char *fmt, ...) CIX_PRINTF(2, 3);

/*
 * A whole decimal number (digits only: no sign, space or suffix) of at most
 * max into *out: 0, or -1 when s is not one.
 */
int cix_parse_decimal(const char *s, unsigned long long max, unsigned long long *out);

/* mkdir -p: every missing directory of path made, mode 0755. */
struct cix_err;
int cix_mkdirs(const char *path, struct cix_err *err);

/*
 * A directory stream over a copy of the directory descriptor fd (which
 * stays the caller's, and open after closedir). NULL with errno set.
 */
DIR *cix_fdopendir_dup(int fd);

/* qsort/bsearch comparison of two strings held in an array of char *. */
int cix_cmp_str(const void *a, const void *b);
/* v[0..n) sorted by strcmp; a few (a path's references) without qsort's set-up. */
void cix_sort_strs(char **v, size_t n);

/*
 * Is name PREFIX followed by the pid of a process that no longer exists
 * (PREFIX-PID-..., or PREFIX-PID alone)? The temporaries of cix
 * processes are named so, to be removed once their process has died.
 */
int cix_name_of_dead_process(const char *name, const char *prefix);

/* The directory name below dirfd, never through a symlink; NULL if none. */
DIR *cix_opendir_at(int dirfd, const char *name);

/* Little-endian u64 as used on the Nix wire and in NAR. */
static inline void cix_put_u64le(unsigned char *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static inline uint64_t cix_get_u64le(const unsigned char *p)
{
	uint64_t v = 0;
	for (int i = 7; i >= 0; i--)
		v = (v << 8) | p[i];
	return v;
}

#endif
