/* narinfo.c - libFuzzer target: .narinfo and nix-cache-info files */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "narinfo.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/*
 * Both files come from binary caches, over the network: whatever their
 * bytes, the parsers stay within them, and what they accept formats to a
 * text that parses again and formats to the same bytes.
 */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define SD "/nix/store"

static void narinfo(const char *buf, size_t len)
{
	struct cix_narinfo a, b;
	struct strbuf t1 = STRBUF_INIT, t2 = STRBUF_INIT, fp = STRBUF_INIT;
	if (cix_narinfo_parse(buf, len, SD, &a, NULL) < 0)
		return;
	cix_narinfo_format(&a, SD, &t1);
	if (cix_narinfo_fingerprint(&a, SD, &fp, NULL) < 0)
		abort();
	if (cix_narinfo_parse(t1.buf, t1.len, SD, &b, NULL) < 0)
		abort();
	cix_narinfo_format(&b, SD, &t2);
	if (t1.len != t2.len || memcmp(t1.buf, t2.buf, t1.len))
		abort();
	cix_narinfo_release(&a);
	cix_narinfo_release(&b);
	strbuf_release(&t1);
	strbuf_release(&t2);
	strbuf_release(&fp);
}

static void cache_info(const char *buf, size_t len)
{
	struct cix_cache_info a, b;
	struct strbuf t1 = STRBUF_INIT, t2 = STRBUF_INIT;
	if (cix_cache_info_parse(buf, len, &a, NULL) < 0)
		return;
	cix_cache_info_format(&a, &t1);
	if (cix_cache_info_parse(t1.buf, t1.len, &b, NULL) < 0)
		abort();
	cix_cache_info_format(&b, &t2);
	if (t1.len != t2.len || memcmp(t1.buf, t2.buf, t1.len))
		abort();
	cix_cache_info_release(&a);
	cix_cache_info_release(&b);
	strbuf_release(&t1);
	strbuf_release(&t2);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > 256 * 1024)
		return 0;
	narinfo((const char *)data, size);
	cache_info((const char *)data, size);
	return 0;
}
