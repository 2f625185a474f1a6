/* db-graph.c - closures and reference graphs of store paths, in memory */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "db-int.h"
#include "id-map.h"
#include "key-sort.h"
#include "strvec.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/*
 * The nodes of a graph come from a closure's walk (db-closure.c) or, for
 * a set of paths, from cix_db_path_edges's rows; the edges as pairs of
 * places among the nodes. Here the nodes are sorted by path (by a 64-bit
 * key, in linear time), and the edges renumbered through an array and
 * gathered by referrer: no hash look-up and no comparison sort over the
 * whole graph.
 */

/* A set of paths as cix_db_path_edges gives it: edges as ids until resolved. */
struct rows {
	struct strvec paths;
	int64_t (*edges)[2];
	size_t nr_edges, alloc_edges;
	struct cix_id_map at;   /* id -> node place + 1 (valid paths only) */
};

static int add_row(void *opaque, int64_t id, const char *path, int64_t referrer,
		   int64_t reference)
{
	struct rows *b = opaque;
	if (!cix_id_map_get(&b->at, id)) {
		strvec_push(&b->paths, path);
		cix_id_map_put(&b->at, id, (void *)(uintptr_t)b->paths.nr, 0);
	}
	if (referrer) {
		ALLOC_GROW(b->edges, b->nr_edges + 1, b->alloc_edges);
		b->edges[b->nr_edges][0] = referrer;
		b->edges[b->nr_edges][1] = reference;
		b->nr_edges++;
	}
	return 0;
}

/* The edges between nodes of the set, as places (in place of the ids). */
static size_t resolve(struct rows *b, size_t (*out)[2])
{
	size_t k = 0;
	for (size_t i = 0; i < b->nr_edges; i++) {
		uintptr_t from = (uintptr_t)cix_id_map_get(&b->at, b->edges[i][0]);
		uintptr_t to = (uintptr_t)cix_id_map_get(&b->at, b->edges[i][1]);
		if (from && to) {
			out[k][0] = from - 1;
			out[k][1] = to - 1;
			k++;
		}
	}
	return k;
}

/*
 * g from paths[0..nr) and edges[0..k) between them (places, renumbered
 * here): the paths (each g's now) sorted, repeats made one.
 */
static void finish(char **paths, size_t nr, size_t (*edges)[2], size_t k,
		   struct cix_db_graph *g)
{
	struct cix_keyed *order = cix_str_order((const char *const *)paths, nr);
	size_t *place = xcalloc(nr + 1, sizeof(*place));
	size_t n = 0;

	g->paths = xcalloc(nr + 1, sizeof(*g->paths));
	for (size_t i = 0; i < nr; i++) {
		char *p = paths[order[i].at];
		/* Only invalid paths (without edges) can be there twice. */
		if (n && !strcmp(g->paths[n - 1], p)) {
			free(p);
		} else {
			g->paths[n++] = p;
		}
		place[order[i].at] = n - 1;
	}
	g->nr = n;
	for (size_t i = 0; i < k; i++) {
		edges[i][0] = place[edges[i][0]];
		edges[i][1] = place[edges[i][1]];
	}
	cix_pairs_group((const size_t (*)[2])edges, k, n, &g->refs_at, &g->refs);
	free(place);
	free(order);
}

static void rows_release(struct rows *b)
{
	strvec_clear(&b->paths);
	free(b->edges);
	cix_id_map_release(&b->at);
}

/* The graph of paths[0..n) themselves, from one row query each. */
static int set_graph(struct cix_db *db, const char *const *paths, size_t n,
		     struct cix_db_graph *g, struct cix_err *err)
{
	struct rows b = { 0 };
	int r = 0;
	cix_id_map_init(&b.at, n);
	for (size_t i = 0; i < n; i++) {
		if ((r = cix_db_path_edges(db, paths[i], add_row, &b, err)) < 0)
			break;
		if (!r)
			strvec_push(&b.paths, paths[i]);   /* invalid: no edges */
		r = 0;
	}
	if (!r) {
		size_t (*edges)[2] = xcalloc(b.nr_edges + 1, sizeof(*edges));
		size_t k = resolve(&b, edges);
		finish(b.paths.v, b.paths.nr, edges, k, g);
		free(edges);
		b.paths.nr = 0;   /* the paths are g's */
	}
	rows_release(&b);
	return r;
}

static int closure_graph(struct cix_db *db, const char *const *paths, size_t n, int referrers,
			 struct cix_db_graph *g, struct cix_err *err)
{
	struct cix_db_closure c;
	int r = cix_db_closure(db, paths, n, referrers, &c, err);
	if (r < 0)
		return r;
	finish(c.paths, c.nr, c.edges, c.nr_edges, g);
	free(c.paths);   /* each is g's now */
	c.paths = NULL;
	cix_db_closure_release(&c);
	return 0;
}

int cix_db_graph(struct cix_db *db, const char *const *paths, size_t n,
		 enum cix_db_edges_mode mode, struct cix_db_graph *g, struct cix_err *err)
{
	memset(g, 0, sizeof(*g));
	if (mode == CIX_DB_EDGES_PATH)
		return set_graph(db, paths, n, g, err);
	return closure_graph(db, paths, n, mode == CIX_DB_EDGES_REFERRERS_CLOSURE, g, err);
}

void cix_db_graph_release(struct cix_db_graph *g)
{
	for (size_t i = 0; i < g->nr; i++)
		free(g->paths[i]);
	free(g->paths);
	free(g->refs_at);
	free(g->refs);
	memset(g, 0, sizeof(*g));
}
