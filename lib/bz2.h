/* bz2.h - bzip2 streams: the format of build logs Nix's clients read */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef CIX_BZ2_H
#define CIX_BZ2_H

#include <stddef.h>
#include "err.h"
#include "strbuf.h"

/* A bzip2 stream written to fd as data comes. */
struct cix_bz2_out;

struct cix_bz2_out *cix_bz2_out_new(int fd);
/* Append; errors are remembered and reported by finish. */
void cix_bz2_out_write(struct cix_bz2_out *o, const void *data, size_t len);
/* End the stream and free o (fd stays open): 0 or the first error. */
int cix_bz2_out_finish(struct cix_bz2_out *o);

/*
 * Append the decompressed data of buf (one or more bzip2 streams) to
 * out: -CIX_EFORMAT when it is not bzip2 or cut short, -CIX_ELIMIT when
 * more than max bytes come out.
 */
int cix_bz2_decompress(const void *buf, size_t len, struct strbuf *out, size_t max,
		       struct cix_err *err);

#endif
