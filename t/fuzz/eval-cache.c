/* eval-cache.c - libFuzzer target: the evaluation cache file */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "eval-cache.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/*
 * The evaluation cache is a file in the user's directory, read before
 * anything is evaluated: whatever its bytes, the parser stays within them
 * and leaves nothing behind when it refuses them. What it accepts is
 * sorted by spec, so it need not format back to the same bytes, but its
 * formatting parses again and formats to the same bytes: formatting is
 * idempotent.
 */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cix_eval_cache c;
	struct cix_err err = { 0 };
	if (size > 64 * 1024)
		return 0;
	if (cix_eval_cache_parse((const char *)data, size, &c, &err) == 0) {
		struct strbuf a = STRBUF_INIT, b = STRBUF_INIT;
		struct cix_eval_cache again;
		cix_eval_cache_format(&c, &a);
		if (cix_eval_cache_parse(a.buf, a.len, &again, &err) < 0)
			abort();
		cix_eval_cache_format(&again, &b);
		if (a.len != b.len || memcmp(a.buf, b.buf, a.len))
			abort();
		if (again.nr != c.nr || strcmp(again.stamp, c.stamp))
			abort();
		if (c.nr) {
			/* It stats the files the entry names: whatever they are. */
			const struct cix_eval_entry *e = cix_eval_cache_find(&c, c.v[0].spec);
			if (e && e != &c.v[0])
				abort();
		}
		cix_eval_cache_release(&again);
		strbuf_release(&a);
		strbuf_release(&b);
	} else if (c.nr || c.v) {
		abort();
	}
	cix_eval_cache_release(&c);
	return 0;
}
