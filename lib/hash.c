/* hash.c - message digests through libgcrypt */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "hash.h"

#include <errno.h>
#include <fcntl.h>
#include <gcrypt.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const struct {
	const char *name;
	int gcry;
	size_t size;
} algos[] = {
	[CIX_HASH_MD5] = { "md5", GCRY_MD_MD5, 16 },
	[CIX_HASH_SHA1] = { "sha1", GCRY_MD_SHA1, 20 },
	[CIX_HASH_SHA256] = { "sha256", GCRY_MD_SHA256, 32 },
	[CIX_HASH_SHA512] = { "sha512", GCRY_MD_SHA512, 64 },
};

int cix_hash_algo_parse(const char *name, enum cix_hash_algo *algo)
{
	for (size_t i = 0; i < ARRAY_SIZE(algos); i++)
		if (!strcmp(name, algos[i].name)) {
			*algo = (enum cix_hash_algo)i;
			return 0;
		}
	return -CIX_EINVAL;
}

const char *cix_hash_algo_name(enum cix_hash_algo algo)
{
	return algos[algo].name;
}

size_t cix_hash_algo_size(enum cix_hash_algo algo)
{
	return algos[algo].size;
}

static pthread_once_t gcry_once = PTHREAD_ONCE_INIT;

static void gcry_setup(void)
{
	if (!gcry_check_version(GCRYPT_VERSION))
		BUG("libgcrypt version mismatch");
	/* We use only digests and signatures: no secure memory needed. */
	gcry_control(GCRYCTL_DISABLE_SECMEM, 0);
	gcry_control(GCRYCTL_INITIALIZATION_FINISHED, 0);
}

void cix_hash_global_init(void)
{
	pthread_once(&gcry_once, gcry_setup);
}

void cix_hash_init(struct cix_hash_ctx *ctx, enum cix_hash_algo algo)
{
	gcry_md_hd_t h;
	cix_hash_global_init();
	if (gcry_md_open(&h, algos[algo].gcry, 0))
		BUG("gcry_md_open failed for %s", algos[algo].name);
	ctx->algo = algo;
	ctx->md = h;
}

void cix_hash_update(struct cix_hash_ctx *ctx, const void *data, size_t len)
{
	gcry_md_write((gcry_md_hd_t)ctx->md, data, len);
}

void cix_hash_final(struct cix_hash_ctx *ctx, struct cix_hash *out)
{
	gcry_md_hd_t h = ctx->md;
	out->algo = ctx->algo;
	out->len = algos[ctx->algo].size;
	memcpy(out->bytes, gcry_md_read(h, 0), out->len);
	gcry_md_close(h);
	ctx->md = NULL;
}

void cix_hash_abort(struct cix_hash_ctx *ctx)
{
	if (ctx->md)
		gcry_md_close((gcry_md_hd_t)ctx->md);
	ctx->md = NULL;
}

void cix_hash_buf(enum cix_hash_algo algo, const void *data, size_t len,
		  struct cix_hash *out)
{
	cix_hash_global_init();
	out->algo = algo;
	out->len = algos[algo].size;
	gcry_md_hash_buffer(algos[algo].gcry, out->bytes, data, len);
}

int cix_hash_fd(enum cix_hash_algo algo, int fd, const char *name,
		struct cix_hash *out, struct cix_err *err)
{
	struct cix_hash_ctx ctx;
	size_t bufsize = 1 << 20;
	char *buf = xmalloc(bufsize);

	cix_hash_init(&ctx, algo);
	for (;;) {
		ssize_t n = read(fd, buf, bufsize);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			int e = -errno;
			cix_hash_abort(&ctx);
			free(buf);
			return cix_error_errno(err, e, "cannot read '%s'", name);
		}
		if (n == 0)
			break;
		cix_hash_update(&ctx, buf, (size_t)n);
	}
	cix_hash_final(&ctx, out);
	free(buf);
	return 0;
}

int cix_hash_file(enum cix_hash_algo algo, const char *path,
		  struct cix_hash *out, struct cix_err *err)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), r;
	if (fd < 0)
		return cix_error_errno(err, -errno, "cannot open '%s'", path);
	r = cix_hash_fd(algo, fd, path, out, err);
	close(fd);
	return r;
}
