/* fetch.h - downloads for fixed-output derivations and builtin:fetchurl */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef CIX_FETCH_H
#define CIX_FETCH_H

#include <stddef.h>
#include <stdint.h>
#include "err.h"
#include "hash.h"
#include "nar.h"

/* The system-wide mirror list read by default. */
#define CIX_MIRRORS_FILE "/etc/cix/mirrors"

/* At most this many redirects are followed. */
#define CIX_FETCH_MAX_REDIRECTS 10

struct cix_fetch_opts {
	/*
	 * NULL-terminated list of mirror files (NULL: none). Each line is
	 * "NAME URL-PREFIX..." ('#' starts a comment); mirror://NAME/REST
	 * expands to PREFIX/REST for each prefix of NAME, in file order.
	 * A missing file counts as empty.
	 */
	const char *const *mirror_files;
	/*
	 * NULL-terminated list of content-addressed mirrors, tried first when
	 * the expected flat hash is known: a directory DIR is looked up as the local
	 * file DIR/ALGO/BASE16, a URL prefix (holding "://") as PREFIX/ALGO/BASE16
	 * (Nix's hashed-mirrors).
	 */
	const char *const *cas_dirs;
	int progress_fd;        /* -1: none; else one updating line, if a terminal */
	long timeout_s;         /* whole transfer; 0: none (stalls still time out) */
	long connect_timeout_s; /* 0: 30 seconds */
	int allow_file;         /* accept file:// URLs */
	uint64_t max_size;      /* 0: no limit on the downloaded size */
	/*
	 * CA bundle to verify servers against (NULL: the system's). TLS
	 * verification itself can never be turned off.
	 */
	const char *ca_file;
	/*
	 * On a hash mismatch of a download, stop there and keep dest (still
	 * returning -CIX_EMISMATCH), so that the caller can register the
	 * content under its true hash as Nix does.
	 */
	int keep_mismatch;
};

/* Defaults: no mirrors, no progress, file:// allowed, no size limit. */
void cix_fetch_opts_init(struct cix_fetch_opts *opts);

/*
 * Download url (http, https with the server always verified, ftp, file
 * naming a regular file on this host, or mirror://NAME/REST) into dest, a
 * new file created with O_EXCL and O_NOFOLLOW, mode 0644 (0755 if
 * executable). Redirects are followed up to CIX_FETCH_MAX_REDIRECTS; once
 * on https, only to https; HTTP status >= 400 fails; no credentials are
 * read from a netrc.
 *
 * When expected is not NULL, the result is checked: the flat hash of the
 * file, or with recursive the hash of its NAR (a single regular file,
 * executable if asked). When one candidate URL fails the next is tried.
 * For a flat expected hash the content-addressed mirrors are tried first.
 * On any failure dest is removed; a wrong hash gives -CIX_EMISMATCH and
 * the one-line message
 * "hash mismatch for 'URL': expected sha256:NIX32, got sha256:NIX32"
 * (with opts->keep_mismatch, dest is then kept).
 */
int cix_fetch_url(const char *url, const char *dest, const struct cix_hash *expected,
		  int recursive, int executable, const struct cix_fetch_opts *opts,
		  struct cix_err *err);

/*
 * Download one url (http, https, ftp, or file when allowed; no mirror://,
 * no content-addressed mirrors) and hand its bytes to sink as they arrive,
 * as cix_fetch_url would write them (the same checks, redirects, bounds
 * and progress). A negative return of sink stops the transfer and is
 * returned. When expected is not NULL, the flat hash of all the bytes is
 * checked after the last one went to sink (a mismatch: -CIX_EMISMATCH, as
 * cix_fetch_url says it): a sink must not take its data for good before
 * this returned 0.
 */
int cix_fetch_stream(const char *url, cix_sink_fn sink, void *opaque,
		     const struct cix_hash *expected, const struct cix_fetch_opts *opts,
		     struct cix_err *err);

/*
 * Expand url into the list of URLs to try: mirror://NAME/REST from the
 * mirror files, anything else as itself. *urls is a NULL-terminated array
 * of *n strings, freed with cix_fetch_free_urls.
 */
int cix_fetch_expand_url(const char *url, const struct cix_fetch_opts *opts,
			 char ***urls, size_t *n, struct cix_err *err);
void cix_fetch_free_urls(char **urls);

/*
 * Parse a hash as a derivation states it (outputHash and outputHashAlgo):
 * "ALGO:HASH", an SRI "ALGO-BASE64", or HASH in base16, nix-base32 or
 * base64 with algo naming the algorithm (a leading "r:" is ignored). An
 * empty hash with a known algo gives an all-zero hash (which then never
 * matches, so the error tells the right one, as Nix does).
 */
int cix_fetch_parse_hash(const char *algo, const char *hash, struct cix_hash *out,
			 struct cix_err *err);

/*
 * Nix's builtin:fetchurl for a derivation with environment (keys[i],
 * values[i]), i < n: downloads env "url" into out_real (the real location
 * of the output "out"); with unpack=1 the download is a NAR restored there;
 * executable=1 makes the file executable. With outputHashMode "flat", the
 * content-addressed mirrors are tried first. When outputHash is set the
 * result is checked as cix_fetch_url does (recursive for outputHashMode
 * "recursive"), and on a mismatch out_real is removed (kept with
 * opts->keep_mismatch).
 */
int cix_builtin_fetchurl(const char *const *keys, const char *const *values, size_t n,
			 const char *out_real, const struct cix_fetch_opts *opts,
			 struct cix_err *err);

#endif
