/* export.c - libFuzzer target: validate an export stream, re-serialise, compare */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "export.h"
#include "strbuf.h"

#include <stdlib.h>
#include <string.h>

/*
 * Invariant: whatever the parser accepts re-serialises to exactly the bytes
 * it consumed. Each entry is rebuilt from what path_done reports: the marker,
 * the NAR bytes (nar_size of them, which must hash to nar_hash; the NAR
 * round trip itself is the nar target's business), then the metadata
 * through the writer (cix_export_meta), with the legacy signature put back
 * in place of the final 0. The stream must end with a 0 right after the
 * last entry, and every error must be a one-line message.
 */

struct fz {
	const uint8_t *data;
	struct cix_mem_source *m;
	size_t start;              /* where the current entry began */
};

static int sb_sink(void *opaque, const void *data, size_t len)
{
	strbuf_add(opaque, data, len);
	return 0;
}

static int done(void *opaque, const char *target,
		const struct cix_import_info *info, struct cix_err *err)
{
	struct fz *f = opaque;
	struct strbuf sb = STRBUF_INIT;
	struct cix_hash h;
	size_t end = f->m->pos;

	if (target || end < f->start + 8 || info->nar_size > end - f->start - 8)
		abort();
	if (info->meta.deriver && !*info->meta.deriver)
		abort(); /* "" is reported as NULL */
	cix_hash_buf(CIX_HASH_SHA256, f->data + f->start + 8, (size_t)info->nar_size, &h);
	if (h.len != info->nar_hash.len || memcmp(h.bytes, info->nar_hash.bytes, h.len))
		abort();
	if (cix_export_begin(sb_sink, &sb, err) < 0)
		abort();
	strbuf_add(&sb, f->data + f->start + 8, (size_t)info->nar_size);
	if (cix_export_meta(sb_sink, &sb, &info->meta, err) < 0)
		abort(); /* the writer must take whatever the parser accepts */
	if (info->sig) {
		static const char zero[8];
		unsigned char b[8];
		strbuf_setlen(&sb, sb.len - 8);
		cix_put_u64le(b, 1);
		strbuf_add(&sb, b, 8);
		cix_put_u64le(b, info->sig_len);
		strbuf_add(&sb, b, 8);
		strbuf_add(&sb, info->sig, info->sig_len);
		strbuf_add(&sb, zero, (8 - info->sig_len % 8) % 8);
	}
	if (sb.len != end - f->start || memcmp(sb.buf, f->data + f->start, sb.len))
		abort();
	strbuf_release(&sb);
	f->start = end;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cix_mem_source m = { data, size, 0 };
	struct fz f = { data, &m, 0 };
	struct cix_err err;
	int r = cix_import_check(cix_mem_source_read, &m, "/nix/store", done, &f, &err);

	if (r < 0) {
		if (!err.msg[0] || strchr(err.msg, '\n'))
			abort(); /* every error has a one-line message */
	} else {
		static const unsigned char zero[8];
		if (m.pos != f.start + 8 || memcmp(data + f.start, zero, 8))
			abort(); /* the final 0, and nothing read after it */
	}
	return 0;
}
