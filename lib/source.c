/* source.c - byte sources over memory and file descriptors */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "nar.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

ssize_t cix_mem_source_read(void *opaque, void *buf, size_t len)
{
	struct cix_mem_source *m = opaque;
	size_t n = m->len - m->pos < len ? m->len - m->pos : len;
	if (n)
		memcpy(buf, m->data + m->pos, n);
	m->pos += n;
	return (ssize_t)n;
}

ssize_t cix_fd_source_read(void *opaque, void *buf, size_t len)
{
	int fd = *(int *)opaque;
	for (;;) {
		ssize_t n = read(fd, buf, len);
		if (n >= 0 || errno != EINTR)
			return n < 0 ? -errno : n;
	}
}

ssize_t cix_buf_source_read(void *opaque, void *buf, size_t len)
{
	struct cix_buf_source *s = opaque;
	if (s->pos == s->len) {
		/* A large request skips the buffer. */
		if (len >= sizeof(s->buf))
			return cix_fd_source_read(&s->fd, buf, len);
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
