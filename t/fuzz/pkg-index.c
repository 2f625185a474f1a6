/* pkg-index.c - libFuzzer target: the package index file */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "pkg-index.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/*
 * The index is a cache in the user's directory, read before anything is
 * evaluated: whatever its bytes, the parser stays within them, and what it
 * accepts formats back to the same bytes.
 */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cix_pkg_index idx;
	struct cix_err err = { 0 };
	if (size > 64 * 1024)
		return 0;
	if (cix_pkg_index_parse((const char *)data, size, &idx, &err) == 0) {
		struct strbuf sb = STRBUF_INIT;
		const struct cix_pkg_entry **v;
		cix_pkg_index_format(&idx, &sb);
		if (sb.len != size || memcmp(sb.buf, data, size))
			abort();
		size_t n = cix_pkg_index_list(&idx, &v);
		(void)n;
		free(v);
		strbuf_release(&sb);
	}
	cix_pkg_index_release(&idx);
	return 0;
}
