/* nar-read.h - internal: the strict streaming NAR parser and its visitors */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef CIX_NAR_READ_H
#define CIX_NAR_READ_H

#include <stddef.h>
#include <stdint.h>
#include "nar.h"

/*
 * The parser validates each item completely before announcing it, so a
 * visitor never sees a bad name, an unsorted or duplicate entry, a bad
 * target or an over-deep node. Every callback may be NULL (ignored); a
 * negative return aborts the parse and is returned by it (fill err).
 *
 * Events, in NAR order:
 *   dir_start                  the current node is a directory
 *   entry(name)                an entry of the current directory; its node
 *                              follows (name: 1..255 bytes, NUL-terminated)
 *   dir_end                    the current directory is complete
 *   file_start(exec, size)     the current node is a regular file
 *   file_data(data, len)       its contents, in order, in chunks
 *   file_end                   its contents are complete
 *   symlink(target, len)       the current node is a symlink (NUL-terminated)
 * The first node is the root; it has no entry event.
 */
struct cix_nar_visitor {
	int (*dir_start)(void *opaque, struct cix_err *err);
	int (*entry)(void *opaque, const char *name, size_t len,
		     struct cix_err *err);
	int (*dir_end)(void *opaque, struct cix_err *err);
	int (*file_start)(void *opaque, int executable, uint64_t size,
			  struct cix_err *err);
	int (*file_data)(void *opaque, const void *data, size_t len,
			 struct cix_err *err);
	int (*file_end)(void *opaque, struct cix_err *err);
	int (*symlink)(void *opaque, const char *target, size_t len,
		       struct cix_err *err);
};

/*
 * Parse exactly one NAR from src, reading no byte past its end, and report
 * it to v (may be NULL). hash/size (may be NULL) receive the sha256 and
 * length of the bytes consumed, which are the whole NAR on success.
 */
int cix_nar_parse(cix_source_fn src, void *src_opaque,
		  const struct cix_nar_visitor *v, void *v_opaque,
		  struct cix_hash *hash, uint64_t *size, struct cix_err *err);

#endif
