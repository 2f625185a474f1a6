/* build-fetch.c - the outputs of a build done on another machine, fetched and checked */
/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Each output's NAR is restored into a temporary of the store and checked
 * against the NAR hash and size the machine gives, as any copy is; and,
 * as a build here would find them, its references are scanned for in the
 * NAR on the way: they must be exactly those the machine claims, among
 * the derivation's inputs (their closure) and its outputs. Only then are
 * the outputs registered, references first.
 */
#include "build-int.h"
#include "refscan.h"
#include "remote.h"
#include "store-backend.h"
#include "store-path.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

/* What an output may refer to: the inputs' closure and the outputs. */
struct candidates {
	struct strvec full;   /* store paths, sorted */
	struct cix_refscan *scan;
};

static int candidates_make(struct cix_store *s, const struct cix_drv *drv,
			   const struct strvec *inputs, struct candidates *c, struct cix_err *err)
{
	static const char *const none[1];
	struct cix_db_graph g;
	int r = cix_db_graph(s->db, inputs->v ? (const char *const *)inputs->v : none, inputs->nr,
			     CIX_DB_EDGES_REQUISITES, &g, err);
	if (r < 0)
		return r;
	for (size_t i = 0; i < g.nr; i++)
		strvec_push(&c->full, g.paths[i]);
	for (size_t i = 0; i < drv->nr_outputs; i++)
		strvec_push(&c->full, drv->outputs[i].path);
	cix_db_graph_release(&g);
	strvec_sort_unique(&c->full);
	return 0;
}

/* A fresh scanner for c's hash parts. */
static int scanner(struct cix_store *s, struct candidates *c, struct cix_err *err)
{
	size_t skip = strlen(s->store_dir) + 1;
	char **parts = xcalloc(c->full.nr + 1, sizeof(*parts));
	for (size_t i = 0; i < c->full.nr; i++)
		parts[i] = xstrndup(c->full.v[i] + skip, CIX_STORE_HASH_CHARS);
	cix_refscan_free(c->scan);
	c->scan = cix_refscan_new((const char *const *)parts, c->full.nr, err);
	for (size_t i = 0; i < c->full.nr; i++)
		free(parts[i]);
	free(parts);
	return c->scan ? 0 : (err && err->code ? err->code : -CIX_EINVAL);
}

/* The NAR as it comes from the machine, scanned on the way. */
struct scanned {
	struct cix_remote_nar rn;
	struct cix_refscan *scan;
};

static ssize_t scanned_read(void *opaque, void *buf, size_t len)
{
	struct scanned *sn = opaque;
	ssize_t n = cix_remote_nar_read(&sn->rn, buf, len);
	if (n > 0)
		cix_refscan_feed(sn->scan, buf, (size_t)n);
	return n;
}

/* The references found are exactly those claimed. */
static int same_refs(const struct candidates *c, const struct cix_path_info *info,
		     const char *name, struct cix_err *err)
{
	size_t found = 0;
	for (size_t i = 0; i < c->full.nr; i++)
		found += cix_refscan_found(c->scan, i) != 0;
	for (size_t i = 0; i < info->nr_refs; i++) {
		long k = strvec_find_sorted(&c->full, info->refs[i]);
		if (k < 0 || !cix_refscan_found(c->scan, (size_t)k))
			return cix_error(err, -CIX_EMISMATCH, "'%s' from '%s' is refused: it does not "
					 "refer to '%s', as the machine says", info->path, name,
					 info->refs[i]);
	}
	if (found != info->nr_refs)
		return cix_error(err, -CIX_EMISMATCH, "'%s' from '%s' is refused: it refers to "
				 "paths the machine does not say", info->path, name);
	return 0;
}

/* Fetch one output into a temporary (tmp), checked. */
static int fetch_one(struct cix_store *s, struct cix_store *there, const char *name,
		     struct candidates *c, struct cix_path_info *info, struct strbuf *tmp,
		     struct cix_err *err)
{
	struct scanned sn;
	int r;
	if ((r = scanner(s, c, err)) < 0 ||
	    (r = cix_remote_nar_begin(cix_store_daemon_conn(there), info->path, info->nar_size,
				      &sn.rn, err)) < 0)
		return r;
	sn.scan = c->scan;
	r = cix_store_add_nar_prepare(s, info, scanned_read, &sn, tmp, err);
	cix_remote_nar_end(&sn.rn);
	if (!r && (r = same_refs(c, info, name, err)) < 0)
		cix_store_add_nar_abort(s, tmp->buf);
	return r;
}

/* Register the fetched outputs, each once its references are valid here. */
static int commit_all(struct cix_store *s, struct cix_path_info *infos, struct strbuf *tmps,
		      size_t n, struct cix_err *err)
{
	unsigned char *done = xcalloc(n + 1, 1);
	size_t left = n;
	int r = 0;
	while (!r && left) {
		size_t before = left;
		for (size_t i = 0; !r && i < n; i++) {
			int ready = !done[i];
			for (size_t k = 0; ready && k < infos[i].nr_refs; k++)
				ready = !strcmp(infos[i].refs[k], infos[i].path) ||
					cix_db_is_valid(s->db, infos[i].refs[k], NULL) > 0;
			if (!ready)
				continue;
			done[i] = 1;
			left--;
			r = cix_store_add_nar_commit(s, &infos[i], 0, tmps[i].buf, err);
		}
		if (!r && left == before)
			r = cix_error(err, -CIX_EMISMATCH, "the outputs of the build refer to each "
				      "other in a cycle");
	}
	for (size_t i = 0; i < n; i++)
		if (!done[i])
			cix_store_add_nar_abort(s, tmps[i].buf);
	free(done);
	return r;
}

int cix_offload_fetch(struct cix_store *s, struct cix_store *there, const char *name,
		      const struct cix_drv *drv, const struct strvec *inputs,
		      const struct strvec *outs, struct cix_err *err)
{
	struct candidates c = { STRVEC_INIT, NULL };
	size_t n = outs->nr, prepared = 0;
	struct cix_path_info *infos = xcalloc(n + 1, sizeof(*infos));
	struct strbuf *tmps = xcalloc(n + 1, sizeof(*tmps));
	int r = candidates_make(s, drv, inputs, &c, err);
	for (size_t i = 0; i < n; i++)
		strbuf_init(&tmps[i], 0);
	for (size_t i = 0; !r && i < n; i++)
		if ((r = cix_store_query(there, outs->v[i], &infos[i], err)) == 0 &&
		    (r = fetch_one(s, there, name, &c, &infos[i], &tmps[i], err)) == 0)
			prepared++;
	if (!r)
		r = commit_all(s, infos, tmps, n, err);
	else
		for (size_t i = 0; i < prepared; i++)
			cix_store_add_nar_abort(s, tmps[i].buf);
	for (size_t i = 0; i < n; i++) {
		cix_path_info_release(&infos[i]);
		strbuf_release(&tmps[i]);
	}
	free(infos);
	free(tmps);
	cix_refscan_free(c.scan);
	strvec_clear(&c.full);
	return r;
}
