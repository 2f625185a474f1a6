/* nar-writer.h - internal: the buffer the NAR walk writes into */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef CIX_NAR_WRITER_H
#define CIX_NAR_WRITER_H

#include <stddef.h>
#include <stdint.h>
#include "err.h"

/*
 * The walk fills buf[len..cap); when it needs room it calls flush, which
 * must consume buf[0..len) and leave len == 0 (it may swap in another buf,
 * and must leave cap >= 64 so that a token always fits).
 *
 * If contents is set, the contents of regular files of at least
 * contents_min bytes are not read by the walk: it calls contents(w, fd,
 * size, name) instead, which must account for exactly size bytes of fd
 * (from offset 0) in the output, after everything already written to buf.
 * The walk still owns fd and closes it when contents returns.
 */
struct nar_writer {
	unsigned char *buf;
	size_t len, cap;
	int (*flush)(struct nar_writer *w);
	int (*contents)(struct nar_writer *w, int fd, uint64_t size, const char *name);
	uint64_t contents_min;
};

/* Write the whole NAR of path (relative to dirfd) and flush at the end. */
int nar_writer_dump_at(struct nar_writer *w, int dirfd, const char *path,
		       struct cix_err *err);

#endif
