/* store-path.h - store paths: validation, parsing and computation */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef CIX_STORE_PATH_H
#define CIX_STORE_PATH_H

#include <stddef.h>
#include "err.h"
#include "hash.h"
#include "strbuf.h"

/*
 * A store path is STOREDIR "/" HASH "-" NAME, where HASH is 32 nix-base32
 * characters (20 bytes) and NAME is 1 to 211 characters of
 * [A-Za-z0-9+-._?=]. As in Nix 2.8, a name may start with a dot.
 *
 * Every function takes the store directory explicitly; cix_store_dir()
 * gives the default: $CIX_STORE_DIR, or "/cix/store".
 */
#define CIX_STORE_HASH_LEN 20     /* bytes of the hash part */
#define CIX_STORE_HASH_CHARS 32   /* its nix-base32 length */
#define CIX_STORE_NAME_MAX 211
#define CIX_STORE_DIR_MAX 1024

const char *cix_store_dir(void);

/*
 * A store directory must be absolute and canonical: no trailing slash,
 * no empty, "." or ".." component, at most CIX_STORE_DIR_MAX bytes, and
 * not "/" itself.
 */
int cix_store_dir_check(const char *dir, struct cix_err *err);

/* Check a name (len bytes, not necessarily NUL-terminated). */
int cix_store_name_check(const char *name, size_t len, struct cix_err *err);

/* Check a base name "HASH-NAME" (len bytes). */
int cix_store_basename_check(const char *base, size_t len, struct cix_err *err);

/* The parts of a parsed store path; pointers into the parsed string. */
struct cix_store_path_parts {
	const char *base;      /* HASH-NAME */
	const char *hash;      /* CIX_STORE_HASH_CHARS characters */
	const char *name;      /* NUL-terminated (end of the path) */
	size_t name_len;
};

/*
 * Parse path, which must be exactly STOREDIR/HASH-NAME with nothing after
 * the name; -CIX_EFORMAT with a message otherwise. parts may be NULL.
 */
int cix_store_path_parse(const char *store_dir, const char *path,
			 struct cix_store_path_parts *parts, struct cix_err *err);

/* Decode the hash part of a valid base name into 20 bytes. */
int cix_store_path_hash_bytes(const char *base, unsigned char out[CIX_STORE_HASH_LEN]);

/*
 * Append to out the path STOREDIR/b32(fold20(sha256(fp)))-NAME, where the
 * fingerprint fp is TYPE ":" algo ":" base16(h2) ":" STOREDIR ":" NAME.
 * The name is checked; store_dir must satisfy cix_store_dir_check.
 */
int cix_store_path_make(struct strbuf *out, const char *store_dir,
			const char *type, const struct cix_hash *h2,
			const char *name, struct cix_err *err);

/*
 * Text path (addTextToStore, .drv files, builtins.toFile): type
 * "text[:ref...]" with refs sorted and deduplicated; content_sha256 is the
 * sha256 of the text. Each reference must be a store path in store_dir.
 */
int cix_store_path_make_text(struct strbuf *out, const char *store_dir,
			     const char *name, const struct cix_hash *content_sha256,
			     const char *const *refs, size_t nr_refs,
			     struct cix_err *err);

/* Source path (recursive sha256 addToStore): "source[:ref...][:self]". */
int cix_store_path_make_source(struct strbuf *out, const char *store_dir,
			       const char *name, const struct cix_hash *nar_sha256,
			       const char *const *refs, size_t nr_refs, int self,
			       struct cix_err *err);

/*
 * Fixed-output path: a recursive sha256 is a source path; anything else is
 * "output:out" with h2 = sha256("fixed:out:" ["r:"] algo ":" base16 ":").
 */
int cix_store_path_make_fixed(struct strbuf *out, const char *store_dir,
			      const char *name, int recursive,
			      const struct cix_hash *hash, struct cix_err *err);

/* Output name of a derivation's output: NAME for "out", NAME-ID otherwise. */
void cix_store_output_path_name(struct strbuf *out, const char *drv_name,
				const char *output);

/* Input-addressed output path: type "output:ID", h2 the modulo hash. */
int cix_store_path_make_output(struct strbuf *out, const char *store_dir,
			       const char *drv_name, const char *output,
			       const struct cix_hash *modulo, struct cix_err *err);

#endif
