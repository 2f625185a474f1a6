/* aterm.c - libFuzzer target: the .drv parser; print(parse(x)) must equal x */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "drv.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cix_drv *drv;
	struct cix_err err;
	struct strbuf sb = STRBUF_INIT;

	if (cix_drv_parse((const char *)data, size, NULL, &drv, &err) < 0) {
		if (!err.msg[0] || strchr(err.msg, '\n'))
			abort(); /* every error has a one-line message */
		return 0;
	}
	cix_drv_unparse(drv, &sb);
	if (sb.len != size || memcmp(sb.buf, data, size))
		abort(); /* the round trip must be exact */
	/* The .drv path and the masked ATerm must not crash either. */
	strbuf_reset(&sb);
	cix_drv_unparse_ext(drv, &sb, 1, NULL, 0);
	strbuf_release(&sb);
	cix_drv_free(drv);
	return 0;
}
