/* store-path.c - store paths: validation, parsing and computation */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "quote.h"
#include "env.h"
#include "store-path.h"
#include "encoding.h"

#include <stdlib.h>
#include <string.h>

const char *cix_store_dir(void)
{
	return cix_env(CIX_ENV_STORE_DIR);
}

int cix_store_dir_check(const char *dir, struct cix_err *err)
{
	char q[96];
	size_t len = strlen(dir);
	const char *p = dir;

	if (len == 0 || dir[0] != '/')
		return cix_error(err, -CIX_EINVAL, "store directory '%s' is not absolute",
				 cix_quote(q, sizeof(q), dir, len));
	if (len > CIX_STORE_DIR_MAX)
		return cix_error(err, -CIX_EINVAL, "store directory is longer than %d bytes",
				 CIX_STORE_DIR_MAX);
	if (len == 1)
		return cix_error(err, -CIX_EINVAL, "store directory cannot be '/'");
	while (*p) {
		const char *c = ++p; /* skip the slash */
		while (*p && *p != '/')
			p++;
		size_t n = (size_t)(p - c);
		if (n == 0 || (n == 1 && c[0] == '.') || (n == 2 && c[0] == '.' && c[1] == '.'))
			return cix_error(err, -CIX_EINVAL, "store directory '%s' is not canonical",
					 cix_quote(q, sizeof(q), dir, len));
	}
	return 0;
}

/*
 * The characters of store path names (NAME) and of their hash parts (B32:
 * cix_nixbase32_chars, the digits and the lower-case letters but e, o, t
 * and u; tested against it in t/unit), a table look-up each: the daemon
 * and every export check each path and reference they handle.
 */
enum { NAME = 1, B32 = 2 };
static const unsigned char char_class[256] = {
	['0' ... '9'] = NAME | B32,
	['a' ... 'd'] = NAME | B32, ['e'] = NAME, ['f' ... 'n'] = NAME | B32, ['o'] = NAME,
	['p' ... 's'] = NAME | B32, ['t' ... 'u'] = NAME, ['v' ... 'z'] = NAME | B32,
	['A' ... 'Z'] = NAME,
	['+'] = NAME, ['-'] = NAME, ['.'] = NAME, ['_'] = NAME, ['?'] = NAME, ['='] = NAME,
};

static int is_name_char(unsigned char c)
{
	return char_class[c] & NAME;
}

int cix_store_name_check(const char *name, size_t len, struct cix_err *err)
{
	char q[96];
	if (len == 0)
		return cix_error(err, -CIX_EFORMAT, "store path name is empty");
	if (len > CIX_STORE_NAME_MAX)
		return cix_error(err, -CIX_EFORMAT, "store path name '%s' is longer than %d characters",
				 cix_quote(q, sizeof(q), name, len), CIX_STORE_NAME_MAX);
	for (size_t i = 0; i < len; i++)
		if (!is_name_char((unsigned char)name[i]))
			return cix_error(err, -CIX_EFORMAT,
					 "store path name '%s' contains illegal character at offset %zu",
					 cix_quote(q, sizeof(q), name, len), i);
	return 0;
}

static int is_b32_char(unsigned char c)
{
	return char_class[c] & B32;
}

int cix_store_basename_check(const char *base, size_t len, struct cix_err *err)
{
	char q[96];
	if (len < CIX_STORE_HASH_CHARS + 2)
		return cix_error(err, -CIX_EFORMAT, "'%s' is too short to be a store path",
				 cix_quote(q, sizeof(q), base, len));
	for (size_t i = 0; i < CIX_STORE_HASH_CHARS; i++)
		if (!is_b32_char((unsigned char)base[i]))
			return cix_error(err, -CIX_EFORMAT,
					 "store path '%s' has an invalid hash part",
					 cix_quote(q, sizeof(q), base, len));
	if (base[CIX_STORE_HASH_CHARS] != '-')
		return cix_error(err, -CIX_EFORMAT, "store path '%s' lacks a '-' after its hash",
				 cix_quote(q, sizeof(q), base, len));
	return cix_store_name_check(base + CIX_STORE_HASH_CHARS + 1,
				    len - CIX_STORE_HASH_CHARS - 1, err);
}

int cix_store_path_parse(const char *store_dir, const char *path,
			 struct cix_store_path_parts *parts, struct cix_err *err)
{
	char q[96], qd[96];
	size_t dlen = strlen(store_dir), plen = strlen(path);
	int r;

	if (plen <= dlen + 1 || memcmp(path, store_dir, dlen) || path[dlen] != '/')
		return cix_error(err, -CIX_EFORMAT, "path '%s' is not in the store '%s'",
				 cix_quote(q, sizeof(q), path, plen),
				 cix_quote(qd, sizeof(qd), store_dir, dlen));
	r = cix_store_basename_check(path + dlen + 1, plen - dlen - 1, err);
	if (r < 0)
		return r;
	if (parts) {
		parts->base = path + dlen + 1;
		parts->hash = parts->base;
		parts->name = parts->base + CIX_STORE_HASH_CHARS + 1;
		parts->name_len = plen - dlen - CIX_STORE_HASH_CHARS - 2;
	}
	return 0;
}

int cix_store_path_hash_bytes(const char *base, unsigned char out[CIX_STORE_HASH_LEN])
{
	int r = cix_nixbase32_decode(base, CIX_STORE_HASH_CHARS, out, CIX_STORE_HASH_LEN);
	return r < 0 ? r : 0;
}

int cix_store_path_make(struct strbuf *out, const char *store_dir,
			const char *type, const struct cix_hash *h2,
			const char *name, struct cix_err *err)
{
	struct strbuf fp = STRBUF_INIT;
	struct cix_hash h;
	unsigned char fold[CIX_STORE_HASH_LEN] = { 0 };
	int r;

	if ((r = cix_store_dir_check(store_dir, err)) < 0 ||
	    (r = cix_store_name_check(name, strlen(name), err)) < 0)
		return r;
	strbuf_addf(&fp, "%s:%s:", type, cix_hash_algo_name(h2->algo));
	cix_base16_encode(&fp, h2->bytes, h2->len);
	strbuf_addf(&fp, ":%s:%s", store_dir, name);
	cix_hash_buf(CIX_HASH_SHA256, fp.buf, fp.len, &h);
	strbuf_release(&fp);
	for (size_t i = 0; i < h.len; i++)
		fold[i % CIX_STORE_HASH_LEN] ^= h.bytes[i];
	strbuf_addstr(out, store_dir);
	strbuf_addch(out, '/');
	cix_nixbase32_encode(out, fold, sizeof(fold));
	strbuf_addch(out, '-');
	strbuf_addstr(out, name);
	return 0;
}

/* Append ":ref" for each sorted, distinct reference, after checking it. */
static int add_refs(struct strbuf *type, const char *store_dir,
		    const char *const *refs, size_t nr, struct cix_err *err)
{
	const char **sorted;
	int r = 0;

	if (!nr)
		return 0;
	sorted = xmalloc(nr * sizeof(*sorted));
	memcpy(sorted, refs, nr * sizeof(*sorted));
	qsort(sorted, nr, sizeof(*sorted), cix_cmp_str);
	for (size_t i = 0; i < nr; i++) {
		if (i && !strcmp(sorted[i], sorted[i - 1]))
			continue;
		if ((r = cix_store_path_parse(store_dir, sorted[i], NULL, err)) < 0)
			break;
		strbuf_addch(type, ':');
		strbuf_addstr(type, sorted[i]);
	}
	free(sorted);
	return r;
}

static int make_with_refs(struct strbuf *out, const char *store_dir,
			  const char *kind, const char *name,
			  const struct cix_hash *h2, const char *const *refs,
			  size_t nr_refs, int self, struct cix_err *err)
{
	struct strbuf type = STRBUF_INIT;
	int r;

	strbuf_addstr(&type, kind);
	r = add_refs(&type, store_dir, refs, nr_refs, err);
	if (!r && self)
		strbuf_addstr(&type, ":self");
	if (!r)
		r = cix_store_path_make(out, store_dir, type.buf, h2, name, err);
	strbuf_release(&type);
	return r;
}

int cix_store_path_make_text(struct strbuf *out, const char *store_dir,
			     const char *name, const struct cix_hash *content_sha256,
			     const char *const *refs, size_t nr_refs,
			     struct cix_err *err)
{
	if (content_sha256->algo != CIX_HASH_SHA256)
		return cix_error(err, -CIX_EINVAL, "text paths need a sha256 hash");
	return make_with_refs(out, store_dir, "text", name, content_sha256,
			      refs, nr_refs, 0, err);
}

int cix_store_path_make_source(struct strbuf *out, const char *store_dir,
			       const char *name, const struct cix_hash *nar_sha256,
			       const char *const *refs, size_t nr_refs, int self,
			       struct cix_err *err)
{
	if (nar_sha256->algo != CIX_HASH_SHA256)
		return cix_error(err, -CIX_EINVAL, "source paths need a sha256 hash");
	return make_with_refs(out, store_dir, "source", name, nar_sha256,
			      refs, nr_refs, self, err);
}

int cix_store_path_make_fixed(struct strbuf *out, const char *store_dir,
			      const char *name, int recursive,
			      const struct cix_hash *hash, struct cix_err *err)
{
	struct strbuf s = STRBUF_INIT;
	struct cix_hash h2;

	if (recursive && hash->algo == CIX_HASH_SHA256)
		return cix_store_path_make(out, store_dir, "source", hash, name, err);
	strbuf_addf(&s, "fixed:out:%s%s:", recursive ? "r:" : "",
		    cix_hash_algo_name(hash->algo));
	cix_base16_encode(&s, hash->bytes, hash->len);
	strbuf_addch(&s, ':');
	cix_hash_buf(CIX_HASH_SHA256, s.buf, s.len, &h2);
	strbuf_release(&s);
	return cix_store_path_make(out, store_dir, "output:out", &h2, name, err);
}

void cix_store_output_path_name(struct strbuf *out, const char *drv_name,
				const char *output)
{
	strbuf_addstr(out, drv_name);
	if (strcmp(output, "out")) {
		strbuf_addch(out, '-');
		strbuf_addstr(out, output);
	}
}

int cix_store_path_make_output(struct strbuf *out, const char *store_dir,
			       const char *drv_name, const char *output,
			       const struct cix_hash *modulo, struct cix_err *err)
{
	struct strbuf type = STRBUF_INIT, name = STRBUF_INIT;
	int r;

	strbuf_addf(&type, "output:%s", output);
	cix_store_output_path_name(&name, drv_name, output);
	r = cix_store_path_make(out, store_dir, type.buf, modulo, name.buf, err);
	strbuf_release(&type);
	strbuf_release(&name);
	return r;
}
