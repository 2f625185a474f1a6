/* lower.c - packages lowered to derivations */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "lower.h"
#include "local-select.h"
#include "remove.h"
#include "drv.h"
#include "encoding.h"
#include "quote.h"
#include "store-path.h"
#include "strbuf.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>

static int load_drv(void *data, const char *drv_path, struct cix_drv **out, struct cix_err *err)
{
	struct cix_lower *l = data;
	return cix_drv_parse_file(drv_path, l->store->store_dir, out, err);
}

/*
 * Make drv (outputs named, paths empty) whole: its output paths, the
 * variables named after them, its .drv written to the store (if write). drv_path
 * and out_paths (one per output, in drv's order before sorting) receive
 * the results.
 */
static int finish_drv(struct cix_lower *l, struct cix_drv *drv, const char *name, int write,
		      char **drv_path, struct strvec *out_paths, struct cix_err *err)
{
	struct cix_drv_hasher *h = NULL;
	struct strbuf *paths = NULL, text = STRBUF_INIT, path = STRBUF_INIT;
	size_t n = drv->nr_outputs;
	const char **refs = NULL;
	struct strvec names = STRVEC_INIT;   /* the outputs in the order written */
	int r;

	for (size_t i = 0; i < n; i++)
		strvec_push(&names, drv->outputs[i].name);
	for (size_t i = 0; i < n; i++)
		if (!*drv->outputs[i].hash_algo)
			cix_drv_setenv(drv, drv->outputs[i].name, "");
	if ((r = cix_drv_canonicalize(drv, err)) < 0)
		return r;
	h = cix_drv_hasher_new(l->store->store_dir, load_drv, l);
	paths = xcalloc(n, sizeof(*paths));
	for (size_t i = 0; i < n; i++)
		strbuf_init(&paths[i], 0);
	if ((r = cix_drv_output_paths(h, drv, name, paths, err)) < 0)
		goto out;
	for (size_t i = 0; i < n; i++) {
		drv->outputs[i].path = cix_drv_strdup(drv, paths[i].buf);
		cix_drv_setenv(drv, drv->outputs[i].name, paths[i].buf);
	}
	if ((r = cix_drv_canonicalize(drv, err)) < 0 ||
	    (r = cix_drv_store_path(drv, l->store->store_dir, name, &path, err)) < 0)
		goto out;
	/* Written once: the path says what it holds. */
	if (write && (r = cix_store_is_valid(l->store, path.buf, err)) == 0) {
		size_t nr = drv->nr_input_srcs + drv->nr_input_drvs;
		struct strbuf file = STRBUF_INIT, got = STRBUF_INIT;
		refs = xcalloc(nr + 1, sizeof(*refs));
		for (size_t i = 0; i < drv->nr_input_srcs; i++)
			refs[i] = drv->input_srcs[i];
		for (size_t i = 0; i < drv->nr_input_drvs; i++)
			refs[drv->nr_input_srcs + i] = drv->input_drvs[i].path;
		cix_drv_unparse(drv, &text);
		strbuf_addf(&file, "%s.drv", name);
		r = cix_store_add_text(l->store, file.buf, text.buf, text.len, refs, nr, &got, err);
		if (!r && strcmp(got.buf, path.buf))
			r = cix_error(err, -CIX_EMISMATCH, "the store put '%s' at '%s'", path.buf,
				      got.buf);
		strbuf_release(&file);
		strbuf_release(&got);
	}
	if (r < 0)
		goto out;
	r = 0;
	*drv_path = strbuf_detach(&path, NULL);
	/* Canonicalising sorted the outputs: give the paths in the order written. */
	for (size_t k = 0; k < names.nr; k++)
		for (size_t i = 0; i < n; i++)
			if (!strcmp(drv->outputs[i].name, names.v[k]))
				strvec_push(out_paths, drv->outputs[i].path);
out:
	strvec_clear(&names);
	for (size_t i = 0; i < n; i++)
		strbuf_release(&paths[i]);
	free(paths);
	free(refs);
	strbuf_release(&text);
	strbuf_release(&path);
	cix_drv_hasher_free(h);
	return r;
}

/* The last component of a URL, for the store name of its download. */
static void url_base_name(const char *url, struct strbuf *out)
{
	const char *end = url + strcspn(url, "?#"), *s = end;
	while (s > url && s[-1] != '/')
		s--;
	strbuf_add(out, s, (size_t)(end - s));
}

int cix_lower_origin(struct cix_lower *l, struct cix_origin *o, struct cix_err *err)
{
	struct strbuf name = STRBUF_INIT, hash = STRBUF_INIT, hex = STRBUF_INIT;
	struct strvec outs = STRVEC_INIT;
	struct cix_drv *drv;
	int r;

	if (o->drv_path)
		return 0;
	if (o->file_name)
		strbuf_addstr(&name, o->file_name);
	else
		url_base_name(o->url, &name);
	if ((r = cix_store_name_check(name.buf, name.len, err)) < 0) {
		r = cix_error(err, r, "cannot name the download of '%s': give it a file-name",
			      o->url);
		goto out;
	}
	if (o->hash.algo != CIX_HASH_SHA256 || o->hash.len != 32) {
		r = cix_error(err, -CIX_EINVAL, "the origin '%s' needs a sha256", o->url);
		goto out;
	}
	/* As Nix 2.8's <nix/fetchurl.nix> writes it: the same .drv, byte for byte. */
	cix_nixbase32_encode(&hash, o->hash.bytes, o->hash.len);
	cix_base16_encode(&hex, o->hash.bytes, o->hash.len);
	drv = cix_drv_new();
	cix_drv_add_output(drv, "out", "", "sha256", hex.buf);
	cix_drv_set_platform(drv, "builtin");
	cix_drv_set_builder(drv, "builtin:fetchurl");
	cix_drv_setenv(drv, "builder", "builtin:fetchurl");
	cix_drv_setenv(drv, "executable", "");
	cix_drv_setenv(drv, "impureEnvVars", "http_proxy https_proxy ftp_proxy all_proxy no_proxy");
	cix_drv_setenv(drv, "name", name.buf);
	cix_drv_setenv(drv, "out", "");
	cix_drv_setenv(drv, "outputHash", hash.buf);
	cix_drv_setenv(drv, "outputHashAlgo", "sha256");
	cix_drv_setenv(drv, "outputHashMode", "flat");
	cix_drv_setenv(drv, "preferLocalBuild", "1");
	cix_drv_setenv(drv, "system", "builtin");
	cix_drv_setenv(drv, "unpack", "");
	cix_drv_setenv(drv, "url", o->url);
	cix_drv_setenv(drv, "urls", o->url);
	r = finish_drv(l, drv, name.buf, 1, &o->drv_path, &outs, err);
	if (!r)
		o->out_path = xstrdup(outs.v[0]);
	cix_drv_free(drv);
out:
	strvec_clear(&outs);
	strbuf_release(&name);
	strbuf_release(&hash);
	strbuf_release(&hex);
	return r;
}

int cix_lower_profile(struct cix_lower *l, const char *const *paths, size_t n,
		      const char *manifest, char **drv_path, char **out_path, struct cix_err *err)
{
	struct cix_drv *drv = cix_drv_new();
	struct strvec outs = STRVEC_INIT;
	struct strbuf list = STRBUF_INIT;
	int r;

	cix_drv_add_output(drv, "out", "", "", "");
	cix_drv_set_platform(drv, "builtin");
	cix_drv_set_builder(drv, "builtin:profile");
	for (size_t i = 0; i < n; i++) {
		cix_drv_add_input_src(drv, paths[i]);
		strbuf_addf(&list, "%s%s", i ? "\n" : "", paths[i]);
	}
	cix_drv_setenv(drv, "builder", "builtin:profile");
	cix_drv_setenv(drv, "manifest", manifest);
	cix_drv_setenv(drv, "name", "profile");
	cix_drv_setenv(drv, "paths", list.buf);
	cix_drv_setenv(drv, "preferLocalBuild", "1");
	cix_drv_setenv(drv, "system", "builtin");
	r = finish_drv(l, drv, "profile", !l->dry_run, drv_path, &outs, err);
	if (!r)
		*out_path = xstrdup(outs.v[0]);
	cix_drv_free(drv);
	strvec_clear(&outs);
	strbuf_release(&list);
	return r;
}

/*
 * A seed, named by its hash: a fixed-output derivation of builtin:bootstrap
 * (lib/builtin-bootstrap.c), so that evaluating writes only derivations
 * and the store that builds finds the seed, in its caches or in its
 * STATE/bootstrap. The output path is the one `cix store --add-fixed`
 * gives the same content.
 */
int cix_lower_item(struct cix_lower *l, struct cix_item *it, struct cix_err *err)
{
	struct strbuf hex = STRBUF_INIT;
	struct strvec outs = STRVEC_INIT;
	struct cix_drv *drv;
	int r;

	if (it->drv_path)
		return 0;
	if ((r = cix_store_name_check(it->name, strlen(it->name), err)) < 0)
		return r;
	cix_base16_encode(&hex, it->hash.bytes, it->hash.len);
	drv = cix_drv_new();
	cix_drv_add_output(drv, "out", "", it->recursive ? "r:sha256" : "sha256", hex.buf);
	cix_drv_set_platform(drv, "builtin");
	cix_drv_set_builder(drv, "builtin:bootstrap");
	cix_drv_setenv(drv, "builder", "builtin:bootstrap");
	cix_drv_setenv(drv, "name", it->name);
	cix_drv_setenv(drv, "out", "");
	cix_drv_setenv(drv, "preferLocalBuild", "1");
	cix_drv_setenv(drv, "system", "builtin");
	r = finish_drv(l, drv, it->name, 1, &it->drv_path, &outs, err);
	if (!r)
		it->path = xstrdup(outs.v[0]);
	cix_drv_free(drv);
	strvec_clear(&outs);
	strbuf_release(&hex);
	return r;
}

/* A local file with #:select?: its selection copied into a tree, added. */
static int lower_selection(struct cix_lower *l, struct cix_file *f, struct strbuf *out,
			   struct cix_err *err)
{
	char *tmp, *tree;
	struct cix_err ignored = { 0 };
	const char *base = strrchr(f->file, '/');
	int r = cix_local_selection_tree(f->file, &f->select,
					 f->name ? f->name : base ? base + 1 : f->file,
					 &tmp, &tree, err);
	if (r)
		return r;
	r = cix_store_add(l->store, tree, CIX_ADD_RECURSIVE, CIX_HASH_SHA256, out, err);
	cix_remove_tree_at(AT_FDCWD, tmp, &ignored);
	free(tmp);
	free(tree);
	/* Each file chosen is read: an edit of any makes the evaluation stale. */
	for (size_t i = 0; !r && l->files_read && i < f->select.nr; i++) {
		struct strbuf one = STRBUF_INIT;
		strbuf_addf(&one, "%s/%s", f->file, f->select.v[i]);
		strvec_push(l->files_read, one.buf);
		strbuf_release(&one);
	}
	return r;
}

int cix_lower_file(struct cix_lower *l, struct cix_file *f, struct cix_err *err)
{
	struct strbuf out = STRBUF_INIT;
	int r;
	if (f->path)
		return 0;
	if (f->selected)
		r = lower_selection(l, f, &out, err);
	else
		r = cix_store_add(l->store, f->file, CIX_ADD_RECURSIVE, CIX_HASH_SHA256, &out, err);
	if (!r && l->files_read)
		strvec_push(l->files_read, f->file);
	if (!r)
		f->path = strbuf_detach(&out, NULL);
	strbuf_release(&out);
	return r;
}

const char *cix_input_path(const struct cix_input *in)
{
	switch (in->kind) {
	case CIX_INPUT_ORIGIN:
		return in->u.origin->out_path;
	case CIX_INPUT_ITEM:
		return in->u.item->path;
	case CIX_INPUT_FILE:
		return in->u.file->path;
	case CIX_INPUT_PACKAGE: {
		const struct cix_package *p = in->u.package;
		const char *want = in->output ? in->output : "out";
		for (size_t i = 0; i < p->outputs.nr && i < p->out_paths.nr; i++)
			if (!strcmp(p->outputs.v[i], want))
				return p->out_paths.v[i];
		return NULL;
	}
	}
	return NULL;
}

static int lower_input(struct cix_lower *l, struct cix_input *in, struct cix_err *err)
{
	switch (in->kind) {
	case CIX_INPUT_PACKAGE:
		return cix_lower_package(l, in->u.package, err);
	case CIX_INPUT_ORIGIN:
		return cix_lower_origin(l, in->u.origin, err);
	case CIX_INPUT_ITEM:
		return cix_lower_item(l, in->u.item, err);
	case CIX_INPUT_FILE:
		return cix_lower_file(l, in->u.file, err);
	}
	return cix_error(err, -CIX_EINVAL, "unknown kind of input");
}

/* What a derivation needs of an input: its .drv and output, or its path. */
static void add_input(struct cix_drv *drv, const struct cix_input *in)
{
	switch (in->kind) {
	case CIX_INPUT_PACKAGE: {
		const char *out = in->output ? in->output : "out";
		cix_drv_add_input_drv(drv, in->u.package->drv_path, &out, 1);
		break;
	}
	case CIX_INPUT_ORIGIN: {
		const char *out = "out";
		cix_drv_add_input_drv(drv, in->u.origin->drv_path, &out, 1);
		break;
	}
	case CIX_INPUT_ITEM: {
		const char *out = "out";
		cix_drv_add_input_drv(drv, in->u.item->drv_path, &out, 1);
		break;
	}
	default:
		cix_drv_add_input_src(drv, cix_input_path(in));
	}
}

/* Inputs, and the propagated inputs of package inputs (transitively), once each. */
struct closure {
	const struct cix_input **v;
	size_t nr, alloc;
};

static void closure_add(struct closure *c, const struct cix_input *in, int depth)
{
	for (size_t i = 0; i < c->nr; i++)
		if (c->v[i]->kind == in->kind && !strcmp(cix_input_path(c->v[i]), cix_input_path(in)))
			return;
	ALLOC_GROW(c->v, c->nr + 1, c->alloc);
	c->v[c->nr++] = in;
	if (in->kind != CIX_INPUT_PACKAGE || depth > 64)
		return;
	const struct cix_package *p = in->u.package;
	for (size_t i = p->nr_inputs - p->nr_propagated; i < p->nr_inputs; i++)
		closure_add(c, &p->inputs[i], depth + 1);
}

/* An environment variable's name from an input's label. */
static void label_var(const char *label, struct strbuf *out)
{
	for (const char *s = label; *s; s++)
		strbuf_addch(out, (*s == '-' || *s == '.' || *s == '+') ? '_' : *s);
}

static const char *find_implicit(const struct cix_package *p, const char *label)
{
	for (size_t i = 0; i < p->nr_implicit; i++)
		if (!strcmp(p->implicit[i].label, label))
			return cix_input_path(&p->implicit[i]);
	return NULL;
}

/* The string an argument stands for: an input's path followed by text, or text. */
static int resolve_arg(const struct cix_package *p, const struct cix_arg *a, struct strbuf *out,
		       struct cix_err *err)
{
	if (a->label) {
		const char *path = NULL;
		for (size_t i = 0; !path && i < p->nr_inputs; i++)
			if (p->inputs[i].label && !strcmp(p->inputs[i].label, a->label))
				path = cix_input_path(&p->inputs[i]);
		if (!path)
			path = find_implicit(p, a->label);
		if (!path)
			return cix_error(err, -CIX_ENOTFOUND, "%s: no input labelled '%s'", p->name,
					 a->label);
		strbuf_addstr(out, path);
	}
	strbuf_addstr(out, a->text ? a->text : "");
	return 0;
}

static int make_package_drv(struct cix_lower *l, struct cix_package *p, struct cix_err *err)
{
	struct strbuf name = STRBUF_INIT, list = STRBUF_INIT, var = STRBUF_INIT;
	struct closure c = { 0 };
	struct cix_drv *drv = cix_drv_new();
	const char *builder;
	int r = 0;

	strbuf_addstr(&name, p->name);
	if (p->version && *p->version)
		strbuf_addf(&name, "-%s", p->version);
	if ((r = cix_store_name_check(name.buf, name.len, err)) < 0)
		goto out;
	for (size_t i = 0; i < p->outputs.nr; i++)
		cix_drv_add_output(drv, p->outputs.v[i], "", "", "");
	cix_drv_set_platform(drv, l->system);
	if (p->build_system == CIX_BS_GNU) {
		const char *gb = find_implicit(p, "gnu-build");
		if (!gb) {
			r = cix_error(err, -CIX_EINVAL, "%s: gnu-build-system has no builder",
				      name.buf);
			goto out;
		}
		strbuf_addf(&var, "%s/bin/gnu-build", gb);
		builder = var.buf;
	} else if (p->builder) {
		if ((r = resolve_arg(p, p->builder, &var, err)) < 0)
			goto out;
		builder = var.buf;
	} else {
		r = cix_error(err, -CIX_EINVAL, "%s: its build system gave no builder", name.buf);
		goto out;
	}
	cix_drv_set_builder(drv, builder);
	builder = cix_drv_strdup(drv, builder);
	for (size_t i = 0; i < p->nr_args; i++) {
		strbuf_reset(&var);
		if ((r = resolve_arg(p, &p->args[i], &var, err)) < 0)
			goto out;
		cix_drv_add_arg(drv, var.buf);
	}

	/* Environment: the package's own, then what nothing may override. */
	for (size_t i = 0; i < p->env.nr; i++) {
		const char *eq = strchr(p->env.v[i], '=');
		if (!eq)
			continue;
		strbuf_reset(&var);
		strbuf_add(&var, p->env.v[i], (size_t)(eq - p->env.v[i]));
		cix_drv_setenv(drv, var.buf, eq + 1);
	}
	for (size_t i = 0; i < p->nr_env_refs; i++) {
		strbuf_reset(&var);
		if ((r = resolve_arg(p, &p->env_refs[i].value, &var, err)) < 0)
			goto out;
		cix_drv_setenv(drv, p->env_refs[i].key, var.buf);
	}
	if (p->has_source) {
		add_input(drv, &p->source);
		cix_drv_setenv(drv, "src", cix_input_path(&p->source));
	}
	/* Cross-built: the target's inputs first, in a list of their own. */
	for (int pass = p->target ? 0 : 1; pass < 2; pass++) {
		c.nr = 0;
		strbuf_reset(&list);
		for (size_t i = 0; i < p->nr_inputs; i++)
			if (pass || !p->target || !p->inputs[i].native)
				if (!pass || !p->target || p->inputs[i].native)
					closure_add(&c, &p->inputs[i], 0);
		for (size_t i = 0; pass && i < p->nr_implicit; i++)
			closure_add(&c, &p->implicit[i], 0);
		for (size_t i = 0; i < c.nr; i++) {
			const char *path = cix_input_path(c.v[i]);
			add_input(drv, c.v[i]);
			if (list.len)
				strbuf_addch(&list, ' ');
			strbuf_addstr(&list, path);
			if (c.v[i]->label && *c.v[i]->label) {
				strbuf_reset(&var);
				label_var(c.v[i]->label, &var);
				if (!cix_drv_getenv(drv, var.buf))
					cix_drv_setenv(drv, var.buf, path);
			}
		}
		cix_drv_setenv(drv, pass ? "buildInputs" : "targetInputs", list.buf);
	}
	strbuf_reset(&list);
	for (size_t i = 0; i < p->outputs.nr; i++)
		strbuf_addf(&list, "%s%s", i ? " " : "", p->outputs.v[i]);
	cix_drv_setenv(drv, "outputs", list.buf);
	cix_drv_setenv(drv, "name", name.buf);
	cix_drv_setenv(drv, "system", l->system);
	cix_drv_setenv(drv, "builder", builder);
	r = finish_drv(l, drv, name.buf, 1, &p->drv_path, &p->out_paths, err);
out:
	cix_drv_free(drv);
	free(c.v);
	strbuf_release(&name);
	strbuf_release(&list);
	strbuf_release(&var);
	return r;
}

int cix_lower_package(struct cix_lower *l, struct cix_package *p, struct cix_err *err)
{
	int r = 0;
	if (p->drv_path)
		return 0;
	if (p->lowering)
		return cix_error(err, -CIX_EINVAL, "package '%s' depends on itself%s%s", p->name,
				 p->location ? " at " : "", p->location ? p->location : "");
	if (!p->outputs.nr)
		strvec_push(&p->outputs, "out");
	p->lowering = 1;
	if (p->has_source)
		r = lower_input(l, &p->source, err);
	for (size_t i = 0; !r && i < p->nr_inputs; i++)
		r = lower_input(l, &p->inputs[i], err);
	for (size_t i = 0; !r && i < p->nr_implicit; i++)
		r = lower_input(l, &p->implicit[i], err);
	for (size_t i = 0; !r && i < p->nr_inputs; i++)
		if (!cix_input_path(&p->inputs[i]))
			r = cix_error(err, -CIX_ENOTFOUND, "%s: input '%s' has no output '%s'",
				      p->name, p->inputs[i].label ? p->inputs[i].label : "?",
				      p->inputs[i].output ? p->inputs[i].output : "out");
	if (!r)
		r = make_package_drv(l, p, err);
	p->lowering = 0;
	return r;
}
