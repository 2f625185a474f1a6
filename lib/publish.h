/* publish.h - the store served over HTTP as a binary cache (libmicrohttpd) */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef CIX_PUBLISH_H
#define CIX_PUBLISH_H

#include "compress.h"
#include "err.h"
#include "sign.h"
#include "strbuf.h"

struct cix_store;

/*
 * What a binary cache of Nix's kind serves, from the local store:
 *
 *   GET /nix-cache-info        StoreDir, WantMassQuery: 1, Priority: 40
 *   GET /HASHPART.narinfo      the narinfo of the valid path of that hash
 *                              (lib/narinfo.h), signed when a key is given
 *   GET /nar/HASHPART.nar[EXT] its NAR, compressed (EXT: .zst, .xz, none)
 *
 * Anything else is 404 (405 for methods but GET and HEAD). Without a cache
 * directory NARs are compressed as they are sent, and narinfos have no
 * FileHash/FileSize; with one, a NAR is compressed once into
 * DIR/nar/HASHPART.nar[EXT] (with DIR/nar/HASHPART.nar[EXT].meta: its
 * hash and size) before its narinfo is given, and sent from there; the
 * narinfo is written to DIR/HASHPART.narinfo too, and DIR/nix-cache-info
 * at start: DIR is a static binary cache of what was asked for.
 * Each connection has its own thread.
 */
struct cix_publish_opts {
	unsigned port;                 /* 0: any free port */
	const char *address;           /* IPv4 dotted quad */
	enum cix_comp comp;
	int level;                     /* < 0: the default */
	const char *cache_dir;         /* NULL: none */
	unsigned long ttl;             /* seconds, 0: no Cache-Control */
	int signing;
	struct cix_secret_key key;
};

struct cix_publish;

int cix_publish_start(const struct cix_publish_opts *o, struct cix_publish **out,
		      struct cix_err *err);
unsigned cix_publish_port(const struct cix_publish *p);
const char *cix_publish_store_dir(const struct cix_publish *p);
void cix_publish_stop(struct cix_publish *p);

/*
 * The narinfo text of the valid path path (in s), its NAR at url, with the
 * file hash and size when file_hash is not NULL, signed with key when not
 * NULL.
 */
struct cix_hash;
int cix_publish_narinfo(struct cix_store *s, const char *path, const char *url,
			enum cix_comp comp, const struct cix_hash *file_hash, uint64_t file_size,
			const struct cix_secret_key *key, struct strbuf *out, struct cix_err *err);

/*
 * Write the valid path into the cache directory o->cache_dir, as cix
 * publish --cache does when it is asked for it: its NAR compressed (once),
 * its narinfo (signed when o->signing), and nix-cache-info if missing;
 * the narinfo's text appended to out when not NULL.
 */
int cix_publish_to_cache(struct cix_store *s, const struct cix_publish_opts *o, const char *path,
			 struct strbuf *out, struct cix_err *err);

#endif
