/* substitute.h - store paths installed from a binary cache instead of built */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef CIX_SUBSTITUTE_H
#define CIX_SUBSTITUTE_H

#include "err.h"
#include "fetch.h"
#include "sign.h"

struct cix_store;

/*
 * A binary cache (http://, https:// or file://, as `cix publish` serves and
 * `nix copy --to file://` writes) and the keys trusted to sign for it.
 */
struct cix_substituter {
	const char *url;                    /* without a trailing slash */
	const struct cix_public_key *keys;  /* trusted keys (the ACL) */
	size_t nr_keys;
	struct cix_fetch_opts fetch;        /* timeouts, progress, size bounds */
};

/*
 * Install path and what it refers to (the references first) from the
 * cache: for each path not valid yet, its narinfo is fetched and must be
 * for that path, signed by a trusted key over Nix's fingerprint (a
 * content-addressed path may be unsigned: its content is checked against
 * its address), its NAR fetched (its FileHash checked when given),
 * decompressed (none, xz, zstd; at most NarSize bytes), and added with its
 * NarHash and NarSize checked and the narinfo's references and signatures
 * registered. 1: done; 0: the cache does not have path (or one it needs);
 * < 0: the cache has it but it cannot be trusted or fetched (nothing of
 * that path is registered).
 */
int cix_substitute(struct cix_store *s, const struct cix_substituter *sub, const char *path,
		   struct cix_err *err);

#endif
