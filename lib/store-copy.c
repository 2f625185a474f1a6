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
 * One path: its NAR from src's files when they are here, else from src's
 * daemon (NarFromPath, read as it comes), into dst with info.
 */
static int copy_path(struct cix_store *src, struct cix_store *dst, struct cix_path_info *info,
		     struct cix_err *err)
{
	struct cix_nar_input in = { 0 };
	struct cix_remote_nar rn;
	int r;
	if (cix_store_files_here(src)) {
		in.fs_path = info->path;
		return cix_store_add_with_info(dst, info, &in, err);
	}
	r = cix_remote_nar_begin(cix_store_daemon_conn(src), info->path, info->nar_size, &rn, err);
	if (r < 0)
		return r;
	in.src = cix_remote_nar_read;
	in.opaque = &rn;
	r = cix_store_add_with_info(dst, info, &in, err);
	cix_remote_nar_end(&rn);
	return r;
}

int cix_store_copy_closure(struct cix_store *src, struct cix_store *dst,
			   const char *const *paths, size_t n, cix_path_fn copied, void *opaque,
			   struct cix_err *err)
{
	struct cix_db_graph g;
	size_t *order;
	int r = cix_store_graph(src, paths, n, CIX_DB_EDGES_REQUISITES, &g, err);
	if (r < 0)
		return r;
	order = refs_first(&g);
	for (size_t k = 0; !r && k < g.nr; k++) {
		const char *p = g.paths[order[k]];
		struct cix_path_info info;
		struct cix_err e = { 0 };
		if ((r = cix_store_is_valid(dst, p, &e)) > 0) {
			r = 0;
			continue;
		}
		if (!r && (r = cix_store_query(src, p, &info, &e)) == 0) {
			r = copy_path(src, dst, &info, &e);
			cix_path_info_release(&info);
		}
		if (r < 0)
			r = cix_error(err, r, "cannot copy '%s': %s", p, e.msg);
		else if (copied)
			r = copied(p, opaque);
	}
	free(order);
	cix_db_graph_release(&g);
	return r;
}
