/* hash.h - message digests through libgcrypt */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef CIX_HASH_H
#define CIX_HASH_H

#include <stddef.h>
#include "err.h"

enum cix_hash_algo {
	CIX_HASH_MD5,
	CIX_HASH_SHA1,
	CIX_HASH_SHA256,
	CIX_HASH_SHA512,
};

#define CIX_HASH_MAX_SIZE 64

struct cix_hash {
	enum cix_hash_algo algo;
	size_t len;                 /* bytes used in bytes[] */
	unsigned char bytes[CIX_HASH_MAX_SIZE];
};

/* Streaming context; the gcrypt handle is kept opaque. */
struct cix_hash_ctx {
	enum cix_hash_algo algo;
	void *md;
};

/* "md5", "sha1", "sha256", "sha512" -> algo; -CIX_EINVAL if unknown. */
int cix_hash_algo_parse(const char *name, enum cix_hash_algo *algo);
const char *cix_hash_algo_name(enum cix_hash_algo algo);
size_t cix_hash_algo_size(enum cix_hash_algo algo);

/* Check that libgcrypt is initialised (done lazily by every call below). */
void cix_hash_global_init(void);

void cix_hash_init(struct cix_hash_ctx *ctx, enum cix_hash_algo algo);
void cix_hash_update(struct cix_hash_ctx *ctx, const void *data, size_t len);
/* Write the digest into out and release the context. */
void cix_hash_final(struct cix_hash_ctx *ctx, struct cix_hash *out);
/* Release a context without a result (error paths). */
void cix_hash_abort(struct cix_hash_ctx *ctx);

/* One-shot digest of a buffer. */
void cix_hash_buf(enum cix_hash_algo algo, const void *data, size_t len,
		  struct cix_hash *out);

/* Digest of what fd reads until its end (name: for messages). */
int cix_hash_fd(enum cix_hash_algo algo, int fd, const char *name,
		struct cix_hash *out, struct cix_err *err);

/* Digest of a file's contents (flat); 0 or -errno with err set. */
int cix_hash_file(enum cix_hash_algo algo, const char *path,
		  struct cix_hash *out, struct cix_err *err);

#endif
