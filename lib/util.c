/* util.c - allocation wrappers and full I/O helpers */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "util.h"
#include "err.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static CIX_NORETURN void oom(size_t n)
{
	fprintf(stderr, "fatal: out of memory allocating %zu bytes\n", n);
	abort();
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		oom(n);
	return p;
}

void *xcalloc(size_t nmemb, size_t size)
{
	void *p = calloc(nmemb ? nmemb : 1, size ? size : 1);
	if (!p)
		oom(nmemb * size);
	return p;
}

void *xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);
	if (!q)
		oom(n);
	return q;
}

char *xstrdup(const char *s)
{
	return xmemdup(s, strlen(s) + 1);
}

char *xstrndup(const char *s, size_t n)
{
	size_t len = strnlen(s, n);
	char *p = xmalloc(len + 1);
	memcpy(p, s, len);
	p[len] = '\0';
	return p;
}

void *xmemdup(const void *p, size_t n)
{
	void *q = xmalloc(n);
	if (n)
		memcpy(q, p, n);
	return q;
}

void cix_bug(const char *file, int line, const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "BUG: %s:%d: ", file, line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	abort();
}

ssize_t cix_read_full(int fd, void *buf, size_t len)
{
	size_t done = 0;
	while (done < len) {
		ssize_t n = read(fd, (char *)buf + done, len - done);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			break;
		done += (size_t)n;
	}
	return (ssize_t)done;
}

int cix_write_full(int fd, const void *buf, size_t len)
{
	const char *p = buf;
	while (len) {
		ssize_t n = write(fd, p, len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

void cix_fd_printf(int fd, const char *fmt, ...)
{
	char *s = NULL;
	va_list ap;
	int n;
	if (fd < 0)
		return;
	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (n >= 0) {
		(void)!cix_write_full(fd, s, (size_t)n);
		free(s);
	}
}

int cix_cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

void cix_sort_strs(char **v, size_t n)
{
	if (n > 16) {
		qsort(v, n, sizeof(*v), cix_cmp_str);
		return;
	}
	for (size_t i = 1; i < n; i++) {
		char *x = v[i];
		size_t j = i;
		for (; j && strcmp(v[j - 1], x) > 0; j--)
			v[j] = v[j - 1];
		v[j] = x;
	}
}

int cix_name_of_dead_process(const char *name, const char *prefix)
{
	size_t n = strlen(prefix);
	char *end;
	long pid;
	if (strncmp(name, prefix, n) || !isdigit((unsigned char)name[n]))
		return 0;
	errno = 0;
	pid = strtol(name + n, &end, 10);
	if (errno || pid <= 0 || (pid_t)pid != pid || (*end && *end != '-'))
		return 0;
	return kill((pid_t)pid, 0) < 0 && errno == ESRCH;
}

DIR *cix_fdopendir_dup(int fd)
{
	int dfd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	DIR *d = dfd >= 0 ? fdopendir(dfd) : NULL;
	if (!d && dfd >= 0) {
		int e = errno;
		close(dfd);
		errno = e;
	}
	return d;
}

int cix_parse_decimal(const char *s, unsigned long long max, unsigned long long *out)
{
	char *end;
	errno = 0;
	if (*s < '0' || *s > '9')
		return -1;
	unsigned long long v = strtoull(s, &end, 10);
	if (*end || errno || v > max)
		return -1;
	*out = v;
	return 0;
}

int cix_mkdirs(const char *path, struct cix_err *err)
{
	/* Mostly there already: one system call, not one per component. */
	if (mkdir(path, 0755) == 0 || errno == EEXIST)
		return 0;
	char *p = xstrdup(path);
	int r = 0;
	for (char *s = p + 1;; s++) {
		if (*s && *s != '/')
			continue;
		char c = *s;
		*s = '\0';
		if (mkdir(p, 0755) < 0 && errno != EEXIST) {
			r = cix_error_errno(err, -errno, "cannot create directory '%s'", p);
			break;
		}
		if (!(*s = c))
			break;
	}
	free(p);
	return r;
}

DIR *cix_opendir_at(int dirfd, const char *name)
{
	int fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	if (!d && fd >= 0)
		close(fd);
	return d;
}
