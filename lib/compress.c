/* compress.c - NARs compressed and decompressed as streams: none, xz, zstd */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "compress.h"
#include "util.h"

#include <errno.h>
#include <stdio.h>
#include <lzma.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zstd.h>

#define CHUNK (64 * 1024)
/* liblzma may use this much memory to decode (xz -9 needs 65 MiB). */
#define XZ_MEMLIMIT (256ULL << 20)
/* zstd windows larger than 2^27 (128 MiB) are refused: memory, not data. */
#define ZSTD_MAX_WINDOW_LOG 27
/*
 * xz is written in blocks of 8 MiB, each compressed on its own by the
 * threads there are (the same bytes whatever their number), so that a
 * reader with several cores decompresses them in parallel too; at most
 * XZ_MAX_THREADS threads on either side.
 */
#define XZ_BLOCK_SIZE (8ULL << 20)
#define XZ_MAX_THREADS 8
/* A reader uses fewer threads rather than more than this (about 24 MiB each). */
#define XZ_MT_MEMLIMIT (128ULL << 20)

static uint32_t xz_threads(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n < 1 ? 1 : n > XZ_MAX_THREADS ? XZ_MAX_THREADS : (uint32_t)n;
}

int cix_comp_parse(const char *s, enum cix_comp *c, int *level, struct cix_err *err)
{
	const char *colon = strchr(s, ':');
	size_t n = colon ? (size_t)(colon - s) : strlen(s);
	unsigned long long l = 0;
	if (n == 4 && !memcmp(s, "none", 4))
		*c = CIX_COMP_NONE;
	else if (n == 2 && !memcmp(s, "xz", 2))
		*c = CIX_COMP_XZ;
	else if (n == 4 && !memcmp(s, "zstd", 4))
		*c = CIX_COMP_ZSTD;
	else
		return cix_error(err, -CIX_EINVAL, "unknown compression '%.*s' (none, xz or zstd)",
				 (int)(n > 32 ? 32 : n), s);
	if (level)
		*level = -1;
	if (colon) {
		unsigned long long max = *c == CIX_COMP_XZ ? 9 : *c == CIX_COMP_ZSTD ? 19 : 0;
		if (!level || cix_parse_decimal(colon + 1, max, &l) < 0)
			return cix_error(err, -CIX_EINVAL, "invalid compression level in '%s' "
					 "(0 to %llu)", s, max);
		*level = (int)l;
	}
	return 0;
}

const char *cix_comp_name(enum cix_comp c)
{
	return c == CIX_COMP_XZ ? "xz" : c == CIX_COMP_ZSTD ? "zstd" : "none";
}

const char *cix_comp_ext(enum cix_comp c)
{
	return c == CIX_COMP_XZ ? ".xz" : c == CIX_COMP_ZSTD ? ".zst" : "";
}

/* ---- compressing ---- */

struct cix_zsink {
	enum cix_comp c;
	cix_sink_fn sink;
	void *opaque;
	lzma_stream xz;
	ZSTD_CCtx *zs;
	int error, finished;
	unsigned char out[CHUNK];
};

struct cix_zsink *cix_zsink_new(enum cix_comp c, int level, cix_sink_fn sink, void *opaque)
{
	struct cix_zsink *z = xcalloc(1, sizeof(*z));
	z->c = c;
	z->sink = sink;
	z->opaque = opaque;
	if (c == CIX_COMP_XZ) {
		z->xz = (lzma_stream)LZMA_STREAM_INIT;
		lzma_mt mt = { .threads = xz_threads(), .block_size = XZ_BLOCK_SIZE,
			       .preset = level < 0 ? 6 : (uint32_t)level, .check = LZMA_CHECK_CRC64 };
		if (lzma_stream_encoder_mt(&z->xz, &mt) != LZMA_OK)
			z->error = -ENOMEM;
	} else if (c == CIX_COMP_ZSTD) {
		if (!(z->zs = ZSTD_createCCtx()))
			z->error = -ENOMEM;
		else if (level >= 0)
			ZSTD_CCtx_setParameter(z->zs, ZSTD_c_compressionLevel, level);
		/* A checksum of the content, as xz has: damage is seen before the NAR's hash. */
		if (z->zs)
			ZSTD_CCtx_setParameter(z->zs, ZSTD_c_checksumFlag, 1);
	}
	return z;
}

/* Feed len bytes (finishing: the end of the stream) and pass on what comes out. */
static int zsink_run(struct cix_zsink *z, const void *data, size_t len, int finishing)
{
	if (z->c == CIX_COMP_XZ) {
		z->xz.next_in = data;
		z->xz.avail_in = len;
		for (;;) {
			z->xz.next_out = z->out;
			z->xz.avail_out = sizeof(z->out);
			lzma_ret ret = lzma_code(&z->xz, finishing ? LZMA_FINISH : LZMA_RUN);
			size_t n = sizeof(z->out) - z->xz.avail_out;
			if (ret != LZMA_OK && ret != LZMA_STREAM_END)
				return z->error = ret == LZMA_MEM_ERROR ? -ENOMEM : -EIO;
			if (n && (z->error = z->sink(z->opaque, z->out, n)) < 0)
				return z->error;
			if (finishing ? ret == LZMA_STREAM_END : !z->xz.avail_in && z->xz.avail_out)
				return 0;
		}
	}
	ZSTD_inBuffer in = { data, len, 0 };
	for (;;) {
		ZSTD_outBuffer o = { z->out, sizeof(z->out), 0 };
		size_t left = ZSTD_compressStream2(z->zs, &o, &in,
						   finishing ? ZSTD_e_end : ZSTD_e_continue);
		if (ZSTD_isError(left))
			return z->error = -EIO;
		if (o.pos && (z->error = z->sink(z->opaque, z->out, o.pos)) < 0)
			return z->error;
		if (finishing ? left == 0 : in.pos == in.size)
			return 0;
	}
}

int cix_zsink_write(void *zsink, const void *data, size_t len)
{
	struct cix_zsink *z = zsink;
	if (z->error)
		return z->error;
	if (z->finished)
		return z->error = -EINVAL;
	if (z->c == CIX_COMP_NONE)
		return len ? (z->error = z->sink(z->opaque, data, len)) : 0;
	return len ? zsink_run(z, data, len, 0) : 0;
}

int cix_zsink_finish(struct cix_zsink *z, struct cix_err *err)
{
	if (!z->error && !z->finished && z->c != CIX_COMP_NONE)
		zsink_run(z, NULL, 0, 1);
	z->finished = 1;
	if (z->error)
		return cix_error(err, z->error, "cannot compress (%s)", cix_comp_name(z->c));
	return 0;
}

void cix_zsink_free(struct cix_zsink *z)
{
	if (!z)
		return;
	if (z->c == CIX_COMP_XZ)
		lzma_end(&z->xz);
	ZSTD_freeCCtx(z->zs);
	free(z);
}

/* ---- decompressing ---- */

struct cix_zsource {
	enum cix_comp c;
	cix_source_fn src;
	void *opaque;
	lzma_stream xz;
	ZSTD_DCtx *zd;
	size_t zpending;               /* zstd: more output owed, or the frame not done */
	int in_eof, end, started;
	uint64_t out, max;
	struct cix_err err;
	char what[160];                /* " 'WHAT'" for the messages, or "" */
	size_t in_pos, in_len;
	unsigned char in[CHUNK];
};

static const char *xz_what(lzma_ret ret)
{
	switch (ret) {
	case LZMA_MEM_ERROR: return "out of memory";
	case LZMA_MEMLIMIT_ERROR: return "needs more memory than allowed";
	case LZMA_FORMAT_ERROR: return "not in the xz format";
	case LZMA_OPTIONS_ERROR: return "unsupported xz options";
	case LZMA_DATA_ERROR: return "corrupt xz data";
	case LZMA_BUF_ERROR: return "truncated xz data";
	default: return "xz decompression failed";
	}
}

struct cix_zsource *cix_zsource_new(enum cix_comp c, cix_source_fn src, void *opaque,
				    uint64_t max_out, const char *what)
{
	struct cix_zsource *z = xcalloc(1, sizeof(*z));
	if (what)
		snprintf(z->what, sizeof(z->what), " '%s'", what);
	z->c = c;
	z->src = src;
	z->opaque = opaque;
	z->max = max_out;
	if (c == CIX_COMP_XZ) {
		lzma_ret ret;
		z->xz = (lzma_stream)LZMA_STREAM_INIT;
		lzma_mt mt = { .flags = LZMA_CONCATENATED, .threads = xz_threads(),
			       .memlimit_threading = XZ_MT_MEMLIMIT, .memlimit_stop = XZ_MEMLIMIT };
		ret = lzma_stream_decoder_mt(&z->xz, &mt);
		if (ret != LZMA_OK)
			cix_error(&z->err, -ENOMEM, "cannot start xz decompression: %s", xz_what(ret));
	} else if (c == CIX_COMP_ZSTD) {
		if (!(z->zd = ZSTD_createDCtx()))
			cix_error(&z->err, -ENOMEM, "cannot start zstd decompression");
		else
			ZSTD_DCtx_setParameter(z->zd, ZSTD_d_windowLogMax, ZSTD_MAX_WINDOW_LOG);
	}
	return z;
}

/* More compressed input, when all of it was used; 0, or the source's error. */
static int fill(struct cix_zsource *z)
{
	if (z->in_pos < z->in_len || z->in_eof)
		return 0;
	ssize_t n = z->src(z->opaque, z->in, sizeof(z->in));
	if (n < 0)
		return cix_error(&z->err, (int)n, "cannot read%s", z->what);
	z->in_pos = 0;
	z->in_len = (size_t)n;
	z->in_eof = n == 0;
	return 0;
}

static ssize_t xz_read(struct cix_zsource *z, void *buf, size_t len)
{
	z->xz.next_out = buf;
	z->xz.avail_out = len;
	while (z->xz.avail_out == len && !z->end) {
		if (fill(z) < 0)
			return z->err.code;
		z->xz.next_in = z->in + z->in_pos;
		z->xz.avail_in = z->in_len - z->in_pos;
		lzma_ret ret = lzma_code(&z->xz, z->in_eof ? LZMA_FINISH : LZMA_RUN);
		z->in_pos = z->in_len - z->xz.avail_in;
		if (ret == LZMA_STREAM_END)
			z->end = 1;
		else if (ret != LZMA_OK)
			return cix_error(&z->err, ret == LZMA_MEM_ERROR ? -ENOMEM : -CIX_EFORMAT,
					 "cannot decompress%s: %s", z->what, xz_what(ret));
	}
	return (ssize_t)(len - z->xz.avail_out);
}

static ssize_t zstd_read(struct cix_zsource *z, void *buf, size_t len)
{
	ZSTD_outBuffer o = { buf, len, 0 };
	while (!o.pos && !z->end) {
		if (fill(z) < 0)
			return z->err.code;
		if (z->in_eof && z->in_pos == z->in_len) {
			if (!z->started || z->zpending)
				return cix_error(&z->err, -CIX_EFORMAT,
						 "cannot decompress%s: truncated zstd data",
						 z->what);
			z->end = 1;
			break;
		}
		ZSTD_inBuffer in = { z->in + z->in_pos, z->in_len - z->in_pos, 0 };
		size_t r = ZSTD_decompressStream(z->zd, &o, &in);
		z->in_pos += in.pos;
		z->started = 1;
		if (ZSTD_isError(r))
			return cix_error(&z->err, -CIX_EFORMAT, "cannot decompress%s: %s",
					 z->what, ZSTD_getErrorName(r));
		z->zpending = r;
	}
	return (ssize_t)o.pos;
}

ssize_t cix_zsource_read(void *zsource, void *buf, size_t len)
{
	struct cix_zsource *z = zsource;
	ssize_t got;
	if (z->err.code)
		return z->err.code;
	if (!len)
		return 0;
	if (z->c == CIX_COMP_NONE) {
		if ((got = z->src(z->opaque, buf, len)) < 0)
			return cix_error(&z->err, (int)got, "cannot read%s", z->what);
	} else if (z->c == CIX_COMP_XZ) {
		got = xz_read(z, buf, len);
	} else {
		got = zstd_read(z, buf, len);
	}
	if (got < 0)
		return got;
	if (z->max && ((uint64_t)got > z->max || z->out > z->max - (uint64_t)got))
		return cix_error(&z->err, -CIX_ELIMIT, "cannot decompress%s: larger than %llu bytes",
				 z->what, (unsigned long long)z->max);
	z->out += (uint64_t)got;
	return got;
}

int cix_zsource_finish(struct cix_zsource *z, struct cix_err *err)
{
	unsigned char b;
	ssize_t n = z->err.code ? z->err.code : cix_zsource_read(z, &b, 1);
	if (n == 0 && z->c != CIX_COMP_NONE && (fill(z) < 0 || z->in_pos < z->in_len))
		n = z->err.code ? z->err.code
				: cix_error(&z->err, -CIX_EFORMAT,
					    "trailing data after the compressed data%s", z->what);
	if (n > 0)
		n = cix_error(&z->err, -CIX_EFORMAT, "trailing data after the data%s", z->what);
	if (n < 0) {
		if (err)
			*err = z->err;
		return (int)n;
	}
	return 0;
}

const struct cix_err *cix_zsource_error(const struct cix_zsource *z)
{
	return &z->err;
}

void cix_zsource_free(struct cix_zsource *z)
{
	if (!z)
		return;
	if (z->c == CIX_COMP_XZ)
		lzma_end(&z->xz);
	ZSTD_freeDCtx(z->zd);
	free(z);
}
