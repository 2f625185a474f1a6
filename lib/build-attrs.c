/* build-attrs.c - __structuredAttrs' files and exportReferencesGraph, as Nix 2.8 */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "build-int.h"
#include "encoding.h"
#include "store.h"
#include "store-path.h"
#include "util.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- The closure a builder is given ---- */

/*
 * The closure of roots (each in the input closure), and of the outputs
 * of any derivation in it, into g.
 */
static int export_closure(struct building *b, const struct cix_db_graph *inputs,
			  struct strvec *roots, struct cix_db_graph *g, struct cix_err *err)
{
	size_t nr_roots = roots->nr;
	int r;
	for (size_t i = 0; i < roots->nr; i++) {
		int found = 0;
		for (size_t k = 0; !found && k < inputs->nr; k++)
			found = !strcmp(inputs->paths[k], roots->v[i]);
		if (!found)
			return cix_error(err, -CIX_EINVAL, "cannot export references of path '%s' because "
					 "it is not in the input closure of the derivation", roots->v[i]);
	}
	if ((r = cix_db_graph(b->s->db, (const char *const *)roots->v, roots->nr,
			      CIX_DB_EDGES_REQUISITES, g, err)) < 0)
		return r;
	for (size_t i = 0; i < g->nr; i++) {
		size_t n = strlen(g->paths[i]);
		struct cix_drv *d;
		if (n < 4 || strcmp(g->paths[i] + n - 4, ".drv"))
			continue;
		if ((r = cix_drv_parse_file(g->paths[i], b->s->store_dir, &d, err)) < 0)
			return r;
		for (size_t o = 0; o < d->nr_outputs; o++)
			strvec_push(roots, d->outputs[o].path);
		cix_drv_free(d);
	}
	if (roots->nr == nr_roots)
		return 0;
	cix_db_graph_release(g);
	return cix_db_graph(b->s->db, (const char *const *)roots->v, roots->nr,
			    CIX_DB_EDGES_REQUISITES, g, err);
}

/* nix-store --register-validity's format, with no deriver. */
static void registration(const struct cix_db_graph *g, struct strbuf *out)
{
	for (size_t i = 0; i < g->nr; i++) {
		strbuf_addf(out, "%s\n\n%zu\n", g->paths[i], g->refs_at[i + 1] - g->refs_at[i]);
		for (size_t k = g->refs_at[i]; k < g->refs_at[i + 1]; k++)
			strbuf_addf(out, "%s\n", g->paths[g->refs[k]]);
	}
}

/* Is name one exportReferencesGraph may write: [A-Za-z_][A-Za-z0-9_.-]*? */
static int good_file_name(const char *name)
{
	if (!((*name >= 'A' && *name <= 'Z') || (*name >= 'a' && *name <= 'z') || *name == '_'))
		return 0;
	for (const char *c = name + 1; *c; c++)
		if (!((*c >= 'A' && *c <= 'Z') || (*c >= 'a' && *c <= 'z') ||
		      (*c >= '0' && *c <= '9') || strchr("_.-", *c)))
			return 0;
	return 1;
}

/* The store path a path in the store lies in, pushed onto out. */
static int store_path_of(struct building *b, const char *p, struct strvec *out,
			 struct cix_err *err)
{
	const char *dir = b->s->store_dir;
	size_t n = strlen(dir);
	const char *slash;
	struct strbuf sp = STRBUF_INIT;
	int r;
	if (strncmp(p, dir, n) || p[n] != '/')
		return cix_error(err, -CIX_EINVAL, "'exportReferencesGraph' contains a non-store path '%s'", p);
	slash = strchr(p + n + 1, '/');
	strbuf_add(&sp, p, slash ? (size_t)(slash - p) : strlen(p));
	if ((r = cix_store_path_parse(dir, sp.buf, NULL, err)) == 0)
		strvec_push(out, sp.buf);
	strbuf_release(&sp);
	return r;
}

/* exportReferencesGraph = [ FILE PATH ... ]: FILE holds PATH's closure. */
int cix_build_export_graphs(struct building *b, const struct cix_db_graph *inputs,
			    struct cix_build_setup *st, struct cix_err *err)
{
	const char *s = cix_drv_getenv(b->drv, "exportReferencesGraph");
	struct strvec words = STRVEC_INIT;
	int r = 0;
	strvec_split(&words, s, " \t\n\r");
	if (words.nr % 2)
		r = cix_error(err, -CIX_EINVAL, "odd number of tokens in 'exportReferencesGraph': '%s'", s);
	for (size_t i = 0; !r && i < words.nr; i += 2) {
		struct strvec roots = STRVEC_INIT;
		struct cix_db_graph g = { 0 };
		struct strbuf text = STRBUF_INIT;
		if (!good_file_name(words.v[i]))
			r = cix_error(err, -CIX_EINVAL, "invalid file name '%s' in 'exportReferencesGraph'",
				      words.v[i]);
		else if ((r = store_path_of(b, words.v[i + 1], &roots, err)) == 0 &&
			 (r = export_closure(b, inputs, &roots, &g, err)) == 0) {
			registration(&g, &text);
			cix_build_file_add(st, words.v[i], text.buf);
			cix_db_graph_release(&g);
		}
		strbuf_release(&text);
		strvec_clear(&roots);
	}
	strvec_clear(&words);
	return r;
}

/* ---- __structuredAttrs ---- */

/* The closure's size: the NAR sizes of the paths i reaches in g. */
static unsigned long long closure_size(const struct cix_db_graph *g, size_t i,
				       const unsigned long long *sizes)
{
	unsigned char *seen = xcalloc(g->nr + 1, 1);
	size_t *stack = xcalloc(g->nr + 1, sizeof(*stack)), n = 0;
	unsigned long long sum = 0;
	stack[n++] = i;
	seen[i] = 1;
	while (n) {
		size_t p = stack[--n];
		sum += sizes[p];
		for (size_t k = g->refs_at[p]; k < g->refs_at[p + 1]; k++)
			if (!seen[g->refs[k]]) {
				seen[g->refs[k]] = 1;
				stack[n++] = g->refs[k];
			}
	}
	free(seen);
	free(stack);
	return sum;
}

static void jv_add_string(struct cix_jv *obj, const char *key, const char *s)
{
	cix_jv_set_string(obj, key, s);
}

static void jv_add_int(struct cix_jv *obj, const char *key, unsigned long long u)
{
	struct cix_jv *m = cix_jv_set(obj, key);
	m->type = CIX_JV_INT;
	m->u = u;
}

/* One path's object, as Nix's pathInfoToJSON (with the closure's size). */
static int path_json(struct building *b, const struct cix_db_graph *g, size_t i,
		     const unsigned long long *sizes, struct cix_jv *obj, struct cix_err *err)
{
	struct cix_path_info info = { 0 };
	struct strbuf h = STRBUF_INIT;
	struct cix_jv *refs;
	int r = cix_db_query(b->s->db, g->paths[i], &info, err);
	if (r < 0)
		return r;
	obj->type = CIX_JV_OBJECT;
	jv_add_string(obj, "path", g->paths[i]);
	strbuf_addstr(&h, "sha256:");
	cix_nixbase32_encode(&h, info.nar_hash.bytes, info.nar_hash.len);
	jv_add_string(obj, "narHash", h.buf);
	jv_add_int(obj, "narSize", info.nar_size);
	jv_add_int(obj, "closureSize", closure_size(g, i, sizes));
	if (info.ca)
		jv_add_string(obj, "ca", info.ca);
	refs = cix_jv_set(obj, "references");
	refs->type = CIX_JV_ARRAY;
	for (size_t k = 0; k < info.nr_refs; k++) {
		ALLOC_GROW(refs->items, refs->nr + 1, refs->alloc);
		memset(&refs->items[refs->nr], 0, sizeof(*refs->items));
		refs->items[refs->nr].type = CIX_JV_STRING;
		refs->items[refs->nr].s = xstrdup(info.refs[k]);
		refs->items[refs->nr++].len = strlen(info.refs[k]);
	}
	strbuf_release(&h);
	cix_path_info_release(&info);
	return 0;
}

static int graph_json(struct building *b, const struct cix_db_graph *g, struct cix_jv *list,
		      struct cix_err *err)
{
	unsigned long long *sizes = xcalloc(g->nr + 1, sizeof(*sizes));
	int r = 0;
	for (size_t i = 0; !r && i < g->nr; i++) {
		struct cix_path_info info = { 0 };
		if ((r = cix_db_query(b->s->db, g->paths[i], &info, err)) == 0)
			sizes[i] = info.nar_size;
		cix_path_info_release(&info);
	}
	list->type = CIX_JV_ARRAY;
	list->items = xcalloc(g->nr + 1, sizeof(*list->items));
	list->alloc = g->nr + 1;
	for (size_t i = 0; !r && i < g->nr; i++)
		r = path_json(b, g, i, sizes, &list->items[list->nr++], err);
	free(sizes);
	return r;
}

/* exportReferencesGraph = { NAME = PATH or [ PATH ... ]; }: NAME gets the closure. */
static int structured_graphs(struct building *b, const struct cix_db_graph *inputs,
			     struct cix_jv *json, struct cix_err *err)
{
	const struct cix_jv *e = cix_jv_get(json, "exportReferencesGraph");
	struct strvec keys = STRVEC_INIT;
	int r = 0;
	if (!e || e->type != CIX_JV_OBJECT)
		return 0;
	for (size_t i = 0; i < e->nr; i++)
		strvec_push(&keys, e->items[i].key);
	for (size_t i = 0; !r && i < keys.nr; i++) {
		/* Indexed again: setting a member moves the others. */
		const struct cix_jv *v = cix_jv_get(cix_jv_get(json, "exportReferencesGraph"), keys.v[i]);
		const struct cix_jv *one = v->type == CIX_JV_STRING ? v : NULL;
		size_t n = one ? 1 : v->type == CIX_JV_ARRAY ? v->nr : 0;
		struct strvec roots = STRVEC_INIT;
		struct cix_db_graph g = { 0 };
		for (size_t k = 0; !r && k < n; k++) {
			const struct cix_jv *p = one ? one : &v->items[k];
			if (p->type != CIX_JV_STRING)
				r = cix_error(err, -CIX_EFORMAT, "exportReferencesGraph of '%s': '%s' is not "
					      "a string or a list of strings", b->drv_path, keys.v[i]);
			else if ((r = cix_store_path_parse(b->s->store_dir, p->s, NULL, err)) == 0)
				strvec_push(&roots, p->s);
		}
		if (!r && (r = export_closure(b, inputs, &roots, &g, err)) == 0) {
			r = graph_json(b, &g, cix_jv_set(json, keys.v[i]), err);
			cix_db_graph_release(&g);
		}
		strvec_clear(&roots);
	}
	strvec_clear(&keys);
	return r;
}

/* As bash reads it: '...' with each ' as '\''. */
static void shell_quote(struct strbuf *sb, const char *s)
{
	strbuf_addch(sb, '\'');
	for (; *s; s++)
		if (*s == '\'')
			strbuf_addstr(sb, "'\\''");
		else
			strbuf_addch(sb, *s);
	strbuf_addch(sb, '\'');
}

/* A string, whole number, null or Boolean, as .attrs.sh has it; 0 if not one. */
static int sh_scalar(struct strbuf *sb, const struct cix_jv *v)
{
	switch (v->type) {
	case CIX_JV_STRING:
		shell_quote(sb, v->s);
		return 1;
	case CIX_JV_INT:
		/* Nix takes the int of it, wrapping */
		strbuf_addf(sb, "%d", (int)(unsigned)(v->neg ? 0 - v->u : v->u));
		return 1;
	case CIX_JV_FLOAT:
		if (ceilf((float)v->d) != (float)v->d)
			return 0;
		strbuf_addf(sb, "%d", v->d > INT_MIN && v->d < INT_MAX ? (int)v->d : INT_MIN);
		return 1;
	case CIX_JV_NULL:
		strbuf_addstr(sb, "''");
		return 1;
	case CIX_JV_BOOL:
		strbuf_addstr(sb, v->b ? "1" : "");
		return 1;
	default:
		return 0;
	}
}

static int sh_name(const char *k)
{
	if (!((*k >= 'A' && *k <= 'Z') || (*k >= 'a' && *k <= 'z') || *k == '_'))
		return 0;
	for (k++; *k; k++)
		if (!((*k >= 'A' && *k <= 'Z') || (*k >= 'a' && *k <= 'z') ||
		      (*k >= '0' && *k <= '9') || *k == '_'))
			return 0;
	return 1;
}

/* One declare line for member m, or nothing when bash cannot hold it. */
static void sh_member(struct strbuf *sh, const struct cix_jv *m)
{
	struct strbuf val = STRBUF_INIT;
	int good = 1;
	if (sh_scalar(&val, m)) {
		strbuf_addf(sh, "declare %s=%s\n", m->key, val.buf);
	} else if (m->type == CIX_JV_ARRAY || m->type == CIX_JV_OBJECT) {
		for (size_t i = 0; good && i < m->nr; i++) {
			if (m->type == CIX_JV_OBJECT) {
				strbuf_addch(&val, '[');
				shell_quote(&val, m->items[i].key);
				strbuf_addstr(&val, "]=");
			}
			good = sh_scalar(&val, &m->items[i]);
			strbuf_addch(&val, ' ');
		}
		if (good)
			strbuf_addf(sh, "declare -%c %s=(%s)\n", m->type == CIX_JV_ARRAY ? 'a' : 'A',
				    m->key, val.buf);
	}
	strbuf_release(&val);
}

/*
 * .attrs.json: __json, with "outputs" mapping each output to its path
 * and each exportReferencesGraph name to its closure; .attrs.sh: the
 * same as bash declarations, of what bash can hold.
 */
int cix_build_structured_files(struct building *b, const struct cix_db_graph *inputs,
			       struct cix_build_setup *st, struct cix_err *err)
{
	struct strbuf json = STRBUF_INIT, sh = STRBUF_INIT;
	struct cix_jv *doc, *outs;
	int r;
	const char *text = cix_drv_getenv(b->drv, "__json");
	if ((r = cix_jv_parse(text, strlen(text), &doc, err)) < 0)
		return r;
	outs = cix_jv_set(doc, "outputs");
	outs->type = CIX_JV_OBJECT;
	for (size_t i = 0; i < b->drv->nr_outputs; i++)
		cix_jv_set_string(outs, b->drv->outputs[i].name, b->drv->outputs[i].path);
	if ((r = structured_graphs(b, inputs, doc, err)) == 0) {
		cix_jv_print(&json, doc);
		for (size_t i = 0; i < doc->nr; i++)
			if (sh_name(doc->items[i].key))
				sh_member(&sh, &doc->items[i]);
		cix_build_file_add(st, ".attrs.json", json.buf);
		cix_build_file_add(st, ".attrs.sh", sh.buf);
	}
	cix_jv_free(doc);
	strbuf_release(&json);
	strbuf_release(&sh);
	return r;
}
