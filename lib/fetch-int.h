/* fetch-int.h - internals shared by fetch.c (transfers) and fetch-url.c (candidates) */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef CIX_FETCH_INT_H
#define CIX_FETCH_INT_H

#include <stdint.h>
#include "fetch.h"
#include "fetch-progress.h"
#include "hash.h"

/* One transfer: where its bytes go, their hash and size, its progress. */
struct xfer {
	int fd;
	cix_sink_fn sink;             /* when not NULL, the data go there, not to fd */
	void *sink_opaque;
	int hashing;
	struct cix_hash_ctx hctx;
	uint64_t size, max;
	int werr;                     /* why the write callback stopped */
	struct cix_fetch_progress progress;
	const char *url;
	void *curl;                   /* the transfer's CURL handle */
};

/* Printable ASCII only, at most 8 KiB: 0, or -CIX_EINVAL said. */
int cix_fetch_url_check(const char *url, struct cix_err *err);
/* http, https, ftp, or file when opts allow it. */
int cix_fetch_check_scheme(const char *url, const struct cix_fetch_opts *opts,
			   struct cix_err *err);
int cix_fetch_has_prefix_ci(const char *s, const char *prefix);
/*
 * src into x: a local regular file when local, else a URL (expanded, its
 * scheme checked): file:// read here, the others through curl. With flat,
 * the flat hash of the bytes (flat's algorithm) goes into *got.
 */
int cix_fetch_xfer(const char *src, int local, struct xfer *x, const struct cix_fetch_opts *opts,
		   const struct cix_hash *flat, struct cix_hash *got, struct cix_err *err);
/* 0 if got is expected, else -CIX_EMISMATCH saying both for url_for_msg. */
int cix_fetch_check_hash(const struct cix_hash *expected, const struct cix_hash *got,
			 const char *url_for_msg, struct cix_err *err);

#endif
