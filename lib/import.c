/* import.c - strict parser of Nix export streams (hostile input) */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "export.h"
#include "quote.h"
#include "store-path.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * The grammar is in export.h. As the NAR reader, the parser never reads
 * ahead: every read asks for exactly the bytes the grammar needs next, so
 * whatever follows the final 0 stays in the source. Every length is
 * checked against its bound when announced, before anything is read or
 * allocated. Messages name the entry (counted from 0) and the byte offset
 * from the start of the stream.
 */

struct imp {
	cix_source_fn src;
	void *src_opaque;
	uint64_t pos;                  /* bytes consumed so far */
	size_t index;                  /* current entry */
	const char *store_dir;
	size_t max_path;               /* longest possible store path */
	struct cix_err *err;           /* never NULL */
};

/* The source handed to the NAR reader: counts what it consumes. */
static ssize_t counting_read(void *opaque, void *buf, size_t len)
{
	struct imp *im = opaque;
	ssize_t k = im->src(im->src_opaque, buf, len);
	if (k > 0 && (size_t)k <= len)
		im->pos += (uint64_t)k;
	return k;
}

static int fail(struct imp *im, int code, const char *fmt, ...) CIX_PRINTF(3, 4);
static int fail(struct imp *im, int code, const char *fmt, ...)
{
	char msg[CIX_ERR_MSG_MAX];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return cix_error(im->err, code, "export entry %zu: %s", im->index, msg);
}

/* Prefix the message already in im->err with the entry and what. */
static int wrap(struct imp *im, int code, const char *what)
{
	char old[CIX_ERR_MSG_MAX];
	memcpy(old, im->err->msg, sizeof(old));
	old[sizeof(old) - 1] = '\0';
	return cix_error(im->err, code, "export entry %zu: %s: %s",
			 im->index, what, old[0] ? old : cix_strerror(code));
}

static int rd(struct imp *im, void *buf, size_t n, const char *what)
{
	unsigned char *b = buf;
	while (n) {
		ssize_t k = im->src(im->src_opaque, b, n);
		if (k < 0)
			return cix_error_errno(im->err, (int)k,
					       "cannot read export stream at byte %llu",
					       (unsigned long long)im->pos);
		if (k == 0)
			return fail(im, -CIX_EFORMAT,
				    "stream is truncated at byte %llu, in %s",
				    (unsigned long long)im->pos, what);
		if ((size_t)k > n)
			return cix_error(im->err, -CIX_EINVAL,
					 "export source returned more than asked");
		im->pos += (uint64_t)k;
		b += k;
		n -= (size_t)k;
	}
	return 0;
}

static int rd_u64(struct imp *im, uint64_t *v, const char *what)
{
	unsigned char b[8];
	int r = rd(im, b, 8, what);
	*v = r ? 0 : cix_get_u64le(b);
	return r;
}

/*
 * Read a string of at most max bytes into a malloc'd, NUL-terminated *out
 * (*len bytes). Unless binary, a NUL inside is refused.
 */
static int rd_str(struct imp *im, char **out, size_t *len, size_t max,
		  int binary, const char *what)
{
	unsigned char pad[8];
	uint64_t n, at = im->pos;
	size_t npad;
	char *s;
	int r;

	*out = NULL;
	if ((r = rd_u64(im, &n, what)) < 0)
		return r;
	if (n > max)
		return fail(im, -CIX_ELIMIT,
			    "%s at byte %llu is %llu bytes long, over the limit of %zu",
			    what, (unsigned long long)at, (unsigned long long)n, max);
	s = xmalloc((size_t)n + 1);
	npad = (size_t)((8 - n % 8) % 8);
	if ((r = rd(im, s, (size_t)n, what)) < 0 || (r = rd(im, pad, npad, what)) < 0)
		goto err;
	for (size_t i = 0; i < npad; i++)
		if (pad[i]) {
			r = fail(im, -CIX_EFORMAT, "non-zero padding at byte %llu",
				 (unsigned long long)(im->pos - npad + i));
			goto err;
		}
	if (!binary && memchr(s, 0, (size_t)n)) {
		r = fail(im, -CIX_EFORMAT, "%s at byte %llu holds a NUL byte",
			 what, (unsigned long long)at);
		goto err;
	}
	s[n] = '\0';
	*out = s;
	*len = (size_t)n;
	return 0;
err:
	free(s);
	return r;
}

/* Read a store path of im->store_dir; what names it in messages. */
static int rd_store_path(struct imp *im, char **out, const char *what)
{
	size_t len;
	int r = rd_str(im, out, &len, im->max_path, 0, what);
	if (r < 0)
		return r;
	if ((r = cix_store_path_parse(im->store_dir, *out, NULL, im->err)) < 0) {
		free(*out);
		*out = NULL;
		return wrap(im, r, what);
	}
	return 0;
}

struct entry {
	char *path, *deriver, *sig;
	char **refs;
	size_t nr_refs, alloc_refs, sig_len;
};

static void entry_release(struct entry *e)
{
	free(e->path);
	free(e->deriver);
	free(e->sig);
	for (size_t i = 0; i < e->nr_refs; i++)
		free(e->refs[i]);
	free(e->refs);
	memset(e, 0, sizeof(*e));
}

/* Everything of an entry after its NAR. */
static int rd_meta(struct imp *im, struct entry *e)
{
	uint64_t v, at = im->pos;
	size_t len;
	int r;

	if ((r = rd_u64(im, &v, "the magic number")) < 0)
		return r;
	if (v != CIX_EXPORT_MAGIC)
		return fail(im, -CIX_EFORMAT,
			    "bad magic 0x%llx at byte %llu, expected 0x%x",
			    (unsigned long long)v, (unsigned long long)at,
			    CIX_EXPORT_MAGIC);
	if ((r = rd_store_path(im, &e->path, "store path")) < 0)
		return r;

	at = im->pos;
	if ((r = rd_u64(im, &v, "the reference count")) < 0)
		return r;
	if (v > CIX_EXPORT_MAX_REFS)
		return fail(im, -CIX_ELIMIT,
			    "%llu references at byte %llu, over the limit of %d",
			    (unsigned long long)v, (unsigned long long)at,
			    CIX_EXPORT_MAX_REFS);
	for (uint64_t i = 0; i < v; i++) {
		char *ref;
		int c;
		if ((r = rd_store_path(im, &ref, "reference")) < 0)
			return r;
		c = e->nr_refs ? strcmp(e->refs[e->nr_refs - 1], ref) : -1;
		if (c >= 0) {
			char q[96];
			r = fail(im, -CIX_EFORMAT, c ? "references are not sorted at '%s'"
						     : "duplicate reference '%s'",
				 cix_quote(q, sizeof(q), ref, strlen(ref)));
			free(ref);
			return r;
		}
		ALLOC_GROW(e->refs, e->nr_refs + 1, e->alloc_refs);
		e->refs[e->nr_refs++] = ref;
	}

	if ((r = rd_str(im, &e->deriver, &len, im->max_path, 0, "deriver")) < 0)
		return r;
	if (!len) {
		free(e->deriver);
		e->deriver = NULL;
	} else if ((r = cix_store_path_parse(im->store_dir, e->deriver, NULL,
					     im->err)) < 0) {
		return wrap(im, r, "deriver");
	} else if (len <= 4 || memcmp(e->deriver + len - 4, ".drv", 4)) {
		char q[96];
		return fail(im, -CIX_EFORMAT, "deriver '%s' is not a .drv",
			    cix_quote(q, sizeof(q), e->deriver, len));
	}

	at = im->pos;
	if ((r = rd_u64(im, &v, "the signature marker")) < 0)
		return r;
	if (v == 1)
		return rd_str(im, &e->sig, &e->sig_len, CIX_EXPORT_MAX_SIG, 1,
			      "legacy signature");
	if (v != 0)
		return fail(im, -CIX_EFORMAT,
			    "bad signature marker %llu at byte %llu, expected 0 or 1",
			    (unsigned long long)v, (unsigned long long)at);
	return 0;
}

int cix_import_parse(cix_source_fn src, void *src_opaque, const char *store_dir,
		     const struct cix_import_ops *ops, void *opaque,
		     struct cix_err *err)
{
	struct cix_err dummy;
	struct imp im = { .src = src, .src_opaque = src_opaque,
			  .store_dir = store_dir, .err = err ? err : &dummy };
	int r;

	cix_err_clear(im.err);
	if ((r = cix_store_dir_check(store_dir, im.err)) < 0)
		return r;
	im.max_path = strlen(store_dir) + 1 + CIX_STORE_HASH_CHARS + 1 +
		      CIX_STORE_NAME_MAX;

	for (;; im.index++) {
		struct cix_import_info info = { .index = im.index };
		struct entry e = { 0 };
		char *target = NULL;
		uint64_t v, at = im.pos, nar_at;

		if ((r = rd_u64(&im, &v, "an entry marker")) < 0)
			return r;
		if (v == 0)
			return 0;
		if (v != 1)
			return fail(&im, -CIX_EFORMAT,
				    "bad marker %llu at byte %llu, expected 1 (a path) or 0 (the end)",
				    (unsigned long long)v, (unsigned long long)at);

		if (ops && ops->nar_target) {
			cix_err_clear(im.err);
			if ((r = ops->nar_target(opaque, &target, im.err)) < 0)
				return r;
			if (!target)
				return cix_error(im.err, -CIX_EINVAL,
						 "no target for the NAR of export entry %zu",
						 im.index);
		}
		nar_at = im.pos;
		if (target && ops->target_dir)
			r = cix_nar_restore_at(counting_read, &im, ops->target_dir(opaque), target,
					       ops->restore_flags, &info.nar_hash, &info.nar_size,
					       im.err);
		else if (target)
			r = cix_nar_restore_flags(counting_read, &im, target, ops->restore_flags,
						  &info.nar_hash, &info.nar_size, im.err);
		else
			r = cix_nar_check(counting_read, &im,
					  &info.nar_hash, &info.nar_size, im.err);
		if (r < 0) {
			char what[64];
			snprintf(what, sizeof(what), "NAR at byte %llu",
				 (unsigned long long)nar_at);
			r = wrap(&im, r, what);
			goto bad;
		}
		if ((r = rd_meta(&im, &e)) < 0)
			goto bad;

		info.meta.path = e.path;
		info.meta.refs = (const char *const *)e.refs;
		info.meta.nr_refs = e.nr_refs;
		info.meta.deriver = e.deriver;
		info.sig = e.sig;
		info.sig_len = e.sig_len;
		r = 0;
		if (ops && ops->path_done) {
			cix_err_clear(im.err);
			r = ops->path_done(opaque, target, &info, im.err);
		} else if (target && ops->discard) {
			ops->discard(opaque, target); /* nobody wants it */
		}
		free(target); /* the tree is path_done's now */
		entry_release(&e);
		if (r < 0)
			return r;
		continue;
bad:
		if (target && ops->discard)
			ops->discard(opaque, target);
		free(target);
		entry_release(&e);
		return r;
	}
}

int cix_import_check(cix_source_fn src, void *src_opaque, const char *store_dir,
		     int (*path_done)(void *opaque, const char *target,
				      const struct cix_import_info *info,
				      struct cix_err *err),
		     void *opaque, struct cix_err *err)
{
	struct cix_import_ops ops = { .path_done = path_done };
	return cix_import_parse(src, src_opaque, store_dir, &ops, opaque, err);
}
