/* json-value.c - libFuzzer target: JSON documents (a derivation's __json) */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "json-value.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/*
 * __json comes with a derivation any user may add: whatever its bytes, the
 * parser stays within them and within its depth, and what it accepts
 * prints as JSON that parses again and prints to the same bytes.
 */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cix_jv *a = NULL, *b = NULL;
	struct strbuf t1 = STRBUF_INIT, t2 = STRBUF_INIT;
	if (cix_jv_parse((const char *)data, size, &a, NULL) < 0)
		return 0;
	cix_jv_print(&t1, a);
	if (cix_jv_parse(t1.buf, t1.len, &b, NULL) < 0)
		abort();
	cix_jv_print(&t2, b);
	if (t1.len != t2.len || memcmp(t1.buf, t2.buf, t1.len))
		abort();
	cix_jv_free(a);
	cix_jv_free(b);
	strbuf_release(&t1);
	strbuf_release(&t2);
	return 0;
}
