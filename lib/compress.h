/* compress.h - NARs compressed and decompressed as streams: none, xz, zstd */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef CIX_COMPRESS_H
#define CIX_COMPRESS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "err.h"
#include "nar.h"

/*
 * The compressions of binary caches (narinfo's Compression:): "none", "xz"
 * (liblzma) and "zstd" (libzstd). Nix's caches also know bzip2, br, lz4
 * and lzip: those are refused (cix's caches write xz or zstd).
 */
enum cix_comp { CIX_COMP_NONE, CIX_COMP_XZ, CIX_COMP_ZSTD };

/* "xz", "zstd", "none"; with ":LEVEL" when level is given (may be NULL). */
int cix_comp_parse(const char *s, enum cix_comp *c, int *level, struct cix_err *err);
const char *cix_comp_name(enum cix_comp c);      /* "none", "xz", "zstd" */
const char *cix_comp_ext(enum cix_comp c);       /* "", ".xz", ".zst" */

/*
 * A compressing sink: what is written to it (cix_zsink_write, a
 * cix_sink_fn) goes out compressed to sink; cix_zsink_finish writes the
 * end of the stream. level < 0: the library's default. Errors of either
 * side are returned (and kept: the next calls fail too).
 */
struct cix_zsink;
struct cix_zsink *cix_zsink_new(enum cix_comp c, int level, cix_sink_fn sink, void *opaque);
int cix_zsink_write(void *zsink, const void *data, size_t len);
int cix_zsink_finish(struct cix_zsink *z, struct cix_err *err);
void cix_zsink_free(struct cix_zsink *z);

/*
 * A decompressing source reading compressed bytes from src: hostile input,
 * so at most max_out bytes come out (0: no bound), and what is not a whole
 * stream (truncated, corrupt, followed by other bytes) is an error.
 * cix_zsource_read is a cix_source_fn; cix_zsource_finish checks that the
 * compressed input ended with the stream. Errors: the negative code, its
 * message in cix_zsource_error ("cannot decompress 'WHAT': ...", what
 * quoted by the caller; NULL: no name).
 */
struct cix_zsource;
struct cix_zsource *cix_zsource_new(enum cix_comp c, cix_source_fn src, void *opaque,
				    uint64_t max_out, const char *what);
ssize_t cix_zsource_read(void *zsource, void *buf, size_t len);
int cix_zsource_finish(struct cix_zsource *z, struct cix_err *err);
const struct cix_err *cix_zsource_error(const struct cix_zsource *z);
void cix_zsource_free(struct cix_zsource *z);

#endif
