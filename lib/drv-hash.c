/* drv-hash.c - hashDerivationModulo, output paths and .drv store paths */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "quote.h"
#include "drv.h"
#include "encoding.h"
#include "store-path.h"
#include "str-index.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Input derivations deeper than this are refused (the recursion is on the C stack). */
#define MAX_DEPTH 1024

enum memo_state { MEMO_EMPTY, MEMO_BUSY, MEMO_DONE };

struct memo {
	char *path;
	enum memo_state state;
	int fixed;
	unsigned char hash[32];
};

struct cix_drv_hasher {
	char *store_dir;
	cix_drv_load_fn load;
	void *data;
	struct memo *tab;   /* open addressing, power-of-two size */
	size_t size, used;
};

int cix_drv_is_fixed(const struct cix_drv *drv)
{
	return drv->nr_outputs == 1 && *drv->outputs[0].hash_algo &&
	       !strcmp(drv->outputs[0].name, "out");
}

struct cix_drv_hasher *cix_drv_hasher_new(const char *store_dir,
					  cix_drv_load_fn load, void *data)
{
	struct cix_drv_hasher *h = xcalloc(1, sizeof(*h));
	h->store_dir = xstrdup(store_dir);
	h->load = load;
	h->data = data;
	h->size = 64;
	h->tab = xcalloc(h->size, sizeof(*h->tab));
	return h;
}

void cix_drv_hasher_free(struct cix_drv_hasher *h)
{
	if (!h)
		return;
	for (size_t i = 0; i < h->size; i++)
		free(h->tab[i].path);
	free(h->tab);
	free(h->store_dir);
	free(h);
}

static size_t str_hash(const char *s)
{
	size_t v = 14695981039346656037ULL;
	for (; *s; s++)
		v = (v ^ (unsigned char)*s) * 1099511628211ULL;
	return v;
}

/* The slot for path: its entry, or the empty slot where it belongs. */
static struct memo *memo_slot(struct cix_drv_hasher *h, const char *path)
{
	size_t i = str_hash(path) & (h->size - 1);
	while (h->tab[i].path && strcmp(h->tab[i].path, path))
		i = (i + 1) & (h->size - 1);
	return &h->tab[i];
}

static struct memo *memo_get(struct cix_drv_hasher *h, const char *path)
{
	struct memo *m = memo_slot(h, path);
	if (m->path)
		return m;
	if (2 * (h->used + 1) > h->size) {
		struct memo *old = h->tab;
		size_t oldsize = h->size;
		h->size *= 2;
		h->tab = xcalloc(h->size, sizeof(*h->tab));
		for (size_t i = 0; i < oldsize; i++)
			if (old[i].path)
				*memo_slot(h, old[i].path) = old[i];
		free(old);
		m = memo_slot(h, path);
	}
	m->path = xstrdup(path);
	m->state = MEMO_EMPTY;
	h->used++;
	return m;
}

int cix_drv_name_from_path(const char *store_dir, const char *drv_path,
			   struct strbuf *name, struct cix_err *err)
{
	struct cix_store_path_parts parts;
	int r = cix_store_path_parse(store_dir, drv_path, &parts, err);
	if (r < 0)
		return r;
	if (parts.name_len <= 4 || strcmp(parts.name + parts.name_len - 4, ".drv"))
		return cix_error(err, -CIX_EFORMAT, "'%s' is not a .drv store path", drv_path);
	strbuf_add(name, parts.name, parts.name_len - 4);
	return 0;
}

int cix_drv_store_path(const struct cix_drv *drv, const char *store_dir,
		       const char *drv_name, struct strbuf *out,
		       struct cix_err *err)
{
	struct strbuf text = STRBUF_INIT, name = STRBUF_INIT;
	struct cix_hash h;
	size_t nr = drv->nr_input_srcs + drv->nr_input_drvs;
	const char **refs = xmalloc((nr ? nr : 1) * sizeof(*refs));
	int r;

	for (size_t i = 0; i < drv->nr_input_srcs; i++)
		refs[i] = drv->input_srcs[i];
	for (size_t i = 0; i < drv->nr_input_drvs; i++)
		refs[drv->nr_input_srcs + i] = drv->input_drvs[i].path;
	cix_drv_unparse(drv, &text);
	cix_hash_buf(CIX_HASH_SHA256, text.buf, text.len, &h);
	strbuf_addf(&name, "%s.drv", drv_name);
	r = cix_store_path_make_text(out, store_dir, name.buf, &h, refs, nr, err);
	free(refs);
	strbuf_release(&text);
	strbuf_release(&name);
	return r;
}

/* The fixed hash of a fixed output: recursive flag and digest. */
static int fixed_hash(const struct cix_drv_output *o, int *recursive,
		      struct cix_hash *hash, struct cix_err *err)
{
	const char *a = o->hash_algo;
	size_t n;

	*recursive = !strncmp(a, "r:", 2);
	if (*recursive)
		a += 2;
	if (cix_hash_algo_parse(a, &hash->algo) < 0)
		return cix_error(err, -CIX_EFORMAT, "output '%s' has an unknown hash algorithm",
				 o->name);
	n = cix_hash_algo_size(hash->algo);
	if (strlen(o->hash) != 2 * n ||
	    cix_base16_decode(o->hash, 2 * n, hash->bytes, sizeof(hash->bytes)) != (int)n)
		return cix_error(err, -CIX_EFORMAT, "output '%s' has a malformed hash", o->name);
	hash->len = n;
	return 0;
}

static int fixed_output_path(const char *store_dir, const struct cix_drv_output *o,
			     const char *drv_name, struct strbuf *out,
			     struct cix_err *err)
{
	struct strbuf name = STRBUF_INIT;
	struct cix_hash hash;
	int recursive, r;

	r = fixed_hash(o, &recursive, &hash, err);
	if (!r) {
		cix_store_output_path_name(&name, drv_name, o->name);
		r = cix_store_path_make_fixed(out, store_dir, name.buf, recursive, &hash, err);
	}
	strbuf_release(&name);
	return r;
}

static int hash_modulo(struct cix_drv_hasher *h, const struct cix_drv *drv,
		       const char *drv_name, int mask, unsigned char out[32],
		       int depth, struct cix_err *err);

static int hash_modulo_path(struct cix_drv_hasher *h, const char *path,
			    unsigned char out[32], int *fixed, int depth,
			    struct cix_err *err)
{
	struct strbuf name = STRBUF_INIT;
	struct cix_drv *drv = NULL;
	struct memo *m;
	unsigned char hash[32];
	int r;

	m = memo_get(h, path);
	if (m->state == MEMO_DONE)
		goto done;
	if (m->state == MEMO_BUSY)
		return cix_error(err, -CIX_EFORMAT, "input derivation '%s' depends on itself", path);
	if (depth > MAX_DEPTH)
		return cix_error(err, -CIX_ELIMIT, "input derivations nested deeper than %d",
				 MAX_DEPTH);
	if ((r = cix_drv_name_from_path(h->store_dir, path, &name, err)) < 0)
		return r;
	m->state = MEMO_BUSY;
	r = h->load(h->data, path, &drv, err);
	if (!r)
		r = hash_modulo(h, drv, name.buf, 0, hash, depth, err);
	/* The table may have grown while recursing. */
	m = memo_slot(h, path);
	if (!r) {
		m->fixed = cix_drv_is_fixed(drv);
		memcpy(m->hash, hash, sizeof(hash));
	}
	m->state = r ? MEMO_EMPTY : MEMO_DONE;
	cix_drv_free(drv);
	strbuf_release(&name);
	if (r < 0)
		return r;
done:
	memcpy(out, m->hash, 32);
	*fixed = m->fixed;
	return 0;
}

static int cmp_input(const void *a, const void *b)
{
	return strcmp(((const struct cix_drv_input *)a)->path,
		      ((const struct cix_drv_input *)b)->path);
}

/* Add the names of src to dst (both sorted), keeping dst sorted and unique. */
static void merge_outputs(struct cix_drv_input *dst, const struct cix_drv_input *src)
{
	size_t n = dst->nr_outputs + src->nr_outputs, k = 0;
	char **v = xmalloc((n ? n : 1) * sizeof(*v));
	if (dst->nr_outputs)
		memcpy(v, dst->outputs, dst->nr_outputs * sizeof(*v));
	if (src->nr_outputs)
		memcpy(v + dst->nr_outputs, src->outputs, src->nr_outputs * sizeof(*v));
	if (n > 1)
		qsort(v, n, sizeof(*v), cix_cmp_str);
	for (size_t i = 0; i < n; i++)
		if (!k || strcmp(v[k - 1], v[i]))
			v[k++] = v[i];
	free(dst->outputs);
	dst->outputs = v;
	dst->nr_outputs = k;
}

static int hash_modulo(struct cix_drv_hasher *h, const struct cix_drv *drv,
		       const char *drv_name, int mask, unsigned char out[32],
		       int depth, struct cix_err *err)
{
	struct strbuf sb = STRBUF_INIT;
	struct cix_drv_input *in;
	struct cix_hash res;
	size_t nr = 0;
	int r = 0;

	if (cix_drv_is_fixed(drv)) {
		const struct cix_drv_output *o = &drv->outputs[0];
		strbuf_addf(&sb, "fixed:out:%s:%s:", o->hash_algo, o->hash);
		r = fixed_output_path(h->store_dir, o, drv_name, &sb, err);
		if (!r) {
			cix_hash_buf(CIX_HASH_SHA256, sb.buf, sb.len, &res);
			memcpy(out, res.bytes, 32);
		}
		strbuf_release(&sb);
		return r;
	}

	/*
	 * Replace each input by the base16 of its modulo hash. Two inputs
	 * may share a hash: as in Nix, the output names of fixed-output
	 * inputs are merged, while a regular input replaces the earlier one.
	 */
	in = xcalloc(drv->nr_input_drvs + 1, sizeof(*in));
	/* The hashes seen, by a table: thousands of inputs are not compared in pairs. */
	const char **keys = xcalloc(drv->nr_input_drvs + 1, sizeof(*keys));
	struct cix_str_index seen = { 0 };
	for (size_t i = 0; i < drv->nr_input_drvs && !r; i++) {
		const struct cix_drv_input *src = &drv->input_drvs[i];
		unsigned char ih[32];
		char hex[65];
		struct strbuf hs = STRBUF_INIT;
		int fixed;
		size_t j;

		r = hash_modulo_path(h, src->path, ih, &fixed, depth + 1, err);
		if (r < 0)
			break;
		for (size_t k = 0; fixed && k < src->nr_outputs; k++)
			if (strcmp(src->outputs[k], "out")) {
				char b[96];
				const char *o = src->outputs[k];
				r = cix_error(err, -CIX_EFORMAT,
					      "fixed-output input '%s' has no output '%s'", src->path,
					      cix_quote(b, sizeof(b), o, strlen(o)));
				break;
			}
		if (r < 0)
			break;
		cix_base16_encode(&hs, ih, sizeof(ih));
		memcpy(hex, hs.buf, sizeof(hex));
		strbuf_release(&hs);
		long seen_at = cix_str_index_find(&seen, hex);
		j = seen_at < 0 ? nr : (size_t)seen_at;
		if (j == nr) {
			keys[nr] = in[nr].path = xstrdup(hex);
			in[nr].outputs = NULL;
			in[nr++].nr_outputs = 0;
			cix_str_index_push(&seen, keys, nr);
		} else if (!fixed) {
			in[j].nr_outputs = 0;
		}
		merge_outputs(&in[j], src);
	}
	if (!r) {
		qsort(in, nr, sizeof(*in), cmp_input);
		cix_drv_unparse_ext(drv, &sb, mask, in, nr);
		cix_hash_buf(CIX_HASH_SHA256, sb.buf, sb.len, &res);
		memcpy(out, res.bytes, 32);
	}
	for (size_t i = 0; i < nr; i++) {
		free(in[i].path);
		free(in[i].outputs);
	}
	free(in);
	free(keys);
	cix_str_index_release(&seen);
	strbuf_release(&sb);
	return r;
}

int cix_drv_hash_modulo(struct cix_drv_hasher *h, const struct cix_drv *drv,
			const char *drv_name, int mask_outputs,
			struct cix_hash *out, struct cix_err *err)
{
	out->algo = CIX_HASH_SHA256;
	out->len = 32;
	return hash_modulo(h, drv, drv_name, mask_outputs, out->bytes, 0, err);
}

int cix_drv_hash_modulo_path(struct cix_drv_hasher *h, const char *drv_path,
			     struct cix_hash *out, struct cix_err *err)
{
	int fixed;
	out->algo = CIX_HASH_SHA256;
	out->len = 32;
	return hash_modulo_path(h, drv_path, out->bytes, &fixed, 0, err);
}

int cix_drv_output_paths(struct cix_drv_hasher *h, const struct cix_drv *drv,
			 const char *drv_name, struct strbuf *paths,
			 struct cix_err *err)
{
	struct cix_hash mod;
	int r;

	if (cix_drv_is_fixed(drv))
		return fixed_output_path(h->store_dir, &drv->outputs[0], drv_name,
					 &paths[0], err);
	for (size_t i = 0; i < drv->nr_outputs; i++)
		if (*drv->outputs[i].hash_algo)
			return cix_error(err, -CIX_EFORMAT,
					 "a fixed output must be the only output, named 'out'");
	if ((r = cix_drv_hash_modulo(h, drv, drv_name, 1, &mod, err)) < 0)
		return r;
	for (size_t i = 0; i < drv->nr_outputs; i++) {
		r = cix_store_path_make_output(&paths[i], h->store_dir, drv_name,
					       drv->outputs[i].name, &mod, err);
		if (r < 0)
			return r;
	}
	return 0;
}

int cix_drv_check_outputs(struct cix_drv_hasher *h, const struct cix_drv *drv,
			  const char *drv_name, struct strbuf *paths,
			  struct cix_err *err)
{
	struct strbuf *own = NULL;
	size_t n = drv->nr_outputs;
	int r;

	if (!paths) {
		own = xcalloc(n ? n : 1, sizeof(*own));
		for (size_t i = 0; i < n; i++)
			strbuf_init(&own[i], 0);
		paths = own;
	}
	r = cix_drv_output_paths(h, drv, drv_name, paths, err);
	for (size_t i = 0; i < n && !r; i++) {
		const struct cix_drv_output *o = &drv->outputs[i];
		const char *env = cix_drv_getenv(drv, o->name);
		char b[96];
		if (strcmp(o->path, paths[i].buf))
			r = cix_error(err, -CIX_EMISMATCH,
				      "output '%s' has path '%s', should be '%s'", o->name,
				      cix_quote(b, sizeof(b), o->path, strlen(o->path)),
				      paths[i].buf);
		else if (!env)
			r = cix_error(err, -CIX_EMISMATCH,
				      "environment variable '%s' is missing, should be '%s'",
				      o->name, paths[i].buf);
		else if (strcmp(env, paths[i].buf))
			r = cix_error(err, -CIX_EMISMATCH,
				      "environment variable '%s' is '%s', should be '%s'", o->name,
				      cix_quote(b, sizeof(b), env, strlen(env)), paths[i].buf);
	}
	if (own) {
		for (size_t i = 0; i < n; i++)
			strbuf_release(&own[i]);
		free(own);
	}
	return r;
}

int cix_drv_fill_outputs(struct cix_drv_hasher *h, struct cix_drv *drv,
			 const char *drv_name, struct cix_err *err)
{
	size_t n = drv->nr_outputs;
	struct strbuf *paths;
	int r;

	if ((r = cix_drv_canonicalize(drv, err)) < 0)
		return r;
	if (!cix_drv_is_fixed(drv)) {
		for (size_t i = 0; i < n; i++) {
			drv->outputs[i].path = cix_drv_strdup(drv, "");
			cix_drv_setenv(drv, drv->outputs[i].name, "");
		}
		if ((r = cix_drv_canonicalize(drv, err)) < 0)
			return r;
	}
	paths = xcalloc(n ? n : 1, sizeof(*paths));
	for (size_t i = 0; i < n; i++)
		strbuf_init(&paths[i], 0);
	r = cix_drv_output_paths(h, drv, drv_name, paths, err);
	for (size_t i = 0; i < n; i++) {
		if (!r) {
			drv->outputs[i].path = cix_drv_strdup(drv, paths[i].buf);
			cix_drv_setenv(drv, drv->outputs[i].name, paths[i].buf);
		}
		strbuf_release(&paths[i]);
	}
	free(paths);
	if (!r)
		r = cix_drv_canonicalize(drv, err);
	return r;
}
