/* package-eval.c - cix package -i SPEC answered from the evaluation cache when it can be */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "cix.h"
#include "env.h"
#include "package.h"
#include "build.h"
#include "eval-cache.h"
#include "lower.h"
#include "profile.h"
#include "scheme.h"
#include "store.h"
#include "strbuf.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * The evaluation cache (pkg/eval-cache.h) of one command: looked at for
 * the first -i SPEC, written at the end when specs were evaluated. The
 * entries made by a command all get every local file that command read:
 * lowering is shared between the packages of a command, so which package
 * read which file is not known, and more files only make an entry go
 * stale sooner.
 */
static struct {
	int state;                 /* 0: not opened; 1: open; -1: not used */
	char *file;
	struct cix_eval_cache c;
	struct strvec files;       /* the local files this command read */
	struct strvec added;       /* the specs given entries by this command */
} ec;

struct strvec *pkg_eval_files(void)
{
	return &ec.files;
}

static int open_cache(struct cix_store *s)
{
	struct strbuf search = STRBUF_INIT, compiled = STRBUF_INIT;
	struct cix_err err = { 0 };
	char stamp[65];

	if (ec.state)
		return ec.state;
	ec.state = -1;
	if (cix_env(CIX_ENV_NO_EVAL_CACHE))
		return ec.state;
	cix_scheme_search_path(&search);
	cix_scheme_compiled_path(&compiled);
	ec.file = cix_eval_cache_file(search.buf, s->store_dir);
	if (ec.file && cix_eval_stamp(search.buf, compiled.buf, s->store_dir,
				      cix_build_this_system(), stamp, &err) == 0) {
		cix_eval_cache_load(ec.file, stamp, &ec.c);
		ec.state = 1;
	}
	cix_err_clear(&err);
	strbuf_release(&search);
	strbuf_release(&compiled);
	return ec.state;
}

int pkg_eval_install(struct cix_lower *l, const char *spec, struct cix_manifest *m,
		     struct strvec *drvs, const struct pkg_opts *o, struct cix_err *err)
{
	const struct cix_eval_entry *ce;
	struct cix_manifest one = { 0 };
	int r;

	if (open_cache(l->store) < 0 || !(ce = cix_eval_cache_find(&ec.c, spec)))
		return 0;
	/* A .drv gone (collected): evaluated again, which writes it again. */
	if ((r = cix_store_is_valid(l->store, ce->drv_path, err)) <= 0)
		return r;
	if (cix_manifest_parse(ce->manifest, strlen(ce->manifest), &one, err) < 0 || one.nr != 1) {
		cix_err_clear(err);
		cix_manifest_release(&one);
		return 0;
	}
	const struct cix_manifest_entry *c = &one.v[0];
	if (o->dry_run)
		fprintf(stderr, "would install %s-%s:%s (%s)\n", c->name, c->version, c->output,
			c->path);
	if ((r = need_build(l->store, ce->drv_path, &ce->out_paths, ce->propagates, drvs,
			     err)) < 0)
		goto out;
	cix_manifest_remove(m, c->name, c->output);
	cix_manifest_add_copy(m, c);
	r = 1;
out:
	cix_manifest_release(&one);
	return r;
}

void pkg_eval_record(const char *spec, const struct cix_package *p,
		     const struct cix_manifest_entry *e)
{
	struct cix_manifest one = { 0 };
	struct strbuf text = STRBUF_INIT;
	struct cix_eval_entry *ce;

	if (ec.state <= 0 || !p->drv_path)
		return;
	cix_manifest_add_copy(&one, e);
	cix_manifest_format(&one, &text);
	ce = cix_eval_cache_put(&ec.c, spec);
	ce->drv_path = xstrdup(p->drv_path);
	for (size_t i = 0; i < p->out_paths.nr; i++)
		strvec_push(&ce->out_paths, p->out_paths.v[i]);
	ce->propagates = p->nr_propagated != 0;
	ce->manifest = strbuf_detach(&text, NULL);
	strvec_push(&ec.added, spec);
	cix_manifest_release(&one);
}

void pkg_eval_save(void)
{
	struct cix_file_id *ids = NULL;
	struct cix_err err = { 0 };
	size_t nr = 0;
	int ok = 1;

	if (ec.state <= 0 || !ec.added.nr)
		return;
	/* Local files named relatively, or directories: not tracked, nothing kept. */
	strvec_sort_unique(&ec.files);
	ids = xcalloc(ec.files.nr + 1, sizeof(*ids));
	for (size_t i = 0; ok && i < ec.files.nr; i++)
		ok = ec.files.v[i][0] == '/' && cix_file_id_get(ec.files.v[i], &ids[nr++]) > 0;
	for (size_t i = 0; ok && i < ec.added.nr; i++)
		for (size_t k = 0; k < ec.c.nr; k++) {
			struct cix_eval_entry *ce = &ec.c.v[k];
			if (strcmp(ce->spec, ec.added.v[i]) || ce->files)
				continue;
			ce->files = xcalloc(nr + 1, sizeof(*ce->files));
			for (size_t j = 0; j < nr; j++) {
				ce->files[j] = ids[j];
				ce->files[j].path = xstrdup(ids[j].path);
			}
			ce->nr_files = nr;
		}
	if (ok && cix_eval_cache_save(ec.file, &ec.c, &err) < 0)
		cix_err_clear(&err);     /* a cache: not kept this time */
	for (size_t i = 0; i < nr; i++)
		cix_file_id_release(&ids[i]);
	free(ids);
}

void pkg_eval_release(void)
{
	cix_eval_cache_release(&ec.c);
	strvec_clear(&ec.files);
	strvec_clear(&ec.added);
	free(ec.file);
	memset(&ec, 0, sizeof(ec));
}
