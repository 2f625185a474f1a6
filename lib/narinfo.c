/* narinfo.c - binary-cache metadata: .narinfo files and nix-cache-info */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "narinfo.h"
#include "encoding.h"
#include "quote.h"
#include "store-path.h"
#include "util.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

void cix_narinfo_release(struct cix_narinfo *ni)
{
	free(ni->store_path);
	free(ni->url);
	free(ni->compression);
	strvec_clear(&ni->refs);
	free(ni->deriver);
	free(ni->system);
	strvec_clear(&ni->sigs);
	free(ni->ca);
	memset(ni, 0, sizeof(*ni));
}

/* ---- pieces of values ---- */

static int algo_from(const char *s, size_t n, enum cix_hash_algo *algo)
{
	char name[8];
	if (n == 0 || n >= sizeof(name))
		return -1;
	memcpy(name, s, n);
	name[n] = '\0';
	return cix_hash_algo_parse(name, algo) < 0 ? -1 : 0;
}

/*
 * The digest of algo written in n bytes at s, in one of Nix's encodings,
 * told apart by their lengths: base16, nix-base32, base64 (only base64
 * when sri).
 */
static int digest_from(const char *s, size_t n, enum cix_hash_algo algo, int sri,
		       struct cix_hash *h)
{
	unsigned char buf[CIX_HASH_MAX_SIZE + 3];
	size_t size = cix_hash_algo_size(algo);
	int r;

	memset(h, 0, sizeof(*h));
	h->algo = algo;
	h->len = size;
	if (!sri && n == 2 * size)
		r = cix_base16_decode(s, n, h->bytes, size);
	else if (!sri && n == cix_nixbase32_len(size))
		r = cix_nixbase32_decode(s, n, h->bytes, size);
	else if (n == cix_base64_len(size)) {
		r = cix_base64_decode(s, n, buf, sizeof(buf));
		if (r == (int)size)
			memcpy(h->bytes, buf, size);
		else
			r = -1;
	} else
		r = -1;
	return r < 0 ? -1 : 0;
}

/* "ALGO:DIGEST" or SRI "ALGO-BASE64", as Nix's Hash::parseAnyPrefixed. */
static int hash_from(const char *s, size_t n, struct cix_hash *h)
{
	const char *sep = memchr(s, ':', n);
	int sri = 0;
	enum cix_hash_algo algo;

	if (!sep) {
		sep = memchr(s, '-', n);
		sri = 1;
	}
	if (!sep || algo_from(s, (size_t)(sep - s), &algo) < 0)
		return -1;
	return digest_from(sep + 1, n - (size_t)(sep + 1 - s), algo, sri, h);
}

static void add_hash(struct strbuf *sb, const struct cix_hash *h)
{
	strbuf_addstr(sb, cix_hash_algo_name(h->algo));
	strbuf_addch(sb, ':');
	cix_nixbase32_encode(sb, h->bytes, h->len);
}

/* A plain decimal number of at most 20 digits that fits in 64 bits. */
static int u64_from(const char *s, size_t n, uint64_t *out)
{
	uint64_t v = 0;
	if (n == 0 || n > 20)
		return -1;
	for (size_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		unsigned d = (unsigned)(s[i] - '0');
		if (v > (UINT64_MAX - d) / 10)
			return -1;
		v = v * 10 + d;
	}
	*out = v;
	return 0;
}

/*
 * A content address, "text:sha256:HASH" or "fixed:[r:]ALGO:HASH" with an
 * unprefixed digest, rendered as Nix renders it (nix-base32) into *out.
 */
static int ca_from(const char *s, size_t n, char **out)
{
	struct strbuf sb = STRBUF_INIT;
	const char *end = s + n, *colon;
	enum cix_hash_algo algo;
	struct cix_hash h;
	int text;

	if (n > 5 && !memcmp(s, "text:", 5))
		text = 1, s += 5;
	else if (n > 6 && !memcmp(s, "fixed:", 6))
		text = 0, s += 6;
	else
		return -1;
	strbuf_addstr(&sb, text ? "text:" : "fixed:");
	if (!text && end - s > 2 && !memcmp(s, "r:", 2)) {
		strbuf_addstr(&sb, "r:");
		s += 2;
	}
	colon = memchr(s, ':', (size_t)(end - s));
	if (!colon || algo_from(s, (size_t)(colon - s), &algo) < 0 ||
	    (text && algo != CIX_HASH_SHA256) ||
	    digest_from(colon + 1, (size_t)(end - colon - 1), algo, 0, &h) < 0) {
		strbuf_release(&sb);
		return -1;
	}
	add_hash(&sb, &h);
	*out = strbuf_detach(&sb, NULL);
	return 0;
}

/* ---- narinfo ---- */

struct line {
	const char *key, *val;
	size_t klen, vlen;
	size_t no;
};

static int key_is(const struct line *l, const char *key)
{
	return l->klen == strlen(key) && !memcmp(l->key, key, l->klen);
}

static int bad(struct cix_err *err, const struct line *l, const char *what)
{
	char q[96];
	return cix_error(err, -CIX_EFORMAT, "narinfo line %zu: %s '%s'", l->no, what,
			 cix_quote(q, sizeof(q), l->val, l->vlen));
}

static int set_string(char **dst, const struct line *l)
{
	free(*dst);
	*dst = xstrndup(l->val, l->vlen);
	return 0;
}

static int parse_refs(struct cix_narinfo *ni, const struct line *l, struct cix_err *err)
{
	const char *p = l->val, *end = l->val + l->vlen;

	if (ni->refs.nr)
		return cix_error(err, -CIX_EFORMAT, "narinfo line %zu: extra References", l->no);
	while (p < end) {
		const char *sp = memchr(p, ' ', (size_t)(end - p));
		size_t n = sp ? (size_t)(sp - p) : (size_t)(end - p);
		if (n) {
			struct cix_err e;
			char *ref = xstrndup(p, n);
			if (cix_store_basename_check(ref, n, &e) < 0) {
				free(ref);
				return cix_error(err, -CIX_EFORMAT, "narinfo line %zu: bad reference: %s",
						 l->no, e.msg);
			}
			if (ni->refs.nr >= CIX_NARINFO_MAX_REFS) {
				free(ref);
				return cix_error(err, -CIX_ELIMIT, "narinfo line %zu: more than %d references",
						 l->no, CIX_NARINFO_MAX_REFS);
			}
			strvec_push(&ni->refs, ref);
			free(ref);
		}
		p += n + 1;
	}
	return 0;
}

static int parse_field(struct cix_narinfo *ni, const struct line *l, const char *store_dir,
		       int *have_nar_hash, struct cix_err *err)
{
	struct cix_err e;

	if (key_is(l, "StorePath")) {
		char *path = xstrndup(l->val, l->vlen);
		if (cix_store_path_parse(store_dir, path, NULL, &e) < 0) {
			free(path);
			return cix_error(err, -CIX_EFORMAT, "narinfo line %zu: bad StorePath: %s",
					 l->no, e.msg);
		}
		free(ni->store_path);
		ni->store_path = path;
	} else if (key_is(l, "URL")) {
		return set_string(&ni->url, l);
	} else if (key_is(l, "Compression")) {
		return set_string(&ni->compression, l);
	} else if (key_is(l, "FileHash")) {
		if (hash_from(l->val, l->vlen, &ni->file_hash) < 0)
			return bad(err, l, "bad FileHash");
		ni->has_file_hash = 1;
	} else if (key_is(l, "FileSize")) {
		if (u64_from(l->val, l->vlen, &ni->file_size) < 0)
			return bad(err, l, "bad FileSize");
		ni->has_file_size = 1;
	} else if (key_is(l, "NarHash")) {
		if (hash_from(l->val, l->vlen, &ni->nar_hash) < 0 ||
		    ni->nar_hash.algo != CIX_HASH_SHA256)
			return bad(err, l, "bad NarHash");
		*have_nar_hash = 1;
	} else if (key_is(l, "NarSize")) {
		if (u64_from(l->val, l->vlen, &ni->nar_size) < 0)
			return bad(err, l, "bad NarSize");
	} else if (key_is(l, "References")) {
		return parse_refs(ni, l, err);
	} else if (key_is(l, "Deriver")) {
		if (l->vlen == 15 && !memcmp(l->val, "unknown-deriver", 15))
			return 0;
		if (cix_store_basename_check(l->val, l->vlen, &e) < 0)
			return cix_error(err, -CIX_EFORMAT, "narinfo line %zu: bad Deriver: %s",
					 l->no, e.msg);
		return set_string(&ni->deriver, l);
	} else if (key_is(l, "System")) {
		free(ni->system);
		ni->system = l->vlen ? xstrndup(l->val, l->vlen) : NULL;
	} else if (key_is(l, "Sig")) {
		if (ni->sigs.nr >= CIX_NARINFO_MAX_SIGS)
			return cix_error(err, -CIX_ELIMIT, "narinfo line %zu: more than %d signatures",
					 l->no, CIX_NARINFO_MAX_SIGS);
		char *sig = xstrndup(l->val, l->vlen);
		strvec_push(&ni->sigs, sig);
		free(sig);
	} else if (key_is(l, "CA")) {
		if (ni->ca)
			return cix_error(err, -CIX_EFORMAT, "narinfo line %zu: extra CA", l->no);
		if (l->vlen && ca_from(l->val, l->vlen, &ni->ca) < 0)
			return bad(err, l, "bad CA");
	}
	/* Any other key is ignored, as Nix does. */
	return 0;
}

int cix_narinfo_parse(const char *buf, size_t len, const char *store_dir,
		      struct cix_narinfo *ni, struct cix_err *err)
{
	const char *p = buf, *end = buf + len;
	struct line l = { 0 };
	int have_nar_hash = 0, r = 0;

	memset(ni, 0, sizeof(*ni));
	if (len > CIX_NARINFO_MAX_SIZE)
		return cix_error(err, -CIX_ELIMIT, "narinfo larger than %u bytes",
				 CIX_NARINFO_MAX_SIZE);
	if (memchr(buf, '\0', len))
		return cix_error(err, -CIX_EFORMAT, "narinfo holds a NUL byte");
	while (p < end) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));
		const char *colon;
		l.no++;
		if (!eol) {
			r = cix_error(err, -CIX_EFORMAT, "narinfo line %zu: no newline at its end", l.no);
			goto fail;
		}
		colon = memchr(p, ':', (size_t)(eol - p));
		if (!colon || colon + 1 == eol || colon[1] != ' ') {
			r = cix_error(err, -CIX_EFORMAT, "narinfo line %zu: not 'Key: value'", l.no);
			goto fail;
		}
		l.key = p;
		l.klen = (size_t)(colon - p);
		l.val = colon + 2;
		l.vlen = (size_t)(eol - l.val);
		if ((size_t)(eol - p) > CIX_NARINFO_MAX_LINE && !key_is(&l, "References")) {
			r = cix_error(err, -CIX_ELIMIT, "narinfo line %zu: longer than %u bytes",
				      l.no, CIX_NARINFO_MAX_LINE);
			goto fail;
		}
		r = parse_field(ni, &l, store_dir, &have_nar_hash, err);
		if (r < 0)
			goto fail;
		p = eol + 1;
	}
	if (!ni->compression || !*ni->compression) {
		free(ni->compression);
		ni->compression = xstrdup("bzip2");
	}
	if (!ni->store_path)
		r = cix_error(err, -CIX_EFORMAT, "narinfo has no StorePath");
	else if (!have_nar_hash)
		r = cix_error(err, -CIX_EFORMAT, "narinfo has no NarHash");
	else if (!ni->url || !*ni->url)
		r = cix_error(err, -CIX_EFORMAT, "narinfo has no URL");
	else if (!ni->nar_size)
		r = cix_error(err, -CIX_EFORMAT, "narinfo has no NarSize, or a zero one");
	if (r == 0)
		return 0;
fail:
	cix_narinfo_release(ni);
	return r;
}

/* v[0..n) sorted into a malloc'd array of pointers; *nr left once each. */
static const char **sorted_unique(const struct strvec *sv, size_t *nr)
{
	const char **v = xmalloc((sv->nr + 1) * sizeof(*v));
	size_t n = 0;
	if (sv->nr)
		memcpy(v, sv->v, sv->nr * sizeof(*v));
	qsort(v, sv->nr, sizeof(*v), cix_cmp_str);
	for (size_t i = 0; i < sv->nr; i++)
		if (!n || strcmp(v[n - 1], v[i]))
			v[n++] = v[i];
	*nr = n;
	return v;
}

void cix_narinfo_format(const struct cix_narinfo *ni, const char *store_dir,
			struct strbuf *out)
{
	const char **v;
	size_t n;

	strbuf_addf(out, "StorePath: %s\n", ni->store_path ? ni->store_path : "");
	strbuf_addf(out, "URL: %s\n", ni->url ? ni->url : "");
	strbuf_addf(out, "Compression: %s\n",
		    ni->compression && *ni->compression ? ni->compression : "bzip2");
	if (ni->has_file_hash) {
		strbuf_addstr(out, "FileHash: ");
		add_hash(out, &ni->file_hash);
		strbuf_addch(out, '\n');
	}
	if (ni->has_file_size)
		strbuf_addf(out, "FileSize: %llu\n", (unsigned long long)ni->file_size);
	strbuf_addstr(out, "NarHash: ");
	add_hash(out, &ni->nar_hash);
	strbuf_addf(out, "\nNarSize: %llu\nReferences: ", (unsigned long long)ni->nar_size);
	v = sorted_unique(&ni->refs, &n);
	for (size_t i = 0; i < n; i++)
		strbuf_addf(out, "%s%s", i ? " " : "", v[i]);
	free(v);
	strbuf_addch(out, '\n');
	if (ni->deriver)
		strbuf_addf(out, "Deriver: %s\n", ni->deriver);
	if (ni->system && *ni->system)
		strbuf_addf(out, "System: %s\n", ni->system);
	v = sorted_unique(&ni->sigs, &n);
	for (size_t i = 0; i < n; i++)
		strbuf_addf(out, "Sig: %s\n", v[i]);
	free(v);
	if (ni->ca)
		strbuf_addf(out, "CA: %s\n", ni->ca);
}

int cix_narinfo_fingerprint(const struct cix_narinfo *ni, const char *store_dir,
			    struct strbuf *out, struct cix_err *err)
{
	const char **v;
	size_t n;

	if (!ni->store_path)
		return cix_error(err, -CIX_EINVAL, "no store path to fingerprint");
	if (!ni->nar_size)
		return cix_error(err, -CIX_EINVAL, "cannot fingerprint '%s': its NAR size is unknown",
				 ni->store_path);
	if (ni->nar_hash.algo != CIX_HASH_SHA256 || ni->nar_hash.len != 32)
		return cix_error(err, -CIX_EINVAL, "cannot fingerprint '%s': no sha256 NAR hash",
				 ni->store_path);
	strbuf_addf(out, "1;%s;", ni->store_path);
	add_hash(out, &ni->nar_hash);
	strbuf_addf(out, ";%llu;", (unsigned long long)ni->nar_size);
	/* Full paths sort as their basenames do: they share the prefix. */
	v = sorted_unique(&ni->refs, &n);
	for (size_t i = 0; i < n; i++)
		strbuf_addf(out, "%s%s/%s", i ? "," : "", store_dir, v[i]);
	free(v);
	return 0;
}

/* ---- nix-cache-info ---- */

void cix_cache_info_release(struct cix_cache_info *ci)
{
	free(ci->store_dir);
	memset(ci, 0, sizeof(*ci));
}

static int is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

/* An int: an optional sign and decimal digits. */
static int int_from(const char *s, size_t n, int *out)
{
	int neg = 0;
	uint64_t v;
	if (n && (*s == '-' || *s == '+')) {
		neg = *s == '-';
		s++, n--;
	}
	if (u64_from(s, n, &v) < 0 || v > (uint64_t)INT_MAX + (uint64_t)neg)
		return -1;
	*out = neg ? (int)(-(int64_t)v) : (int)v;
	return 0;
}

int cix_cache_info_parse(const char *buf, size_t len, struct cix_cache_info *ci,
			 struct cix_err *err)
{
	const char *p = buf, *end = buf + len;
	size_t no = 0;
	char q[96];
	struct cix_err e;
	int r = 0;

	memset(ci, 0, sizeof(*ci));
	if (len > CIX_CACHE_INFO_MAX_SIZE)
		return cix_error(err, -CIX_ELIMIT, "nix-cache-info larger than %u bytes",
				 CIX_CACHE_INFO_MAX_SIZE);
	if (memchr(buf, '\0', len))
		return cix_error(err, -CIX_EFORMAT, "nix-cache-info holds a NUL byte");
	for (; p < end; p++) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));
		const char *colon, *k, *v, *ve;
		if (!eol)
			eol = end;
		no++;
		colon = memchr(p, ':', (size_t)(eol - p));
		if (!colon) {
			p = eol;
			continue;
		}
		k = p;
		v = colon + 1;
		ve = eol;
		while (v < ve && is_blank(*v))
			v++;
		while (ve > v && is_blank(ve[-1]))
			ve--;
		size_t kl = (size_t)(colon - k), vl = (size_t)(ve - v);
		if (kl == 8 && !memcmp(k, "StoreDir", 8)) {
			char *dir = xstrndup(v, vl);
			if (cix_store_dir_check(dir, &e) < 0) {
				r = cix_error(err, -CIX_EFORMAT, "nix-cache-info line %zu: %s", no, e.msg);
				free(dir);
				goto fail;
			}
			if (ci->store_dir && strcmp(ci->store_dir, dir)) {
				r = cix_error(err, -CIX_EFORMAT,
					      "nix-cache-info line %zu: a second StoreDir", no);
				free(dir);
				goto fail;
			}
			free(ci->store_dir);
			ci->store_dir = dir;
		} else if (kl == 13 && !memcmp(k, "WantMassQuery", 13)) {
			ci->has_want_mass_query = 1;
			ci->want_mass_query = vl == 1 && *v == '1';
		} else if (kl == 8 && !memcmp(k, "Priority", 8)) {
			if (int_from(v, vl, &ci->priority) < 0) {
				r = cix_error(err, -CIX_EFORMAT, "nix-cache-info line %zu: bad Priority '%s'",
					      no, cix_quote(q, sizeof(q), v, vl));
				goto fail;
			}
			ci->has_priority = 1;
		}
		p = eol;
	}
	return 0;
fail:
	cix_cache_info_release(ci);
	return r;
}

void cix_cache_info_format(const struct cix_cache_info *ci, struct strbuf *out)
{
	if (ci->store_dir)
		strbuf_addf(out, "StoreDir: %s\n", ci->store_dir);
	if (ci->has_want_mass_query)
		strbuf_addf(out, "WantMassQuery: %d\n", ci->want_mass_query ? 1 : 0);
	if (ci->has_priority)
		strbuf_addf(out, "Priority: %d\n", ci->priority);
}

int cix_path_fingerprint(const char *store_dir, const char *path, const struct cix_hash *nar_hash,
			 uint64_t nar_size, const char *const *refs, size_t nr_refs,
			 struct strbuf *out, struct cix_err *err)
{
	struct cix_narinfo ni = CIX_NARINFO_INIT;
	size_t skip = strlen(store_dir) + 1;
	int r;

	ni.store_path = (char *)path;
	ni.nar_hash = *nar_hash;
	ni.nar_size = nar_size;
	for (size_t i = 0; i < nr_refs; i++)
		strvec_push(&ni.refs, strlen(refs[i]) > skip ? refs[i] + skip : refs[i]);
	r = cix_narinfo_fingerprint(&ni, store_dir, out, err);
	strvec_clear(&ni.refs);
	return r;
}
