/* decompress.c - libFuzzer target: xz and zstd streams from a binary cache */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "compress.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/*
 * A substituted NAR comes compressed from a cache that may be hostile: the
 * first byte chooses xz or zstd, the rest is the stream. Whatever it is,
 * no more than the bound comes out, and an error is an error, not a crash.
 */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct src {
	const uint8_t *p;
	size_t len, pos;
};

static ssize_t from_mem(void *opaque, void *buf, size_t len)
{
	struct src *s = opaque;
	size_t n = s->len - s->pos;
	if (n > len)
		n = len;
	if (n > 997)
		n = 997;           /* odd pieces: streams cut anywhere */
	memcpy(buf, s->p + s->pos, n);
	s->pos += n;
	return (ssize_t)n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	enum { MAX_OUT = 1 << 20 };
	static char buf[8192];
	struct cix_err err = { 0 };
	if (size < 1 || size > 256 * 1024)
		return 0;
	struct src s = { data + 1, size - 1, 0 };
	enum cix_comp c = data[0] & 1 ? CIX_COMP_ZSTD : CIX_COMP_XZ;
	struct cix_zsource *z = cix_zsource_new(c, from_mem, &s, MAX_OUT, NULL);
	uint64_t out = 0;
	ssize_t n;
	while ((n = cix_zsource_read(z, buf, sizeof(buf))) > 0)
		out += (uint64_t)n;
	if (out > MAX_OUT)
		abort();
	if (n == 0)
		(void)cix_zsource_finish(z, &err);
	cix_zsource_free(z);
	return 0;
}
