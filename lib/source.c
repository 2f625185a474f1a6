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
