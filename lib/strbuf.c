/* strbuf.c - growable byte strings */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "strbuf.h"
#include "err.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

char strbuf_slopbuf[1];

void strbuf_init(struct strbuf *sb, size_t hint)
{
	sb->alloc = sb->len = 0;
	sb->buf = strbuf_slopbuf;
	if (hint)
		strbuf_grow(sb, hint);
}

void strbuf_release(struct strbuf *sb)
{
	if (sb->alloc)
		free(sb->buf);
	strbuf_init(sb, 0);
}

char *strbuf_detach(struct strbuf *sb, size_t *len)
{
	char *res;
	strbuf_grow(sb, 0);
	res = sb->buf;
	if (len)
		*len = sb->len;
	strbuf_init(sb, 0);
	return res;
}

void strbuf_grow(struct strbuf *sb, size_t extra)
{
	int new_buf = !sb->alloc;
	if (extra > SIZE_MAX - sb->len - 1)
		BUG("strbuf size overflow");
	if (new_buf)
		sb->buf = NULL;
	ALLOC_GROW(sb->buf, sb->len + extra + 1, sb->alloc);
	if (new_buf)
		sb->buf[0] = '\0';
}

void strbuf_setlen(struct strbuf *sb, size_t len)
{
	if (len > (sb->alloc ? sb->alloc - 1 : 0))
		BUG("strbuf_setlen beyond allocation");
	sb->len = len;
	if (sb->buf != strbuf_slopbuf)
		sb->buf[len] = '\0';
}

void strbuf_add(struct strbuf *sb, const void *data, size_t len)
{
	strbuf_grow(sb, len);
	if (len)
		memcpy(sb->buf + sb->len, data, len);
	sb->len += len;
	sb->buf[sb->len] = '\0';
}

void strbuf_vaddf(struct strbuf *sb, const char *fmt, va_list ap)
{
	va_list cp;
	int n;
	strbuf_grow(sb, 64);
	va_copy(cp, ap);
	n = vsnprintf(sb->buf + sb->len, sb->alloc - sb->len, fmt, cp);
	va_end(cp);
	if (n < 0)
		BUG("vsnprintf failed");
	if ((size_t)n >= sb->alloc - sb->len) {
		strbuf_grow(sb, (size_t)n);
		n = vsnprintf(sb->buf + sb->len, sb->alloc - sb->len, fmt, ap);
	}
	sb->len += (size_t)n;
}

void strbuf_addf(struct strbuf *sb, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	strbuf_vaddf(sb, fmt, ap);
	va_end(ap);
}

static int read_fd_max(struct strbuf *sb, int fd, size_t max)
{
	size_t start = sb->len;
	for (;;) {
		strbuf_grow(sb, 65536);
		ssize_t n = read(fd, sb->buf + sb->len, sb->alloc - sb->len - 1);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			int e = -errno;
			strbuf_setlen(sb, start);
			return e;
		}
		if (n == 0)
			break;
		sb->len += (size_t)n;
		sb->buf[sb->len] = '\0';
		if (max && sb->len - start > max) {
			strbuf_setlen(sb, start);
			return -CIX_ELIMIT;
		}
	}
	return 0;
}

int strbuf_read_fd(struct strbuf *sb, int fd)
{
	return read_fd_max(sb, fd, 0);
}

int strbuf_read_file(struct strbuf *sb, const char *path, size_t max)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	int r = read_fd_max(sb, fd, max);
	close(fd);
	return r;
}

void strbuf_add_tab_escaped(struct strbuf *sb, const char *s)
{
	for (; s && *s; s++) {
		if (*s == '\\')
			strbuf_addstr(sb, "\\\\");
		else if (*s == '\t')
			strbuf_addstr(sb, "\\t");
		else if (*s == '\n')
			strbuf_addstr(sb, "\\n");
		else
			strbuf_addch(sb, *s);
	}
}

const char *strbuf_tab_split(const char *p, size_t len, char **f, size_t max, size_t *nr)
{
	struct strbuf cur = STRBUF_INIT;
	const char *why = NULL;
	size_t n = 0;
	for (size_t i = 0; i <= len; i++) {
		if (i == len || p[i] == '\t') {
			if (n == max) {
				why = "too many fields";
				goto bad;
			}
			f[n++] = strbuf_detach(&cur, NULL);
			continue;
		}
		if (!p[i]) {
			why = "a NUL byte";
			goto bad;
		}
		if (p[i] != '\\') {
			strbuf_addch(&cur, p[i]);
			continue;
		}
		if (++i == len) {
			why = "a backslash at the end";
			goto bad;
		}
		if (p[i] == '\\')
			strbuf_addch(&cur, '\\');
		else if (p[i] == 't')
			strbuf_addch(&cur, '\t');
		else if (p[i] == 'n')
			strbuf_addch(&cur, '\n');
		else {
			why = "a bad escape";
			goto bad;
		}
	}
	*nr = n;
	return NULL;
bad:
	strbuf_release(&cur);
	for (size_t i = 0; i < n; i++)
		free(f[i]);
	return why;
}

const char *strbuf_tab_lines(const char *buf, size_t len, size_t max_line, size_t max_fields,
			     const char *(*head)(void *opaque, const char *line, size_t len),
			     const char *(*body)(void *opaque, char **f, size_t n),
			     void *opaque, size_t *lineno)
{
	char **f = xcalloc(max_fields ? max_fields : 1, sizeof(*f));
	const char *why = NULL;
	size_t pos = 0;

	*lineno = 0;
	while (!why && pos < len) {
		const char *nl = memchr(buf + pos, '\n', len - pos);
		size_t l = nl ? (size_t)(nl - (buf + pos)) : len - pos, n = 0;
		++*lineno;
		if (!nl)
			why = "no newline at the end";
		else if (l > max_line)
			why = "a line too long";
		else if (*lineno == 1)
			why = head(opaque, buf, l);
		else if (!(why = strbuf_tab_split(buf + pos, l, f, max_fields, &n))) {
			why = body(opaque, f, n);
			for (size_t i = 0; i < n; i++) {
				free(f[i]);
				f[i] = NULL;
			}
		}
		pos += l + 1;
	}
	if (!why && !*lineno)
		why = "empty";
	free(f);
	return why;
}
