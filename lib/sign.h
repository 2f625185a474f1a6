/* sign.h - Ed25519 keys, detached signatures and trusted-key lists, in Nix's formats */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef CIX_SIGN_H
#define CIX_SIGN_H

#include <stddef.h>
#include "err.h"
#include "strbuf.h"

/*
 * Keys and signatures are written as Nix writes them (libsodium's layouts),
 * so that keys made by `nix-store --generate-binary-cache-key` work here
 * and signatures made here are Nix's byte for byte (Ed25519 is
 * deterministic):
 *
 *   secret key  NAME:base64(32-byte seed, then the 32-byte public key)
 *   public key  NAME:base64(32-byte public key)
 *   signature   NAME:base64(64-byte Ed25519 signature)
 *
 * with no newline after them. A NAME is 1 to CIX_KEY_NAME_MAX printable
 * ASCII characters other than ':' and space (Nix splits at the first ':',
 * and a key name is a word of narinfo lines and of the trusted-key list).
 * Base64 is standard, padded, and must be exactly the length of its bytes.
 * The crypto is libgcrypt's.
 */
#define CIX_KEY_NAME_MAX 255
#define CIX_SEED_BYTES 32
#define CIX_PUBLIC_KEY_BYTES 32
#define CIX_SECRET_KEY_BYTES 64
#define CIX_SIGNATURE_BYTES 64

struct cix_public_key {
	char name[CIX_KEY_NAME_MAX + 1];
	unsigned char key[CIX_PUBLIC_KEY_BYTES];
};

struct cix_secret_key {
	char name[CIX_KEY_NAME_MAX + 1];
	unsigned char key[CIX_SECRET_KEY_BYTES];   /* seed | public key */
};

/* Is NAME (LEN bytes) a valid key name? 0, or -CIX_EFORMAT with err set. */
int cix_key_name_check(const char *name, size_t len, struct cix_err *err);

/* A fresh key pair named NAME, from libgcrypt's strongest randomness. */
int cix_secret_key_generate(const char *name, struct cix_secret_key *k, struct cix_err *err);

/*
 * Parse the LEN bytes of S (exactly the text above: no newline, no
 * space). A secret key whose public half is not the one its seed gives is
 * refused (-CIX_EMISMATCH): it would make signatures nobody can check.
 * Otherwise 0 or -CIX_EFORMAT, with err set.
 */
int cix_secret_key_parse(const char *s, size_t len, struct cix_secret_key *k,
			 struct cix_err *err);
/*
 * The secret key in FILE (a final newline allowed; at most
 * CIX_SECRET_KEY_FILE_MAX bytes): 0, or a negative code with err set
 * (-ENOENT when there is no such file).
 */
#define CIX_SECRET_KEY_FILE_MAX 65536
int cix_secret_key_load(const char *file, struct cix_secret_key *k, struct cix_err *err);
int cix_public_key_parse(const char *s, size_t len, struct cix_public_key *k,
			 struct cix_err *err);

/* Append the text of a key to out (no newline). */
void cix_secret_key_format(const struct cix_secret_key *k, struct strbuf *out);
void cix_public_key_format(const struct cix_public_key *k, struct strbuf *out);

/* The public key of k: its name and the public half it holds. */
void cix_secret_key_public(const struct cix_secret_key *k, struct cix_public_key *pk);

/* The public key the 32-byte seed gives, computed by libgcrypt. */
int cix_public_key_derive(const unsigned char seed[CIX_SEED_BYTES],
			  unsigned char pub[CIX_PUBLIC_KEY_BYTES], struct cix_err *err);

/* Append "NAME:base64(signature of the LEN bytes of DATA)" to out. */
int cix_sign_detached(const struct cix_secret_key *k, const char *data, size_t len,
		      struct strbuf *out, struct cix_err *err);

/*
 * 1 when SIG ("NAME:base64", NUL-terminated) is a valid signature of
 * DATA by one of KEYS named NAME; 0 otherwise (no key of that name, a bad
 * or malformed signature). Any bytes are safe.
 */
int cix_verify_detached(const char *sig, const char *data, size_t len,
			const struct cix_public_key *keys, size_t nr_keys);

/*
 * A list of trusted public keys (the ACL, CONF_DIR/acl): one key per line
 * in the public key text; spaces and tabs around it, blank lines and lines
 * whose first other character is '#' are ignored. At most
 * CIX_ACL_MAX_KEYS keys, lines of at most CIX_ACL_MAX_LINE bytes. The
 * same key (name and bytes) twice is kept once.
 */
#define CIX_ACL_MAX_KEYS 4096
#define CIX_ACL_MAX_LINE 4096

struct cix_acl {
	struct cix_public_key *keys;
	size_t nr, alloc;
};

#define CIX_ACL_INIT { NULL, 0, 0 }

/*
 * Parse LEN bytes into acl (which must be empty: CIX_ACL_INIT); 0, or
 * -CIX_EFORMAT / -CIX_ELIMIT with err naming the line, and acl empty.
 */
int cix_acl_parse(const char *buf, size_t len, struct cix_acl *acl, struct cix_err *err);
/* Append one line per key to out. */
void cix_acl_format(const struct cix_acl *acl, struct strbuf *out);
/* Does acl hold this key (same name and bytes)? */
int cix_acl_has(const struct cix_acl *acl, const struct cix_public_key *k);
/* Add k unless acl has it: 1 added, 0 already there, -CIX_ELIMIT when full. */
int cix_acl_add(struct cix_acl *acl, const struct cix_public_key *k, struct cix_err *err);
void cix_acl_release(struct cix_acl *acl);

#endif
