/* store-graph.c - a graph of references built from a store's answers, path by path */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "store-backend.h"
#include "strvec.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

/* An edge of the graph, by the indices of its paths. */
struct edge {
	size_t from, to;
};

static int cmp_edge(const void *a, const void *b)
{
	const struct edge *x = a, *y = b;
	if (x->from != y->from)
		return x->from < y->from ? -1 : 1;
	return x->to < y->to ? -1 : x->to > y->to;
}

/* Is p in the sorted set? If not, put it there (and in order, to walk). */
static void add_new(struct strvec *sorted, struct strvec *order, const char *p)
{
	if (strvec_insert_sorted(sorted, p))
		strvec_push(order, p);
}

/* One query per path of the closure (or of the set, for CIX_DB_EDGES_PATH). */
int cix_store_graph_by_queries(struct cix_store *s, const char *const *paths, size_t n,
			       enum cix_db_edges_mode mode, struct cix_db_graph *g,
			       struct cix_err *err)
{
	struct strvec sorted = STRVEC_INIT, order = STRVEC_INIT, from = STRVEC_INIT,
		      to = STRVEC_INIT;
	int rev = mode == CIX_DB_EDGES_REFERRERS_CLOSURE, r = 0;

	memset(g, 0, sizeof(*g));

	for (size_t i = 0; i < n; i++)
		add_new(&sorted, &order, paths[i]);
	for (size_t k = 0; !r && k < order.nr; k++) {
		struct strvec next = STRVEC_INIT;
		const char *p = order.v[k];
		if (rev) {
			if ((r = cix_store_is_valid(s, p, err)) == 0)
				r = cix_error(err, -CIX_ENOTFOUND, "path '%s' is not valid", p);
			if (r > 0)
				r = cix_store_referrers(s, p, strvec_push_fn, &next, err);
		} else {
			r = cix_store_references(s, p, strvec_push_fn, &next, err);
			if (r == -CIX_ENOTFOUND && mode == CIX_DB_EDGES_PATH)
				r = 0;   /* an invalid path refers to nothing */
		}
		for (size_t i = 0; !r && i < next.nr; i++) {
			/* referrers closure: edges still point from referrer to reference */
			strvec_push(&from, rev ? next.v[i] : order.v[k]);
			strvec_push(&to, rev ? order.v[k] : next.v[i]);
			if (mode != CIX_DB_EDGES_PATH)
				add_new(&sorted, &order, next.v[i]);
		}
		strvec_clear(&next);
	}
	if (r >= 0) {
		/* The edges within the set, by index, sorted and unique. */
		struct edge *e = xcalloc(from.nr + 1, sizeof(*e));
		size_t ne = 0;
		for (size_t i = 0; i < from.nr; i++) {
			long a = strvec_find_sorted(&sorted, from.v[i]), b = strvec_find_sorted(&sorted, to.v[i]);
			if (a >= 0 && b >= 0)
				e[ne++] = (struct edge){ (size_t)a, (size_t)b };
		}
		if (ne)
			qsort(e, ne, sizeof(*e), cmp_edge);
		g->nr = sorted.nr;
		g->paths = sorted.v;
		g->refs_at = xcalloc(sorted.nr + 1, sizeof(*g->refs_at));
		g->refs = xcalloc(ne + 1, sizeof(*g->refs));
		size_t out = 0;
		for (size_t i = 0; i < ne; i++) {
			if (i && !cmp_edge(&e[i], &e[i - 1]))
				continue;
			g->refs[out++] = e[i].to;
			g->refs_at[e[i].from + 1]++;
		}
		for (size_t i = 0; i < sorted.nr; i++)
			g->refs_at[i + 1] += g->refs_at[i];
		free(e);
		sorted = (struct strvec)STRVEC_INIT;   /* now g's */
		r = 0;
	}
	strvec_clear(&sorted);
	strvec_clear(&order);
	strvec_clear(&from);
	strvec_clear(&to);
	return r;
}

