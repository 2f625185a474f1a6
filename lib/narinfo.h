/* narinfo.h - binary-cache metadata: .narinfo files and nix-cache-info */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef CIX_NARINFO_H
#define CIX_NARINFO_H

#include <stddef.h>
#include <stdint.h>

#include "err.h"
#include "hash.h"
#include "strbuf.h"
#include "strvec.h"

/*
 * A binary cache (Nix's file:// or http:// store) holds, for each path,
 * HASHPART.narinfo: lines "Key: value\n". Nix 2.8 writes them in the order
 *
 *   StorePath: STOREDIR/HASH-NAME
 *   URL: nar/FILEHASH.nar[.xz|...]
 *   Compression: none|xz|bzip2|...
 *   FileHash: sha256:NIXBASE32
 *   FileSize: N
 *   NarHash: sha256:NIXBASE32
 *   NarSize: N
 *   References: BASENAME... (space-separated, sorted, maybe none)
 *   Deriver: BASENAME        (when known)
 *   System: SYSTEM           (when known)
 *   Sig: KEYNAME:BASE64      (one line each, sorted)
 *   CA: text:sha256:...|fixed:[r:]ALGO:...  (content-addressed paths)
 *
 * Reading follows Nix 2.8 (nar-info.cc): unknown keys are ignored (and not
 * kept); a repeated key replaces the earlier value, except References and
 * CA (a second non-empty one is refused) and Sig (each adds one); a missing
 * or empty Compression means "bzip2"; "Deriver: unknown-deriver" means none;
 * hashes may be written in nix-base32, base16 or base64, prefixed
 * "ALGO:", or SRI ("sha256-BASE64"). StorePath, URL, NarHash (sha256) and
 * a non-zero NarSize are required. cix is stricter than Nix on the lines
 * themselves: each must be "Key: value" ended by a newline, with no NUL
 * byte; sizes must be plain decimal numbers.
 */

/*
 * Bounds. The References line is bounded by the number of references only
 * (100,000 basenames may take 24.5 MB); the whole file by a size above
 * anything cix_narinfo_format can write for a parsed narinfo (about 32
 * MB: references, 100 signatures and the other lines at their longest), so
 * that what is formatted always parses again.
 */
#define CIX_NARINFO_MAX_SIZE (32u << 20)  /* the whole file */
#define CIX_NARINFO_MAX_LINE (64u << 10)  /* any line but References */
#define CIX_NARINFO_MAX_REFS 100000
#define CIX_NARINFO_MAX_SIGS 100

struct cix_narinfo {
	char *store_path;          /* full: STOREDIR/HASH-NAME */
	char *url;
	char *compression;         /* "bzip2" when the file has none */
	int has_file_hash;
	struct cix_hash file_hash; /* any algorithm */
	int has_file_size;
	uint64_t file_size;
	struct cix_hash nar_hash;  /* sha256 */
	uint64_t nar_size;         /* > 0 */
	struct strvec refs;        /* basenames, in the file's order */
	char *deriver;             /* basename, or NULL */
	char *system;              /* or NULL */
	struct strvec sigs;        /* "KEYNAME:BASE64", in the file's order */
	char *ca;                  /* as Nix renders it (nix-base32), or NULL */
};

#define CIX_NARINFO_INIT { 0 }

/* Free the contents; ni is empty (all zero) again. */
void cix_narinfo_release(struct cix_narinfo *ni);

/*
 * Parse len bytes of a .narinfo (hostile input) whose StorePath must be in
 * store_dir. On success ni holds malloc'd copies (cix_narinfo_release frees
 * them); on error it is left empty and -CIX_EFORMAT or -CIX_ELIMIT returned.
 */
int cix_narinfo_parse(const char *buf, size_t len, const char *store_dir,
		      struct cix_narinfo *ni, struct cix_err *err);

/*
 * Append the text Nix writes for ni. As Nix keeps references and signatures
 * in sets, they are written sorted bytewise, each once. FileHash and
 * FileSize are written only when present (Nix always has them); hashes in
 * nix-base32. store_dir is that of ni->store_path (which is written whole).
 */
void cix_narinfo_format(const struct cix_narinfo *ni, const char *store_dir,
			struct strbuf *out);

/*
 * Append what a signature signs (Nix's ValidPathInfo::fingerprint):
 * "1;STOREPATH;sha256:NIXBASE32;NARSIZE;REF,REF..." with the references as
 * full paths in store_dir, sorted, each once. -CIX_EINVAL when ni has no
 * NAR size or no sha256 NAR hash.
 */
int cix_narinfo_fingerprint(const struct cix_narinfo *ni, const char *store_dir,
			    struct strbuf *out, struct cix_err *err);

/* The same for a path (full) with its NAR hash and size and references (full paths). */
int cix_path_fingerprint(const char *store_dir, const char *path, const struct cix_hash *nar_hash,
			 uint64_t nar_size, const char *const *refs, size_t nr_refs,
			 struct strbuf *out, struct cix_err *err);

/*
 * A cache's nix-cache-info. Nix writes only "StoreDir: DIR"; caches may
 * add "WantMassQuery: 1" and "Priority: N". As Nix reads it: lines without
 * a colon and unknown keys are ignored, values are trimmed of blanks,
 * WantMassQuery is true exactly when it is "1". Two different StoreDir
 * values are refused (Nix would refuse one of them).
 */
#define CIX_CACHE_INFO_MAX_SIZE (64u << 10)

struct cix_cache_info {
	char *store_dir;           /* NULL when absent */
	int has_want_mass_query, want_mass_query;
	int has_priority, priority;
};

void cix_cache_info_release(struct cix_cache_info *ci);
int cix_cache_info_parse(const char *buf, size_t len, struct cix_cache_info *ci,
			 struct cix_err *err);
/* StoreDir, WantMassQuery, Priority, each when present, in that order. */
void cix_cache_info_format(const struct cix_cache_info *ci, struct strbuf *out);

#endif
