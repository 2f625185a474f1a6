/* store-ops.c - cix store --add, --add-fixed, --query, --check-validity, --delete */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "cix.h"
#include "store-ops.h"
#include "gc.h"
#include "encoding.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int op_add(struct cix_store *s, const struct store_flags *f, char **args, int nargs)
{
	int status = 0;
	for (int i = 0; i < nargs; i++) {
		struct cix_err err = { 0 };
		struct strbuf out = STRBUF_INIT;
		if (cix_store_add(s, args[i], CIX_ADD_RECURSIVE, CIX_HASH_SHA256, &out, &err) < 0)
			status = error_err(&err);
		else
			puts(out.buf);
		strbuf_release(&out);
	}
	return status;
}

int op_add_fixed(struct cix_store *s, const struct store_flags *f, char **args, int nargs)
{
	enum cix_hash_algo algo;
	int status = 0;
	if (nargs < 2)
		return usage_error("--add-fixed takes ALGO and at least one PATH");
	if (cix_hash_algo_parse(args[0], &algo) < 0)
		return usage_error("unknown hash algorithm '%s'", args[0]);
	for (int i = 1; i < nargs; i++) {
		struct cix_err err = { 0 };
		struct strbuf out = STRBUF_INIT;
		if (cix_store_add(s, args[i], f->recursive ? CIX_ADD_RECURSIVE : CIX_ADD_FLAT,
				  algo, &out, &err) < 0)
			status = error_err(&err);
		else
			puts(out.buf);
		strbuf_release(&out);
	}
	return status;
}

/* ---- Queries ---- */

int set_add(const char *path, void *opaque)
{
	strvec_insert_sorted(opaque, path);
	return 0;
}

/*
 * g's nodes in nix-store's order into order[0..g->nr): depth-first over
 * the paths in sorted order, each after the paths it refers to (within
 * g), so that dependencies come before what depends on them. The walk
 * keeps its own stack: a chain of references may be as long as the store.
 */
void graph_order(const struct cix_db_graph *g, size_t *order)
{
	struct frame {
		size_t node, next;
	} *stack = xcalloc(g->nr + 1, sizeof(*stack));
	unsigned char *seen = xcalloc(g->nr + 1, 1);
	size_t k = 0;

	for (size_t root = 0; root < g->nr; root++) {
		size_t sp = 0;
		if (seen[root])
			continue;
		seen[root] = 1;
		stack[sp++] = (struct frame){ root, g->refs_at[root] };
		while (sp) {
			struct frame *f = &stack[sp - 1];
			if (f->next < g->refs_at[f->node + 1]) {
				size_t j = g->refs[f->next++];
				if (!seen[j]) {   /* also skips a reference to itself */
					seen[j] = 1;
					stack[sp++] = (struct frame){ j, g->refs_at[j] };
				}
				continue;
			}
			order[k++] = f->node;
			sp--;
		}
	}
	free(seen);
	free(stack);
}

/* g's paths in graph_order, a line each, to out or (if NULL) stdout. */
static void graph_print(const struct cix_db_graph *g, struct strbuf *out)
{
	size_t *order = xcalloc(g->nr + 1, sizeof(*order));
	graph_order(g, order);
	for (size_t k = 0; k < g->nr; k++) {
		if (out) {
			strbuf_addstr(out, g->paths[order[k]]);
			strbuf_addch(out, '\n');
		} else {
			puts(g->paths[order[k]]);
		}
	}
	free(order);
}

int topo_print(struct cix_store *s, const struct strvec *ps, struct strbuf *out,
	       struct cix_err *err)
{
	struct cix_db_graph g;
	/* Outputs of a derivation may not be valid: they then refer to nothing. */
	int r = cix_store_graph(s, (const char *const *)ps->v, ps->nr, CIX_DB_EDGES_PATH,
			     &g, err);
	if (r < 0)
		return r;
	graph_print(&g, out);
	cix_db_graph_release(&g);
	return 0;
}

/* -R and --referrers-closure of paths[0..n), in one query per closure. */
static int closure_print(struct cix_store *s, int mode, char **paths, size_t n,
			 struct cix_err *err)
{
	struct cix_db_graph g;
	int r = cix_store_graph(s, (const char *const *)paths, n,
			     mode == QUERY_REQUISITES ? CIX_DB_EDGES_REQUISITES
						      : CIX_DB_EDGES_REFERRERS_CLOSURE,
			     &g, err);
	if (r < 0)
		return r;
	graph_print(&g, NULL);
	cix_db_graph_release(&g);
	return 0;
}

/*
 * --tree: each path, then its references (dependencies first), drawn with
 * the box characters nix-store uses; a path already shown gets " [...]".
 */
static int print_tree(struct cix_store *s, const char *path, const char *first,
		      const char *tail, struct strvec *done, struct cix_err *err)
{
	struct strvec refs = { 0 };
	struct strbuf order = STRBUF_INIT;
	int r;

	if (strvec_find_sorted(done, path) >= 0) {
		printf("%s%s [...]\n", first, path);
		return 0;
	}
	set_add(path, done);
	printf("%s%s\n", first, path);
	if ((r = cix_store_references(s, path, set_add, &refs, err)) < 0)
		goto out;
	/* Capture the topological order of the references, then recurse. */
	r = topo_print(s, &refs, &order, err);
	size_t n = 0, k = 0;
	for (size_t i = 0; i < order.len; i++)
		n += order.buf[i] == '\n';
	for (char *line = order.buf, *nl; !r && k < n; line = nl + 1, k++) {
		nl = strchr(line, '\n');
		*nl = '\0';
		int last = k + 1 == n;
		struct strbuf f = STRBUF_INIT, tl = STRBUF_INIT;
		strbuf_addf(&f, "%s%s", tail, last ? "\u2514\u2500\u2500\u2500" : "\u251c\u2500\u2500\u2500");
		strbuf_addf(&tl, "%s%s", tail, last ? "    " : "\u2502   ");
		r = print_tree(s, line, f.buf, tl.buf, done, err);
		strbuf_release(&f);
		strbuf_release(&tl);
	}
out:
	strbuf_release(&order);
	strvec_clear(&refs);
	return r;
}

/* --graph: the closure as Graphviz dot, edges from references to referrers. */
static int print_graph(struct cix_store *s, struct strvec *work, struct cix_err *err)
{
	static const char *const colours[] = { "black", "red", "green", "blue", "magenta",
					       "burlywood" };
	struct strvec done = { 0 };
	size_t colour = 0;
	int r = 0;
	puts("digraph G {");
	while (!r && work->nr) {
		char *p = work->v[0];
		memmove(work->v, work->v + 1, --work->nr * sizeof(*work->v));
		if (strvec_find_sorted(&done, p) < 0) {
			struct strvec refs = { 0 };
			const char *base = strrchr(p, '/') + 1, *name = base + 33;
			set_add(p, &done);
			printf("\"%s\" [label = \"%s\", shape = box, style = filled, "
			       "fillcolor = \"#ff0000\"];\n", base, name);
			r = cix_store_references(s, p, set_add, &refs, err);
			for (size_t i = 0; !r && i < refs.nr; i++) {
				if (!strcmp(refs.v[i], p))
					continue;
				set_add(refs.v[i], work);
				printf("\"%s\" -> \"%s\" [color = \"%s\"];\n",
				       strrchr(refs.v[i], '/') + 1, base,
				       colours[colour++ % ARRAY_SIZE(colours)]);
			}
			strvec_clear(&refs);
		}
		free(p);
	}
	puts("}");
	strvec_clear(&done);
	return r;
}

static int query_one(struct cix_store *s, int mode, const char *path, struct strvec *ps,
		     struct cix_err *err)
{
	struct cix_path_info info;
	struct strbuf sb = STRBUF_INIT;
	int r;

	switch (mode) {
	case QUERY_REFERENCES:
		return cix_store_references(s, path, set_add, ps, err);
	case QUERY_REFERRERS:
		return cix_store_referrers(s, path, set_add, ps, err);
	case QUERY_VALID_DERIVERS:
		return cix_store_valid_derivers(s, path, set_add, ps, err);
	case QUERY_OUTPUTS:
		return cix_store_drv_outputs_list(s, path, set_add, ps, err);
	}
	if ((r = cix_store_query(s, path, &info, err)) < 0)
		return r;
	if (mode == QUERY_DERIVER)
		puts(info.deriver ? info.deriver : "unknown-deriver");
	else if (mode == QUERY_SIZE)
		printf("%llu\n", (unsigned long long)info.nar_size);
	else {
		strbuf_addstr(&sb, "sha256:");
		cix_nixbase32_encode(&sb, info.nar_hash.bytes, info.nar_hash.len);
		puts(sb.buf);
		strbuf_release(&sb);
	}
	cix_path_info_release(&info);
	return 0;
}

int op_query(struct cix_store *s, const struct store_flags *f, char **args, int nargs)
{
	struct strvec ps = { 0 };
	struct cix_err err = { 0 };
	int r = 0;

	if (f->query == QUERY_NONE)
		return usage_error("--query needs a mode, such as --references or --requisites");
	for (int i = 0; !r && i < nargs; i++) {
		if ((r = cix_store_check_path(s, args[i], &err)) < 0)
			break;
		if (f->query == QUERY_TREE) {
			struct strvec done = { 0 };
			if ((r = cix_store_is_valid(s, args[i], &err)) == 0)
				r = cix_error(&err, -CIX_ENOTFOUND, "path '%s' is not valid", args[i]);
			if (r > 0)
				r = print_tree(s, args[i], "", "", &done, &err);
			strvec_clear(&done);
		} else if (f->query == QUERY_GRAPH) {
			if ((r = cix_store_is_valid(s, args[i], &err)) == 0)
				r = cix_error(&err, -CIX_ENOTFOUND, "path '%s' is not valid", args[i]);
			if (r > 0)
				r = set_add(args[i], &ps);
		} else if (f->query != QUERY_REQUISITES &&
			   f->query != QUERY_REFERRERS_CLOSURE) {
			r = query_one(s, f->query, args[i], &ps, &err);
		}
	}
	if (!r && (f->query == QUERY_REQUISITES || f->query == QUERY_REFERRERS_CLOSURE))
		r = closure_print(s, f->query, args, (size_t)nargs, &err);
	else if (!r && f->query == QUERY_GRAPH)
		r = print_graph(s, &ps, &err);
	else if (!r && f->query == QUERY_OUTPUTS)
		for (size_t i = 0; i < ps.nr; i++)
			puts(ps.v[i]);   /* as Nix: sorted, not by references */
	else if (!r && ps.nr)
		r = topo_print(s, &ps, NULL, &err);
	strvec_clear(&ps);
	return r < 0 ? error_err(&err) : 0;
}

int op_check_validity(struct cix_store *s, const struct store_flags *f, char **args, int nargs)
{
	for (int i = 0; i < nargs; i++) {
		struct cix_err err = { 0 };
		int r = cix_store_check_path(s, args[i], &err);
		if (r >= 0)
			r = cix_store_is_valid(s, args[i], &err);
		if (r < 0)
			return error_err(&err);
		if (!r) {
			if (!f->print_invalid)
				return error("path '%s' is not valid", args[i]);
			puts(args[i]);
		}
	}
	return 0;
}

int op_delete(struct cix_store *s, const struct store_flags *f, char **args, int nargs)
{
	int status = 0;
	/* One at a time, each refused while alive or referred to. */
	for (int i = 0; i < nargs; i++) {
		struct cix_err err = { 0 };
		const char *p = args[i];
		struct cix_gc_opts o = { .action = CIX_GC_DELETE_SPECIFIC, .paths = &p, .nr_paths = 1,
					 .keep_derivations = 1 };
		if (cix_store_collect_garbage(s, &o, NULL, &err) < 0)
			status = error_err(&err);
	}
	return status;
}
