/* build-checks.c - what a derivation says its outputs may refer to, and wrong fixed outputs */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "build-int.h"
#include "encoding.h"
#include "store.h"
#include "store-path.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The checks of one output, as Nix 2.8's: absent ones are NULL. */
struct checks {
	int ignore_self;           /* in the closure checks (without __structuredAttrs) */
	int has_max_size, has_max_closure;
	unsigned long long max_size, max_closure;
	struct strvec *lists[4];   /* allowed refs, allowed reqs, disallowed refs, disallowed reqs */
	struct strvec storage[4];
};

static const char *const list_names[4] = {
	"allowedReferences", "allowedRequisites", "disallowedReferences", "disallowedRequisites",
};

static void checks_release(struct checks *c)
{
	for (int i = 0; i < 4; i++)
		strvec_clear(&c->storage[i]);
}

static long output_named(const struct cix_drv *drv, const char *name)
{
	for (size_t i = 0; i < drv->nr_outputs; i++)
		if (!strcmp(drv->outputs[i].name, name))
			return (long)i;
	return -1;
}

/* Specifiers (store paths, output names) into the sorted set of paths out. */
static int resolve(const struct building *b, const struct strvec *spec, struct strvec *out,
		   struct cix_err *err)
{
	for (size_t i = 0; i < spec->nr; i++) {
		long o;
		if (cix_store_path_parse(b->s->store_dir, spec->v[i], NULL, NULL) == 0)
			strvec_insert_sorted(out, spec->v[i]);
		else if ((o = output_named(b->drv, spec->v[i])) >= 0)
			strvec_insert_sorted(out, b->drv->outputs[o].path);
		else
			return cix_error(err, -CIX_EINVAL,
					 "derivation contains an illegal reference specifier '%s'", spec->v[i]);
	}
	return 0;
}

/*
 * The closure of path (itself included), sorted, and its size: the
 * outputs' references from infos (not registered yet), the rest's from
 * the database.
 */
static int closure(const struct building *b, const struct cix_path_info *infos,
		   const char *path, struct strvec *done, unsigned long long *size,
		   struct cix_err *err)
{
	struct strvec todo = STRVEC_INIT;
	int r = 0;
	*size = 0;
	strvec_push(&todo, path);
	while (!r && todo.nr) {
		char *p = todo.v[--todo.nr];
		long o = strvec_insert_sorted(done, p) ? 0 : -2;
		struct cix_path_info db = { 0 };
		const struct cix_path_info *info = &db;
		for (size_t i = 0; o == 0 && i < b->drv->nr_outputs; i++)
			if (!strcmp(b->drv->outputs[i].path, p))
				o = (long)i + 1;
		if (o == 0)
			r = cix_db_query(b->s->db, p, &db, err);
		else if (o > 0)
			info = &infos[o - 1];
		if (o != -2 && !r) {
			*size += info->nar_size;
			for (size_t k = 0; k < info->nr_refs; k++)
				strvec_push(&todo, info->refs[k]);
		}
		cix_path_info_release(&db);
		free(p);
		todo.v[todo.nr] = NULL;
	}
	strvec_clear(&todo);
	return r;
}

static int bad_paths(const char *path, const struct strvec *bad, struct cix_err *err)
{
	struct strbuf msg = STRBUF_INIT;
	int r;
	for (size_t i = 0; i < bad->nr; i++)
		strbuf_addf(&msg, "\n  %s", bad->v[i]);
	r = cix_error(err, -CIX_EINVAL, "output '%s' is not allowed to refer to the following paths:%s",
		      path, msg.buf);
	strbuf_release(&msg);
	return r;
}

/* One list of c (index k) against the output's references or closure. */
static int check_list(const struct building *b, const struct cix_path_info *infos, size_t out,
		      const struct checks *c, int k, struct cix_err *err)
{
	const struct cix_path_info *info = &infos[out];
	int allowed = k < 2, recursive = k % 2;
	struct strvec spec = STRVEC_INIT, used = STRVEC_INIT, bad = STRVEC_INIT;
	unsigned long long size;
	int r;

	if ((r = resolve(b, c->lists[k], &spec, err)) < 0)
		goto out;
	if (recursive && (r = closure(b, infos, info->path, &used, &size, err)) < 0)
		goto out;
	for (size_t i = 0; !recursive && i < info->nr_refs; i++)
		strvec_insert_sorted(&used, info->refs[i]);
	for (size_t i = 0; i < used.nr; i++) {
		if (recursive && c->ignore_self && !strcmp(used.v[i], info->path))
			continue;
		if ((strvec_find_sorted(&spec, used.v[i]) >= 0) != allowed)
			strvec_push(&bad, used.v[i]);
	}
	if (bad.nr)
		r = bad_paths(info->path, &bad, err);
out:
	strvec_clear(&spec);
	strvec_clear(&used);
	strvec_clear(&bad);
	return r;
}

static int check_sizes(const struct building *b, const struct cix_path_info *infos, size_t out,
		       const struct checks *c, struct cix_err *err)
{
	const struct cix_path_info *info = &infos[out];
	struct strvec done = STRVEC_INIT;
	unsigned long long size;
	int r = 0;
	if (c->has_max_size && info->nar_size > c->max_size)
		return cix_error(err, -CIX_ELIMIT, "path '%s' is too large at %llu bytes; limit is %llu bytes",
				 info->path, (unsigned long long)info->nar_size, c->max_size);
	if (c->has_max_closure && (r = closure(b, infos, info->path, &done, &size, err)) == 0 &&
	    size > c->max_closure)
		r = cix_error(err, -CIX_ELIMIT, "closure of path '%s' is too large at %llu bytes; "
			      "limit is %llu bytes", info->path, size, c->max_closure);
	strvec_clear(&done);
	return r;
}

static int apply(const struct building *b, const struct cix_path_info *infos, size_t out,
		 const struct checks *c, struct cix_err *err)
{
	int r = check_sizes(b, infos, out, c, err);
	for (int k = 0; !r && k < 4; k++)
		if (c->lists[k])
			r = check_list(b, infos, out, c, k, err);
	return r;
}

/* A list of strings of outputChecks (a lone string counts as one, null as none). */
static int json_list(const struct building *b, const struct cix_jv *v, const char *name,
		     struct strvec *out, struct cix_err *err)
{
	const struct cix_jv *one = v->type == CIX_JV_STRING ? v : NULL;
	size_t n = one ? 1 : (v->type == CIX_JV_ARRAY || v->type == CIX_JV_OBJECT) ? v->nr : 0;
	for (size_t i = 0; i < n; i++) {
		const struct cix_jv *s = one ? one : &v->items[i];
		if (s->type != CIX_JV_STRING)
			return cix_error(err, -CIX_EFORMAT, "attribute '%s' of derivation '%s' must be "
					 "a list of strings", name, b->drv_path);
		strvec_push(out, s->s);
	}
	if (v->type != CIX_JV_NULL && !one && !n && v->type != CIX_JV_ARRAY && v->type != CIX_JV_OBJECT)
		return cix_error(err, -CIX_EFORMAT, "attribute '%s' of derivation '%s' must be "
				 "a list of strings", name, b->drv_path);
	return 0;
}

static int json_size(const struct building *b, const struct cix_jv *o, const char *name,
		     int *has, unsigned long long *size, struct cix_err *err)
{
	const struct cix_jv *v = cix_jv_get(o, name);
	if (!v)
		return 0;
	if (v->type != CIX_JV_INT || v->neg)
		return cix_error(err, -CIX_EFORMAT, "'%s' of outputChecks of '%s' must be a number of bytes",
				 name, b->drv_path);
	*has = 1;
	*size = v->u;
	return 0;
}

/* outputChecks.NAME of __json; nothing to check when there is none. */
static int structured_checks(const struct building *b, const char *output, struct checks *c,
			     struct cix_err *err)
{
	const struct cix_jv *o = cix_jv_get(cix_jv_get(b->attrs, "outputChecks"), output);
	int r;
	if (!o)
		return 0;
	if ((r = json_size(b, o, "maxSize", &c->has_max_size, &c->max_size, err)) < 0 ||
	    (r = json_size(b, o, "maxClosureSize", &c->has_max_closure, &c->max_closure, err)) < 0)
		return r;
	for (int k = 0; k < 4; k++) {
		const struct cix_jv *v = cix_jv_get(o, list_names[k]);
		if (!v)
			continue;
		c->lists[k] = &c->storage[k];
		if ((r = json_list(b, v, list_names[k], c->lists[k], err)) < 0)
			return r;
	}
	return 0;
}

static int env_checks(const struct building *b, struct checks *c, struct cix_err *err)
{
	c->ignore_self = 1;
	for (int k = 0; k < 4; k++) {
		int r = cix_build_strings_attr(b, list_names[k], &c->storage[k], err);
		if (r < 0)
			return r;
		if (r)
			c->lists[k] = &c->storage[k];
	}
	return 0;
}

int cix_build_check_outputs(struct building *b, const struct cix_path_info *infos,
			    struct cix_err *err)
{
	int r = 0;
	for (size_t i = 0; !r && i < b->drv->nr_outputs; i++) {
		struct checks c = { 0 };
		r = b->attrs ? structured_checks(b, b->drv->outputs[i].name, &c, err)
			     : env_checks(b, &c, err);
		if (!r)
			r = apply(b, infos, i, &c, err);
		checks_release(&c);
	}
	return r;
}

/* ---- A fixed output with another hash ---- */

static void sri(struct strbuf *sb, enum cix_hash_algo algo, const unsigned char *h, size_t len)
{
	strbuf_addf(sb, "%s-", cix_hash_algo_name(algo));
	cix_base64_encode(sb, h, len);
}

/*
 * Move the output to the path of its content and register it there, so
 * that the next attempt (or an addition of the same file) finds it.
 */
static int keep_as_built(struct building *b, const struct cix_drv_output *o,
			 struct cix_path_info *info, const struct cix_hash *got,
			 struct cix_err *err)
{
	struct cix_store *s = b->s;
	int recursive = !strncmp(o->hash_algo, "r:", 2);
	const char *base = o->path + strlen(s->store_dir) + 1;
	struct strbuf path = STRBUF_INIT, ca = STRBUF_INIT;
	struct cix_path_lock lock = { .fd = -1 };
	struct cix_path_info real = *info;
	int r;

	if (info->nr_refs)
		return 0;   /* a path of its own would need them: Nix leaves it too */
	if ((r = cix_store_path_make_fixed(&path, s->store_dir, base + CIX_STORE_HASH_CHARS + 1,
					   recursive, got, err)) < 0)
		goto out;
	/* Another process making that path has it: then it is its to make. */
	if (cix_path_trylock(s, path.buf, &lock, NULL) < 0) {
		lock.fd = -1;
		goto out;
	}
	if ((r = cix_db_is_valid(s->db, path.buf, err)) != 0)
		goto out;   /* valid already: it stays as it is */
	if (renameat(s->store_fd, base, s->store_fd, path.buf + strlen(s->store_dir) + 1) < 0) {
		r = cix_error_errno(err, -errno, "cannot move '%s' to '%s'", o->path, path.buf);
		goto out;
	}
	strbuf_addf(&ca, "fixed:%s:", o->hash_algo);
	cix_nixbase32_encode(&ca, got->bytes, got->len);
	real.path = path.buf;
	real.ca = ca.buf;
	if ((r = cix_store_register(s, &real, 1, err)) < 0)
		cix_remove_path(s, path.buf, NULL);
out:
	if (lock.fd >= 0)
		cix_path_unlock(s, &lock);
	strbuf_release(&path);
	strbuf_release(&ca);
	return r < 0 ? r : 0;
}

int cix_build_fod_mismatch(struct building *b, const struct cix_drv_output *o,
			   struct cix_path_info *info, const struct cix_hash *got,
			   struct cix_err *err)
{
	struct strbuf want = STRBUF_INIT, have = STRBUF_INIT;
	unsigned char raw[CIX_HASH_MAX_SIZE];
	int n = cix_base16_decode(o->hash, strlen(o->hash), raw, sizeof(raw)), r;

	r = keep_as_built(b, o, info, got, err);
	sri(&want, got->algo, raw, n > 0 ? (size_t)n : 0);
	sri(&have, got->algo, got->bytes, got->len);
	if (r == 0)
		r = cix_error(err, -CIX_EMISMATCH, "hash mismatch in fixed-output derivation '%s':\n"
			      "  specified: %s\n     got:    %s", b->drv_path, want.buf, have.buf);
	strbuf_release(&want);
	strbuf_release(&have);
	return r;
}
