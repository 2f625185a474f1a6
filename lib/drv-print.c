/* drv-print.c - derivations in memory: arena, building, sorting, ATerm printing */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "drv.h"

#include <stdlib.h>
#include <string.h>

/* A bump allocator for the strings of one derivation. */
struct arena_chunk {
	struct arena_chunk *next;
	size_t used, size;
	char data[];
};

struct cix_drv_arena {
	struct arena_chunk *head;
	size_t total;
};

#define ARENA_MIN_CHUNK 4096

char *cix_drv_strndup(struct cix_drv *drv, const char *s, size_t len)
{
	struct cix_drv_arena *a = drv->arena;
	struct arena_chunk *c = a->head;
	char *p;

	if (len >= SIZE_MAX / 2)
		BUG("arena string too long");
	if (!c || c->size - c->used < len + 1) {
		size_t size = a->total < ARENA_MIN_CHUNK ? ARENA_MIN_CHUNK : a->total;
		if (size < len + 1)
			size = len + 1;
		c = xmalloc(sizeof(*c) + size);
		c->size = size;
		c->used = 0;
		c->next = a->head;
		a->head = c;
		a->total += size;
	}
	p = c->data + c->used;
	if (len)
		memcpy(p, s, len);
	p[len] = '\0';
	c->used += len + 1;
	return p;
}

char *cix_drv_strdup(struct cix_drv *drv, const char *s)
{
	return cix_drv_strndup(drv, s, strlen(s));
}

struct cix_drv *cix_drv_new(void)
{
	struct cix_drv *drv = xcalloc(1, sizeof(*drv));
	drv->arena = xcalloc(1, sizeof(*drv->arena));
	drv->platform = cix_drv_strdup(drv, "");
	drv->builder = drv->platform;
	return drv;
}

void cix_drv_free(struct cix_drv *drv)
{
	struct arena_chunk *c, *next;

	if (!drv)
		return;
	for (size_t i = 0; i < drv->nr_input_drvs; i++)
		free(drv->input_drvs[i].outputs);
	free(drv->outputs);
	free(drv->input_drvs);
	free(drv->input_srcs);
	free(drv->args);
	free(drv->env);
	for (c = drv->arena->head; c; c = next) {
		next = c->next;
		free(c);
	}
	free(drv->arena);
	free(drv);
}

void cix_drv_add_output(struct cix_drv *drv, const char *name, const char *path,
			const char *hash_algo, const char *hash)
{
	struct cix_drv_output *o;
	ALLOC_GROW(drv->outputs, drv->nr_outputs + 1, drv->alloc_outputs);
	o = &drv->outputs[drv->nr_outputs++];
	o->name = cix_drv_strdup(drv, name);
	o->path = cix_drv_strdup(drv, path);
	o->hash_algo = cix_drv_strdup(drv, hash_algo);
	o->hash = cix_drv_strdup(drv, hash);
}

void cix_drv_add_input_drv(struct cix_drv *drv, const char *path,
			   const char *const *outputs, size_t nr_outputs)
{
	struct cix_drv_input *in;
	ALLOC_GROW(drv->input_drvs, drv->nr_input_drvs + 1, drv->alloc_input_drvs);
	in = &drv->input_drvs[drv->nr_input_drvs++];
	in->path = cix_drv_strdup(drv, path);
	in->nr_outputs = nr_outputs;
	in->outputs = xmalloc((nr_outputs ? nr_outputs : 1) * sizeof(*in->outputs));
	for (size_t i = 0; i < nr_outputs; i++)
		in->outputs[i] = cix_drv_strdup(drv, outputs[i]);
}

void cix_drv_add_input_src(struct cix_drv *drv, const char *path)
{
	ALLOC_GROW(drv->input_srcs, drv->nr_input_srcs + 1, drv->alloc_input_srcs);
	drv->input_srcs[drv->nr_input_srcs++] = cix_drv_strdup(drv, path);
}

void cix_drv_add_arg(struct cix_drv *drv, const char *arg)
{
	ALLOC_GROW(drv->args, drv->nr_args + 1, drv->alloc_args);
	drv->args[drv->nr_args++] = cix_drv_strdup(drv, arg);
}

const char *cix_drv_getenv(const struct cix_drv *drv, const char *key)
{
	for (size_t i = 0; i < drv->nr_env; i++)
		if (!strcmp(drv->env[i].key, key))
			return drv->env[i].value;
	return NULL;
}

void cix_drv_setenv(struct cix_drv *drv, const char *key, const char *value)
{
	struct cix_drv_env *e;
	for (size_t i = 0; i < drv->nr_env; i++)
		if (!strcmp(drv->env[i].key, key)) {
			drv->env[i].value = cix_drv_strdup(drv, value);
			return;
		}
	ALLOC_GROW(drv->env, drv->nr_env + 1, drv->alloc_env);
	e = &drv->env[drv->nr_env++];
	e->key = cix_drv_strdup(drv, key);
	e->value = cix_drv_strdup(drv, value);
}

void cix_drv_set_platform(struct cix_drv *drv, const char *platform)
{
	drv->platform = cix_drv_strdup(drv, platform);
}

void cix_drv_set_builder(struct cix_drv *drv, const char *builder)
{
	drv->builder = cix_drv_strdup(drv, builder);
}

static int cmp_output(const void *a, const void *b)
{
	return strcmp(((const struct cix_drv_output *)a)->name,
		      ((const struct cix_drv_output *)b)->name);
}

static int cmp_input(const void *a, const void *b)
{
	return strcmp(((const struct cix_drv_input *)a)->path,
		      ((const struct cix_drv_input *)b)->path);
}

static int cmp_env(const void *a, const void *b)
{
	return strcmp(((const struct cix_drv_env *)a)->key,
		      ((const struct cix_drv_env *)b)->key);
}

/* Sort a string array and drop repeats; returns the new count. */
static size_t sort_uniq(char **v, size_t n)
{
	size_t k = 0;
	if (n > 1)
		qsort(v, n, sizeof(*v), cix_cmp_str);
	for (size_t i = 0; i < n; i++)
		if (!k || strcmp(v[k - 1], v[i]))
			v[k++] = v[i];
	return k;
}

int cix_drv_canonicalize(struct cix_drv *drv, struct cix_err *err)
{
	size_t k = 0;

	if (drv->nr_outputs > 1)
		qsort(drv->outputs, drv->nr_outputs, sizeof(*drv->outputs), cmp_output);
	for (size_t i = 1; i < drv->nr_outputs; i++)
		if (!strcmp(drv->outputs[i - 1].name, drv->outputs[i].name))
			return cix_error(err, -CIX_EFORMAT, "duplicate output '%s'",
					 drv->outputs[i].name);
	if (drv->nr_input_drvs > 1)
		qsort(drv->input_drvs, drv->nr_input_drvs, sizeof(*drv->input_drvs), cmp_input);
	for (size_t i = 0; i < drv->nr_input_drvs; i++) {
		struct cix_drv_input *cur = &drv->input_drvs[i];
		if (k && !strcmp(drv->input_drvs[k - 1].path, cur->path)) {
			struct cix_drv_input *prev = &drv->input_drvs[k - 1];
			prev->outputs = xrealloc(prev->outputs, (prev->nr_outputs + cur->nr_outputs + 1) *
						 sizeof(*prev->outputs));
			memcpy(prev->outputs + prev->nr_outputs, cur->outputs,
			       cur->nr_outputs * sizeof(*cur->outputs));
			prev->nr_outputs += cur->nr_outputs;
			free(cur->outputs);
			continue;
		}
		drv->input_drvs[k++] = *cur;
	}
	drv->nr_input_drvs = k;
	for (size_t i = 0; i < drv->nr_input_drvs; i++) {
		struct cix_drv_input *in = &drv->input_drvs[i];
		in->nr_outputs = sort_uniq(in->outputs, in->nr_outputs);
	}
	drv->nr_input_srcs = sort_uniq(drv->input_srcs, drv->nr_input_srcs);
	if (drv->nr_env > 1)
		qsort(drv->env, drv->nr_env, sizeof(*drv->env), cmp_env);
	return 0;
}

void cix_drv_print_string(struct strbuf *sb, const char *s)
{
	const char *run = s;

	strbuf_addch(sb, '"');
	for (; *s; s++) {
		const char *esc;
		switch (*s) {
		case '"': esc = "\\\""; break;
		case '\\': esc = "\\\\"; break;
		case '\n': esc = "\\n"; break;
		case '\r': esc = "\\r"; break;
		case '\t': esc = "\\t"; break;
		default: continue;
		}
		strbuf_add(sb, run, (size_t)(s - run));
		strbuf_addstr(sb, esc);
		run = s + 1;
	}
	strbuf_add(sb, run, (size_t)(s - run));
	strbuf_addch(sb, '"');
}

static void print_strings(struct strbuf *sb, char *const *v, size_t n)
{
	strbuf_addch(sb, '[');
	for (size_t i = 0; i < n; i++) {
		if (i)
			strbuf_addch(sb, ',');
		cix_drv_print_string(sb, v[i]);
	}
	strbuf_addch(sb, ']');
}

static int is_output_name(const struct cix_drv *drv, const char *key)
{
	for (size_t i = 0; i < drv->nr_outputs; i++)
		if (!strcmp(drv->outputs[i].name, key))
			return 1;
	return 0;
}

void cix_drv_unparse_ext(const struct cix_drv *drv, struct strbuf *sb,
			 int mask_outputs, const struct cix_drv_input *inputs,
			 size_t nr_inputs)
{
	if (!inputs) {
		inputs = drv->input_drvs;
		nr_inputs = drv->nr_input_drvs;
	}
	strbuf_addstr(sb, "Derive([");
	for (size_t i = 0; i < drv->nr_outputs; i++) {
		const struct cix_drv_output *o = &drv->outputs[i];
		strbuf_addstr(sb, i ? ",(" : "(");
		cix_drv_print_string(sb, o->name);
		strbuf_addch(sb, ',');
		cix_drv_print_string(sb, mask_outputs ? "" : o->path);
		strbuf_addch(sb, ',');
		cix_drv_print_string(sb, o->hash_algo);
		strbuf_addch(sb, ',');
		cix_drv_print_string(sb, o->hash);
		strbuf_addch(sb, ')');
	}
	strbuf_addstr(sb, "],[");
	for (size_t i = 0; i < nr_inputs; i++) {
		strbuf_addstr(sb, i ? ",(" : "(");
		cix_drv_print_string(sb, inputs[i].path);
		strbuf_addch(sb, ',');
		print_strings(sb, inputs[i].outputs, inputs[i].nr_outputs);
		strbuf_addch(sb, ')');
	}
	strbuf_addstr(sb, "],");
	print_strings(sb, drv->input_srcs, drv->nr_input_srcs);
	strbuf_addch(sb, ',');
	cix_drv_print_string(sb, drv->platform);
	strbuf_addch(sb, ',');
	cix_drv_print_string(sb, drv->builder);
	strbuf_addch(sb, ',');
	print_strings(sb, drv->args, drv->nr_args);
	strbuf_addstr(sb, ",[");
	for (size_t i = 0; i < drv->nr_env; i++) {
		const struct cix_drv_env *e = &drv->env[i];
		strbuf_addstr(sb, i ? ",(" : "(");
		cix_drv_print_string(sb, e->key);
		strbuf_addch(sb, ',');
		cix_drv_print_string(sb, mask_outputs && is_output_name(drv, e->key) ?
				     "" : e->value);
		strbuf_addch(sb, ')');
	}
	strbuf_addstr(sb, "])");
}

void cix_drv_unparse(const struct cix_drv *drv, struct strbuf *sb)
{
	cix_drv_unparse_ext(drv, sb, 0, NULL, 0);
}
