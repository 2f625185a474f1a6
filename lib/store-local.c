/* store-local.c - the local store as a backend: the database, the builder, the collector */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "store-backend.h"
#include "machines.h"
#include "build.h"
#include "conf.h"
#include "db-int.h"
#include "gc.h"
#include "nar.h"
#include "substitute.h"
#include "util.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/*
 * The caches a local store's builds fetch from (cix.conf's, or those a
 * command names), with the ACL's keys: read once, at the first build or
 * fetch that may use them, and kept while the store is open.
 */
struct local_caches {
	int loaded;
	char *urls;                   /* what they were loaded for (NULL: cix.conf's) */
	struct cix_caches caches;
};

static void caches_release(struct local_caches *c)
{
	cix_caches_close(&c->caches);
	free(c->urls);
	memset(c, 0, sizeof(*c));
}

static int same_urls(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

static int caches_load(struct local_caches *c, const char *urls, struct cix_err *err)
{
	struct cix_conf conf;
	int r;
	caches_release(c);
	c->loaded = 1;
	c->urls = urls ? xstrdup(urls) : NULL;
	if ((r = cix_conf_load(cix_conf_file(), &conf, err)) < 0)
		return r;
	r = cix_caches_open(&c->caches, urls ? urls : conf.substitute_urls,
			    conf.narinfo_positive_ttl, conf.narinfo_negative_ttl, -1, err);
	cix_conf_release(&conf);
	return r;
}

/*
 * o (a copy of the caller's options) with the caches it asks for, unless
 * it names its own (o->subst) or none at all.
 */
static int with_caches(struct cix_store *s, struct cix_build_opts *o, struct cix_err *err)
{
	struct local_caches *c = s->backend;
	int r;
	if (o->subst || o->no_substitutes)
		return 0;
	if (!c)
		c = s->backend = xcalloc(1, sizeof(*c));
	if ((!c->loaded || !same_urls(c->urls, o->substitute_urls)) &&
	    (r = caches_load(c, o->substitute_urls, err)) < 0) {
		caches_release(c);
		return r;
	}
	if (c->caches.n) {
		c->caches.so.log_fd = o->log_fd;
		o->subst = &c->caches.so;
	}
	return 0;
}

static void local_close(struct cix_store *s)
{
	if (s->backend)
		caches_release(s->backend);
	free(s->backend);
	s->backend = NULL;
}

/* ---- Queries: the database ---- */

static int local_is_valid(struct cix_store *s, const char *path, struct cix_err *err)
{
	return cix_db_is_valid(s->db, path, err);
}

static int local_query(struct cix_store *s, const char *path, struct cix_path_info *info,
		       struct cix_err *err)
{
	return cix_db_query(s->db, path, info, err);
}

static int local_query_many(struct cix_store *s, const char *const *paths, size_t n,
			    struct cix_path_info *infos, void (*all_valid)(void *opaque),
			    void *opaque, struct cix_err *err)
{
	return cix_db_query_many(s->db, paths, n, infos, all_valid, opaque, err);
}

static int local_references(struct cix_store *s, const char *path, cix_path_fn fn,
			    void *opaque, struct cix_err *err)
{
	return cix_db_references(s->db, path, fn, opaque, err);
}

static int local_referrers(struct cix_store *s, const char *path, cix_path_fn fn,
			   void *opaque, struct cix_err *err)
{
	return cix_db_referrers(s->db, path, fn, opaque, err);
}

static int local_valid_derivers(struct cix_store *s, const char *path, cix_path_fn fn,
				void *opaque, struct cix_err *err)
{
	return cix_db_valid_derivers(s->db, path, fn, opaque, err);
}

static int local_drv_outputs(struct cix_store *s, const char *drv_path, cix_path_fn fn,
			     void *opaque, struct cix_err *err)
{
	return cix_db_drv_outputs(s->db, drv_path, fn, opaque, err);
}

static int local_graph(struct cix_store *s, const char *const *paths, size_t n,
		       enum cix_db_edges_mode mode, struct cix_db_graph *g, struct cix_err *err)
{
	return cix_db_graph(s->db, paths, n, mode, g, err);
}

/*
 * Many queries in one snapshot: a statement outside a transaction takes
 * and drops SQLite's locks itself, several system calls that cost more
 * than the query.
 */
static int local_read_begin(struct cix_store *s, struct cix_err *err)
{
	cix_db_snapshot_release(s->db);
	return cix_db_exec(s->db, "begin", err);
}

static void local_read_end(struct cix_store *s)
{
	cix_db_exec(s->db, "commit", NULL);
}

static int local_dump(struct cix_store *s, const char *path, cix_sink_fn sink, void *opaque,
		      struct cix_err *err)
{
	return cix_nar_dump(path, sink, opaque, err);
}

static int local_add_text(struct cix_store *s, const char *name, const void *text, size_t len,
			  const char *const *refs, size_t nr_refs, struct strbuf *out,
			  struct cix_err *err)
{
	struct cix_mem_source src = { text, len, 0 };
	return cix_store_add_source(s, name, CIX_ADD_TEXT, CIX_HASH_SHA256, refs, nr_refs,
				    cix_mem_source_read, &src, out, NULL, err);
}

/* ---- Building: the scheduler, here ---- */

static int local_build(struct cix_store *s, const char *const *drvs, size_t n,
		       const struct cix_build_opts *opts, struct cix_err *err)
{
	struct cix_build_opts o = *opts;
	struct cix_machines ms = CIX_MACHINES_INIT;
	int r = with_caches(s, &o, err);
	if (!r && !o.machines && (r = cix_machines_load(&ms, o.builders, err)) == 0 && ms.nr)
		o.machines = &ms;
	if (!r)
		r = cix_build_derivations(s, drvs, n, &o, err);
	cix_machines_release(&ms);
	return r;
}

static int local_plan(struct cix_store *s, const char *const *drvs, size_t n,
		      const struct cix_build_opts *opts, struct cix_build_missing *m,
		      struct cix_err *err)
{
	struct cix_build_opts o = *opts;
	int r = with_caches(s, &o, err);
	return r < 0 ? r : cix_build_plan(s, drvs, n, &o, m, err);
}

static int local_ensure_paths(struct cix_store *s, const char *const *paths, size_t n,
			      const struct cix_build_opts *opts, struct cix_err *err)
{
	struct cix_build_opts o = opts ? *opts : (struct cix_build_opts){ .log_fd = -1 };
	int r = with_caches(s, &o, err);
	if (r < 0)
		return r;
	if (!o.subst)
		return cix_error(err, -CIX_ENOTFOUND, "path '%s' is not valid and has no "
				 "derivation here", paths[0]);
	return cix_substitute_paths(s, o.subst, paths, n, err);
}

/* ---- Keeping ---- */

/* A modified path is built again from its deriver, here. */
struct repair {
	struct cix_store *s;
	const struct cix_build_opts *opts;
};

static int repair_here(void *opaque, const char *path, struct cix_err *err)
{
	struct repair *rp = opaque;
	return cix_build_repair_path(rp->s, path, rp->opts, err);
}

static int local_verify(struct cix_store *s, const char *const *paths, size_t n,
			int check_contents, const struct cix_build_opts *repair,
		     cix_report_fn report, void *opaque,
			struct cix_err *err)
{
	struct repair rp = { s, repair };
	struct cix_verify_repair how = { repair_here, &rp };
	if (!paths)
		return cix_store_verify_all(s, check_contents, repair ? &how : NULL, report,
					    opaque, err);
	return cix_store_verify_paths(s, paths, n, check_contents, repair ? &how : NULL,
				      report, opaque);
}

static int local_find_roots(struct cix_store *s, struct strvec *links, struct strvec *paths,
			    struct cix_err *err)
{
	struct cix_gc_roots roots = { 0 };
	int r = cix_gc_find_roots(s, 0, &roots, err);
	for (size_t i = 0; !r && i < roots.nr; i++) {
		strvec_push(links, roots.v[i].link);
		strvec_push(paths, roots.v[i].path);
	}
	cix_gc_roots_release(&roots);
	return r;
}

/* A path of another store: the copy is checked as a trusted client's would be. */
static int local_add_with_info(struct cix_store *s, struct cix_path_info *info,
			       const struct cix_nar_input *in, struct cix_err *err)
{
	if (!in->src)
		return cix_error(err, -CIX_EUNSUPPORTED,
				 "cannot copy '%s' from a tree of this machine into its own store",
				 info->path);
	return cix_store_add_nar(s, info, 0, in->src, in->opaque, err);
}

const struct cix_store_ops cix_store_local_ops = {
	.name = "local",
	.traits = CIX_STORE_OWNS_STATE | CIX_STORE_LOCAL_DB,
	.close = local_close,
	.is_valid = local_is_valid,
	.query = local_query,
	.query_many = local_query_many,
	.references = local_references,
	.referrers = local_referrers,
	.valid_derivers = local_valid_derivers,
	.drv_outputs = local_drv_outputs,
	.graph = local_graph,
	.read_begin = local_read_begin,
	.read_end = local_read_end,
	.dump = local_dump,
	.add = cix_local_add,
	.add_text = local_add_text,
	.import = cix_local_import,
	.add_with_info = local_add_with_info,
	.build = local_build,
	.plan = local_plan,
	.ensure_paths = local_ensure_paths,
	.verify = local_verify,
	.optimise = cix_local_optimise,
	.collect_garbage = cix_gc_collect,
	.find_roots = local_find_roots,
	.add_temp_roots = cix_local_add_temp_roots,
	.add_indirect_root = cix_local_add_indirect_root,
};
