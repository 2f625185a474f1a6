/* store-api.c - the store as a command sees it: one call for every kind of store */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "store-backend.h"
#include "gc.h"
#include "store-path.h"
#include "strvec.h"
#include "util.h"

#include <libgen.h>
#include <stdlib.h>
#include <string.h>

int cix_store_has(const struct cix_store *s, enum cix_store_trait trait)
{
	return (s->ops->traits & trait) != 0;
}

const char *cix_store_kind(const struct cix_store *s)
{
	return s->ops->name;
}

/* ---- Queries ---- */

int cix_store_is_valid(struct cix_store *s, const char *path, struct cix_err *err)
{
	return s->ops->is_valid(s, path, err);
}

int cix_store_query(struct cix_store *s, const char *path, struct cix_path_info *info,
		    struct cix_err *err)
{
	return s->ops->query(s, path, info, err);
}

int cix_store_query_many(struct cix_store *s, const char *const *paths, size_t n,
			 struct cix_path_info *infos, void (*all_valid)(void *opaque),
			 void *opaque, struct cix_err *err)
{
	return s->ops->query_many(s, paths, n, infos, all_valid, opaque, err);
}

int cix_store_read_begin(struct cix_store *s, struct cix_err *err)
{
	return s->ops->read_begin ? s->ops->read_begin(s, err) : 0;
}

void cix_store_read_end(struct cix_store *s)
{
	if (s->ops->read_end)
		s->ops->read_end(s);
}

int cix_store_references(struct cix_store *s, const char *path, cix_path_fn fn, void *opaque,
			 struct cix_err *err)
{
	return s->ops->references(s, path, fn, opaque, err);
}

int cix_store_referrers(struct cix_store *s, const char *path, cix_path_fn fn, void *opaque,
			struct cix_err *err)
{
	return s->ops->referrers(s, path, fn, opaque, err);
}

int cix_store_valid_derivers(struct cix_store *s, const char *path, cix_path_fn fn,
			     void *opaque, struct cix_err *err)
{
	return s->ops->valid_derivers(s, path, fn, opaque, err);
}

int cix_store_drv_outputs_list(struct cix_store *s, const char *drv_path, cix_path_fn fn,
			       void *opaque, struct cix_err *err)
{
	return s->ops->drv_outputs(s, drv_path, fn, opaque, err);
}

int cix_store_graph(struct cix_store *s, const char *const *paths, size_t n,
		    enum cix_db_edges_mode mode, struct cix_db_graph *g, struct cix_err *err)
{
	return s->ops->graph(s, paths, n, mode, g, err);
}

int cix_store_dump(struct cix_store *s, const char *path, cix_sink_fn sink, void *opaque,
		   struct cix_err *err)
{
	return s->ops->dump(s, path, sink, opaque, err);
}

/* ---- Adding ---- */

int cix_store_add(struct cix_store *s, const char *src, enum cix_add_method method,
		  enum cix_hash_algo algo, struct strbuf *out, struct cix_err *err)
{
	char *copy = xstrdup(src), *name;
	size_t len = strlen(copy);
	int r;
	while (len > 1 && copy[len - 1] == '/')
		copy[--len] = '\0';
	name = basename(copy);
	if ((r = cix_store_name_check(name, strlen(name), err)) == 0)
		r = s->ops->add(s, src, name, method, algo, out, err);
	free(copy);
	return r;
}

int cix_store_add_text(struct cix_store *s, const char *name, const void *text, size_t len,
		       const char *const *refs, size_t nr_refs, struct strbuf *out,
		       struct cix_err *err)
{
	return s->ops->add_text(s, name, text, len, refs, nr_refs, out, err);
}

int cix_store_import(struct cix_store *s, cix_source_fn src, void *src_opaque,
		     cix_path_fn imported, void *opaque, struct cix_err *err)
{
	return s->ops->import(s, src, src_opaque, imported, opaque, err);
}

int cix_store_add_with_info(struct cix_store *s, struct cix_path_info *info,
			    const struct cix_nar_input *in, struct cix_err *err)
{
	return s->ops->add_with_info(s, info, in, err);
}

int cix_store_valid_paths(struct cix_store *s, const char *const *paths, size_t n,
			  struct strvec *valid, struct cix_err *err)
{
	if (s->ops->valid_paths)
		return s->ops->valid_paths(s, paths, n, valid, err);
	for (size_t i = 0; i < n; i++) {
		int r = cix_store_is_valid(s, paths[i], err);
		if (r < 0)
			return r;
		if (r)
			strvec_push(valid, paths[i]);
	}
	return 0;
}

int cix_store_add_each(struct cix_store *s, struct cix_path_info *infos, size_t n,
		       const struct cix_nar_provider *np, struct cix_err *err)
{
	int r = 0;
	for (size_t i = 0; !r && i < n; i++) {
		struct cix_nar_input in = { 0 };
		if ((r = np->open(np->opaque, i, &in, err)) < 0)
			break;
		struct cix_err e = { 0 };
		if ((r = cix_store_add_with_info(s, &infos[i], &in, &e)) < 0)
			r = cix_error(err, r, "cannot copy '%s': %s", infos[i].path, e.msg);
		np->close(np->opaque, i);
	}
	return r;
}

int cix_store_add_many(struct cix_store *s, struct cix_path_info *infos, size_t n,
		       const struct cix_nar_provider *np, struct cix_err *err)
{
	if (!n)
		return 0;
	return s->ops->add_many ? s->ops->add_many(s, infos, n, np, err)
				: cix_store_add_each(s, infos, n, np, err);
}

int cix_store_files_here(const struct cix_store *s)
{
	return s->store_fd >= 0;
}

/* ---- Building ---- */

int cix_store_build(struct cix_store *s, const char *const *drvs, size_t n,
		    const struct cix_build_opts *opts, struct cix_err *err)
{
	return n ? s->ops->build(s, drvs, n, opts, err) : 0;
}

int cix_store_plan(struct cix_store *s, const char *const *drvs, size_t n,
		   const struct cix_build_opts *opts, struct cix_build_missing *m,
		   struct cix_err *err)
{
	return s->ops->plan(s, drvs, n, opts, m, err);
}

int cix_store_ensure_paths(struct cix_store *s, const char *const *paths, size_t n,
			   const struct cix_build_opts *opts, struct cix_err *err)
{
	return n ? s->ops->ensure_paths(s, paths, n, opts, err) : 0;
}

/* ---- Keeping ---- */

int cix_store_verify(struct cix_store *s, const char *const *paths, size_t n,
		     int check_contents, const struct cix_build_opts *repair,
		     cix_report_fn report, void *opaque,
		     struct cix_err *err)
{
	return s->ops->verify(s, paths, n, check_contents, repair, report, opaque, err);
}

int cix_store_optimise(struct cix_store *s, struct cix_store_optimise_stats *st,
		       struct cix_err *err)
{
	return s->ops->optimise(s, st, err);
}

int cix_store_collect_garbage(struct cix_store *s, const struct cix_gc_opts *o,
			      struct cix_gc_result *res, struct cix_err *err)
{
	struct cix_gc_result ignored = { 0 };
	return s->ops->collect_garbage(s, o, res ? res : &ignored, err);
}

int cix_store_find_roots(struct cix_store *s, struct strvec *links, struct strvec *paths,
			 struct cix_err *err)
{
	return s->ops->find_roots(s, links, paths, err);
}

int cix_store_add_temp_roots(struct cix_store *s, const char *const *paths, size_t n,
			     struct cix_err *err)
{
	return s->ops->add_temp_roots(s, paths, n, err);
}

int cix_store_add_indirect_root(struct cix_store *s, const char *link, struct cix_err *err)
{
	if (link[0] != '/')
		return cix_error(err, -CIX_EINVAL, "an indirect root must be an absolute file name");
	return s->ops->add_indirect_root(s, link, err);
}
