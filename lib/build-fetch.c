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
#include "util.h"

#include <stdlib.h>
#include <string.h>

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

/* The references found (sorted, unique) are exactly those claimed. */
static int same_refs(char **found, size_t nr_found, const struct cix_path_info *info,
		     const char *name, struct cix_err *err)
{
	for (size_t i = 0; i < info->nr_refs; i++)
		if (!bsearch(&info->refs[i], found, nr_found, sizeof(*found), cix_cmp_str))
			return cix_error(err, -CIX_EMISMATCH, "'%s' from '%s' is refused: it does not "
					 "refer to '%s', as the machine says", info->path, name,
					 info->refs[i]);
	if (nr_found != info->nr_refs)
		return cix_error(err, -CIX_EMISMATCH, "'%s' from '%s' is refused: it refers to "
				 "paths the machine does not say", info->path, name);
	return 0;
}

/* Fetch one output into a temporary (tmp), checked against inputs' closure. */
static int fetch_one(struct cix_store *s, struct cix_store *there, const char *name,
		     const struct cix_db_graph *inputs, const struct cix_drv *drv,
		     struct cix_path_info *info, struct strbuf *tmp, struct cix_err *err)
{
	struct cix_build_refs br;
	struct scanned sn;
	char **found = NULL;
	size_t nr_found = 0;
	int r = cix_build_refs_init(&br, inputs, drv, strlen(s->store_dir), err);
	if (r < 0)
		return r;
	if ((r = cix_remote_nar_begin(cix_store_daemon_conn(there), info->path, info->nar_size,
				      &sn.rn, err)) == 0) {
		sn.scan = br.scan;
		r = cix_store_add_nar_prepare(s, info, scanned_read, &sn, tmp, err);
		cix_remote_nar_end(&sn.rn);
	}
	if (!r) {
		cix_build_refs_found(&br, &found, &nr_found);
		if ((r = same_refs(found, nr_found, info, name, err)) < 0)
			cix_store_add_nar_abort(s, tmp->buf);
	}
	for (size_t i = 0; i < nr_found; i++)
		free(found[i]);
	free(found);
	cix_build_refs_release(&br);
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
	struct cix_db_graph closure;
	size_t n = outs->nr, prepared = 0;
	struct cix_path_info *infos = xcalloc(n + 1, sizeof(*infos));
	struct strbuf *tmps = xcalloc(n + 1, sizeof(*tmps));
	int r = cix_build_roots_closure(s, inputs, &closure, err), have_closure = !r;
	for (size_t i = 0; i < n; i++)
		strbuf_init(&tmps[i], 0);
	for (size_t i = 0; !r && i < n; i++)
		if ((r = cix_store_query(there, outs->v[i], &infos[i], err)) == 0 &&
		    (r = fetch_one(s, there, name, &closure, drv, &infos[i], &tmps[i], err)) == 0)
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
	if (have_closure)
		cix_db_graph_release(&closure);
	return r;
}
