/* bz2.c - bzip2 streams: the format of build logs Nix's clients read */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "bz2.h"

#include <bzlib.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

struct cix_bz2_out {
	bz_stream z;
	int fd;
	int error;
	char buf[65536];
};

struct cix_bz2_out *cix_bz2_out_new(int fd)
{
	struct cix_bz2_out *o = xcalloc(1, sizeof(*o));
	o->fd = fd;
	/* 900k blocks, as bzip2(1) makes them */
	if (BZ2_bzCompressInit(&o->z, 9, 0, 0) != BZ_OK)
		BUG("cannot start a bzip2 stream");
	return o;
}

/* Run the compressor with action until it has taken all of its input (or ended). */
static void run(struct cix_bz2_out *o, int action)
{
	int ret;
	do {
		o->z.next_out = o->buf;
		o->z.avail_out = sizeof(o->buf);
		ret = BZ2_bzCompress(&o->z, action);
		if (ret < 0) {
			o->error = -CIX_EFORMAT;
			return;
		}
		size_t n = sizeof(o->buf) - o->z.avail_out;
		if (n && !o->error) {
			int r = cix_write_full(o->fd, o->buf, n);
			if (r < 0)
				o->error = r;
		}
	} while (action == BZ_RUN ? o->z.avail_in > 0 : ret != BZ_STREAM_END);
}

void cix_bz2_out_write(struct cix_bz2_out *o, const void *data, size_t len)
{
	const char *p = data;
	while (len) {
		/* avail_in is an unsigned int */
		unsigned k = len > (1u << 30) ? 1u << 30 : (unsigned)len;
		o->z.next_in = (char *)p;
		o->z.avail_in = k;
		run(o, BZ_RUN);
		p += k;
		len -= k;
	}
}

int cix_bz2_out_finish(struct cix_bz2_out *o)
{
	int r;
	o->z.next_in = NULL;
	o->z.avail_in = 0;
	run(o, BZ_FINISH);
	r = o->error;
	BZ2_bzCompressEnd(&o->z);
	free(o);
	return r;
}

/* One stream from in (at most avail bytes); returns the bytes it took, or an error. */
static long one_stream(const char *in, size_t avail, struct strbuf *out, size_t max,
		       struct cix_err *err)
{
	bz_stream z;
	int ret = BZ_OK;
	memset(&z, 0, sizeof(z));
	if (BZ2_bzDecompressInit(&z, 0, 0) != BZ_OK)
		BUG("cannot start a bzip2 decompressor");
	z.next_in = (char *)in;
	z.avail_in = avail > UINT_MAX ? UINT_MAX : (unsigned)avail;
	while (ret != BZ_STREAM_END) {
		strbuf_grow(out, 65536);
		z.next_out = out->buf + out->len;
		z.avail_out = (unsigned)(out->alloc - out->len - 1 > 1u << 30 ? 1u << 30
					 : out->alloc - out->len - 1);
		unsigned before = z.avail_out;
		ret = BZ2_bzDecompress(&z);
		strbuf_setlen(out, out->len + (before - z.avail_out));
		if (ret != BZ_OK && ret != BZ_STREAM_END) {
			BZ2_bzDecompressEnd(&z);
			return cix_error(err, -CIX_EFORMAT, "not bzip2 data (error %d)", ret);
		}
		if (out->len > max) {
			BZ2_bzDecompressEnd(&z);
			return cix_error(err, -CIX_ELIMIT, "more than %zu bytes decompressed", max);
		}
		if (ret == BZ_OK && !z.avail_in && before == z.avail_out) {
			BZ2_bzDecompressEnd(&z);
			return cix_error(err, -CIX_EFORMAT, "bzip2 data cut short");
		}
	}
	long used = (long)((const char *)z.next_in - in);
	BZ2_bzDecompressEnd(&z);
	return used;
}

int cix_bz2_decompress(const void *buf, size_t len, struct strbuf *out, size_t max,
		       struct cix_err *err)
{
	const char *p = buf;
	if (!len)
		return cix_error(err, -CIX_EFORMAT, "empty bzip2 data");
	while (len) {
		long used = one_stream(p, len, out, max, err);
		if (used < 0)
			return (int)used;
		p += used;
		len -= (size_t)used;
	}
	return 0;
}
