/* nar-writer.h - internal: the buffer the NAR walk writes into */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef CIX_NAR_WRITER_H
#define CIX_NAR_WRITER_H

#include <stddef.h>
#include <stdint.h>
#include "err.h"

/*
 * The walk fills buf[len..cap); when it needs room it calls flush, which
 * must consume buf[0..len) and leave len == 0, or swap in another buf
 * holding those bytes first; either way with at least 64 bytes of room,
 * so that a token always fits. The walk's last flush may leave bytes
 * there: its owner consumes them.
 */
struct nar_writer {
	unsigned char *buf;
	size_t len, cap;
	int (*flush)(struct nar_writer *w);
};

/* Write the whole NAR of path (relative to dirfd) and flush at the end. */
int nar_writer_dump_at(struct nar_writer *w, int dirfd, const char *path,
		       struct cix_err *err);

#endif
