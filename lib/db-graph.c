/* db-graph.c - closures and reference graphs of store paths, in memory */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "db.h"
#include "id-map.h"
#include "str-index.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/*
 * The rows of cix_db_edges come keyed by database ids. They are gathered
 * here, the ids mapped to nodes through an open-addressing hash table,
 * then the nodes sorted by path and the edges turned into sorted index
 * lists: a closure of n paths costs one SQL statement and O(n log n) work,
 * instead of a query and string-set operations per path.
 */

#define NONE SIZE_MAX

struct node {
	int64_t id;      /* 0 for an invalid path (CIX_DB_EDGES_PATH only) */
	char *path;
};

struct edge {
	int64_t from, to;    /* ids, then node indices once resolved */
};

struct builder {
	struct node *nodes;
	size_t nr, alloc;
	struct edge *edges;
	size_t nr_edges, alloc_edges;
	struct cix_id_map at;   /* id -> node index + 1 (ids of valid paths only) */
};

static size_t find(const struct builder *b, int64_t id)
{
	uintptr_t at = (uintptr_t)cix_id_map_get(&b->at, id);
	return at ? at - 1 : NONE;
}

/* The map anew, after the nodes moved (sorted, repeats dropped). */
static void rehash(struct builder *b)
{
	cix_id_map_release(&b->at);
	cix_id_map_init(&b->at, b->nr);
	for (size_t n = 0; n < b->nr; n++)
		if (b->nodes[n].id)
			cix_id_map_put(&b->at, b->nodes[n].id, (void *)(uintptr_t)(n + 1), 0);
}

static void add_node(struct builder *b, int64_t id, const char *path)
{
	ALLOC_GROW(b->nodes, b->nr + 1, b->alloc);
	b->nodes[b->nr].id = id;
	b->nodes[b->nr].path = xstrdup(path);
	b->nr++;
	if (id)
		cix_id_map_put(&b->at, id, (void *)(uintptr_t)b->nr, 0);
}

static int add_row(void *opaque, int64_t id, const char *path, int64_t referrer,
		   int64_t reference)
{
	struct builder *b = opaque;
	if (find(b, id) == NONE)
		add_node(b, id, path);
	if (referrer) {
		ALLOC_GROW(b->edges, b->nr_edges + 1, b->alloc_edges);
		b->edges[b->nr_edges].from = referrer;
		b->edges[b->nr_edges].to = reference;
		b->nr_edges++;
	}
	return 0;
}

static int get_id(void *opaque, int64_t id, const char *path, int64_t referrer,
		  int64_t reference)
{
	*(int64_t *)opaque = id;
	return 0;
}

/* A node with the first bytes of its path's last component, to sort by without a miss. */
struct sort_key {
	uint64_t key;
	struct node node;
};

static int cmp_key(const void *a, const void *b)
{
	const struct sort_key *x = a, *y = b;
	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return strcmp(x->node.path, y->node.path);
}

/* The length of the directory part that every path of nodes shares: 0 if not one. */
static size_t shared_dir(const struct node *nodes, size_t n)
{
	const char *slash = n ? strrchr(nodes[0].path, '/') : NULL;
	size_t dir = slash ? (size_t)(slash - nodes[0].path) + 1 : 0;
	for (size_t i = 1; dir && i < n; i++)
		if (strncmp(nodes[i].path, nodes[0].path, dir))
			dir = 0;
	return dir;
}

/*
 * Sorted by path. The key, the big-endian bytes after the directory all
 * paths share (store paths: the hash part), orders as strcmp does; equal
 * keys go to strcmp.
 */
static void sort_nodes(struct node *nodes, size_t n)
{
	struct sort_key *k = xcalloc(n + 1, sizeof(*k));
	size_t dir = shared_dir(nodes, n);
	for (size_t i = 0; i < n; i++) {
		k[i].node = nodes[i];
		k[i].key = cix_str_key(nodes[i].path + dir);
	}
	qsort(k, n, sizeof(*k), cmp_key);
	for (size_t i = 0; i < n; i++)
		nodes[i] = k[i].node;
	free(k);
}

static int cmp_edge(const void *a, const void *b)
{
	const struct edge *x = a, *y = b;
	if (x->from != y->from)
		return x->from < y->from ? -1 : 1;
	return x->to < y->to ? -1 : x->to > y->to;
}

/*
 * Edges (node indices) sorted by (from, to): counted into buckets by from
 * in one pass, each bucket (a node's few references) sorted on its own.
 */
static void sort_edges(struct edge *edges, size_t k, size_t n)
{
	size_t *at = xcalloc(n + 2, sizeof(*at));
	struct edge *out = xcalloc(k + 1, sizeof(*out));
	for (size_t i = 0; i < k; i++)
		at[edges[i].from + 2]++;
	for (size_t i = 2; i < n + 2; i++)
		at[i] += at[i - 1];
	for (size_t i = 0; i < k; i++)
		out[at[edges[i].from + 1]++] = edges[i];
	/* at[f + 1] is now the end of f's bucket, at[f] its start */
	for (size_t f = 0; f < n; f++)
		if (at[f + 1] - at[f] > 1)
			qsort(out + at[f], at[f + 1] - at[f], sizeof(*out), cmp_edge);
	if (k)
		memcpy(edges, out, k * sizeof(*out));
	free(out);
	free(at);
}

static void builder_release(struct builder *b)
{
	for (size_t i = 0; i < b->nr; i++)
		free(b->nodes[i].path);
	free(b->nodes);
	free(b->edges);
	cix_id_map_release(&b->at);
}

/* Sort the nodes, resolve the edges to indices and fill g; b is emptied. */
static void finish(struct builder *b, struct cix_db_graph *g)
{
	size_t n = 0, k = 0;

	if (b->nr > 1)
		sort_nodes(b->nodes, b->nr);
	/* Only invalid paths (without edges) can be there twice. */
	for (size_t i = 0; i < b->nr; i++)
		if (n && !strcmp(b->nodes[n - 1].path, b->nodes[i].path))
			free(b->nodes[i].path);
		else
			b->nodes[n++] = b->nodes[i];
	b->nr = n;
	rehash(b);

	for (size_t i = 0; i < b->nr_edges; i++) {
		size_t from = find(b, b->edges[i].from), to = find(b, b->edges[i].to);
		if (from != NONE && to != NONE) {
			b->edges[k].from = (int64_t)from;
			b->edges[k].to = (int64_t)to;
			k++;
		}
	}
	sort_edges(b->edges, k, n);

	g->nr = n;
	g->paths = xcalloc(n + 1, sizeof(*g->paths));
	g->refs_at = xcalloc(n + 1, sizeof(*g->refs_at));
	g->refs = xcalloc(k + 1, sizeof(*g->refs));
	size_t m = 0;
	for (size_t i = 0, e = 0; i < n; i++) {
		g->paths[i] = b->nodes[i].path;
		g->refs_at[i] = m;
		for (; e < k && (size_t)b->edges[e].from == i; e++)
			if (m == g->refs_at[i] || g->refs[m - 1] != (size_t)b->edges[e].to)
				g->refs[m++] = (size_t)b->edges[e].to;
	}
	g->refs_at[n] = m;
	b->nr = 0;
	builder_release(b);
}

int cix_db_graph(struct cix_db *db, const char *const *paths, size_t n,
		 enum cix_db_edges_mode mode, struct cix_db_graph *g, struct cix_err *err)
{
	struct builder b = { 0 };
	int r = 0;

	cix_id_map_init(&b.at, n);

	for (size_t i = 0; i < n; i++) {
		/*
		 * A path already in the graph of a closure brought its own
		 * closure with it: skip it, so that many paths of one closure
		 * cost one closure query (plus a look-up each), not one each.
		 */
		if (mode != CIX_DB_EDGES_PATH && b.nr) {
			int64_t id = 0;
			if ((r = cix_db_edges(db, paths[i], CIX_DB_EDGES_PATH, get_id, &id, err)) < 0)
				break;
			if (r && find(&b, id) != NONE)
				continue;
		}
		r = cix_db_edges(db, paths[i], mode, add_row, &b, err);
		if (r < 0)
			break;
		if (!r && mode != CIX_DB_EDGES_PATH) {
			r = cix_error(err, -CIX_ENOTFOUND, "path '%s' is not valid", paths[i]);
			break;
		}
		if (!r)
			add_node(&b, 0, paths[i]);
		r = 0;
	}
	if (r < 0) {
		builder_release(&b);
		return r;
	}
	finish(&b, g);
	return 0;
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
