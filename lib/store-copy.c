/* store-copy.c - closures copied from one store to another (cix copy, offloading) */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "store-backend.h"
#include "remote.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

/*
 * The indices of g's paths, each after the paths it refers to: depth
 * first, with a stack of its own (a closure may be deep). A cycle (a
 * path referring to itself, or a hostile graph) is not followed.
 */
static size_t *refs_first(const struct cix_db_graph *g)
{
	size_t *order = xcalloc(g->nr + 1, sizeof(*order)), n = 0;
	size_t *stack = xcalloc(g->nr + 1, sizeof(*stack));
	size_t *next = xcalloc(g->nr + 1, sizeof(*next));
	unsigned char *seen = xcalloc(g->nr + 1, 1);
	for (size_t root = 0; root < g->nr; root++) {
		size_t sp = 0;
		if (seen[root])
			continue;
		seen[root] = 1;
		next[root] = g->refs_at[root];
		stack[sp++] = root;
		while (sp) {
			size_t v = stack[sp - 1];
			if (next[v] < g->refs_at[v + 1]) {
				size_t w = g->refs[next[v]++];
				if (!seen[w]) {
					seen[w] = 1;
					next[w] = g->refs_at[w];
					stack[sp++] = w;
				}
				continue;
			}
			order[n++] = v;
			sp--;
		}
	}
	free(stack);
	free(next);
	free(seen);
	return order;
}

/*
 * The NARs of the paths copied: from src's files when they are here, else
 * from src's daemon (NarFromPath, read as it comes).
 */
struct copy {
	struct cix_store *src;
	struct cix_path_info *infos;
	cix_path_fn sending;
	void *opaque;
	struct cix_remote_nar rn;
	int reading;
};

static int open_nar(void *opaque, size_t i, struct cix_nar_input *in, struct cix_err *err)
{
	struct copy *c = opaque;
	const struct cix_path_info *info = &c->infos[i];
	int r;
	if (c->sending && (r = c->sending(info->path, c->opaque)) < 0)
		return cix_error(err, r, "copying '%s' was stopped", info->path);
	if (cix_store_files_here(c->src)) {
		in->fs_path = info->path;
		return 0;
	}
	r = cix_remote_nar_begin(cix_store_daemon_conn(c->src), info->path, info->nar_size,
				 &c->rn, err);
	if (r < 0)
		return r;
	c->reading = 1;
	in->src = cix_remote_nar_read;
	in->opaque = &c->rn;
	return 0;
}

static void close_nar(void *opaque, size_t i)
{
	struct copy *c = opaque;
	(void)i;
	if (c->reading)
		cix_remote_nar_end(&c->rn);
	c->reading = 0;
}

/* The paths of g in order that dst lacks, with their infos from src. */
static int missing_infos(struct cix_store *src, struct cix_store *dst, const struct cix_db_graph *g,
			 const size_t *order, struct cix_path_info **infos, size_t *nr,
			 struct cix_err *err)
{
	const char **ordered = xcalloc(g->nr + 1, sizeof(*ordered));
	struct strvec valid = STRVEC_INIT;
	int r;
	for (size_t k = 0; k < g->nr; k++)
		ordered[k] = g->paths[order[k]];
	r = cix_store_valid_paths(dst, ordered, g->nr, &valid, err);
	strvec_sort_unique(&valid);
	*infos = xcalloc(g->nr + 1, sizeof(**infos));
	*nr = 0;
	for (size_t k = 0; !r && k < g->nr; k++)
		if (strvec_find_sorted(&valid, ordered[k]) < 0 &&
		    (r = cix_store_query(src, ordered[k], &(*infos)[*nr], err)) == 0)
			(*nr)++;
	strvec_clear(&valid);
	free(ordered);
	return r;
}

int cix_store_copy_closure(struct cix_store *src, struct cix_store *dst,
			   const char *const *paths, size_t n, cix_path_fn sending, void *opaque,
			   struct cix_err *err)
{
	struct cix_db_graph g;
	struct cix_path_info *infos = NULL;
	struct copy c = { .src = src, .sending = sending, .opaque = opaque };
	struct cix_nar_provider np = { open_nar, close_nar, &c };
	size_t *order, nr = 0;
	int r = cix_store_graph(src, paths, n, CIX_DB_EDGES_REQUISITES, &g, err);
	if (r < 0)
		return r;
	order = refs_first(&g);
	r = missing_infos(src, dst, &g, order, &infos, &nr, err);
	c.infos = infos;
	if (!r)
		r = cix_store_add_many(dst, infos, nr, &np, err);
	for (size_t i = 0; i < nr; i++)
		cix_path_info_release(&infos[i]);
	free(infos);
	free(order);
	cix_db_graph_release(&g);
	return r;
}
