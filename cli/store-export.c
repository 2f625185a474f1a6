/* store-export.c - cix store --export and --import */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "cix.h"
#include "store-ops.h"
#include "export.h"
#include "nar-read.h"
#include "str-index.h"
#include "nar-prefetch.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * Standard output, buffered in a strbuf: an entry's metadata is a dozen
 * small writes, a system call each without the buffer.
 */
#define OUT_BUF_SIZE (256 * 1024)

static int out_flush(struct strbuf *b)
{
	int r = b->len ? cix_write_full(1, b->buf, b->len) : 0;
	strbuf_reset(b);
	return r;
}

static int out_sink(void *opaque, const void *data, size_t len)
{
	struct strbuf *b = opaque;
	int r;
	if (b->len + len > OUT_BUF_SIZE && (r = out_flush(b)) < 0)
		return r;
	if (len >= OUT_BUF_SIZE)
		return cix_write_full(1, data, len);
	strbuf_add(b, data, len);
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * An export: the paths given, sorted without repeats (names: their base
 * names in the store's directory), their infos, and the NARs read ahead.
 */
struct export {
	struct cix_store *s;
	char **paths;
	const char **names;
	struct cix_path_info *infos;
	size_t n;
	struct cix_nar_prefetch *ahead;
};

/* Read ahead within this much memory (the rest is read as it is written). */
#define READ_AHEAD_BYTES (64u << 20)

/* The files of the paths, read while the database is. */
static void read_ahead(void *opaque)
{
	struct export *x = opaque;
	size_t skip = strlen(x->s->store_dir) + 1;
	if (x->s->store_fd < 0)
		return;
	x->names = xcalloc(x->n + 1, sizeof(*x->names));
	for (size_t i = 0; i < x->n; i++)
		x->names[i] = x->paths[i] + skip;
	x->ahead = cix_nar_prefetch_start(x->s->store_fd, x->names, x->n, READ_AHEAD_BYTES);
}

/* The paths given, sorted without repeats, each valid and queried once. */
static int query_args(struct export *x, char **args, size_t nargs, struct cix_err *err)
{
	int r = 0;
	x->paths = xcalloc(nargs + 1, sizeof(*x->paths));
	x->infos = xcalloc(nargs + 1, sizeof(*x->infos));
	for (size_t i = 0; !r && i < nargs; i++)
		r = cix_store_check_path(x->s, x->paths[i] = args[i], err);
	if (!r)
		qsort(x->paths, nargs, sizeof(*x->paths), cmp_str);
	for (size_t i = 0; !r && i < nargs; i++)
		if (!i || strcmp(x->paths[i - 1], x->paths[i]))
			x->paths[x->n++] = x->paths[i];
	/*
	 * A local store: the read transaction's snapshot taken (by a first
	 * query) before the files are read, every path it shows valid was
	 * whole in place before: the reading can start at once. Through a
	 * daemon, only once all are known valid.
	 */
	if (!r && x->n && cix_store_has(x->s, CIX_STORE_LOCAL_DB) &&
	    (r = cix_store_is_valid(x->s, x->paths[0], err)) >= 0) {
		r = 0;
		read_ahead(x);
	}
	if (!r)
		r = cix_store_query_many(x->s, (const char *const *)x->paths, x->n, x->infos,
					 cix_store_has(x->s, CIX_STORE_LOCAL_DB) ? NULL : read_ahead,
					 x, err);
	if (r < 0)
		x->n = 0;
	return r < 0 ? r : 0;
}

static int cmp_index(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	return (x > y) - (x < y);
}

/* The graph of infos[0..n) (sorted by path): their references among them. */
static void infos_graph(const struct cix_path_info *infos, size_t n, struct cix_db_graph *g)
{
	struct cix_str_index at;
	size_t nr_refs = 0, k = 0;
	g->nr = n;
	g->paths = xcalloc(n + 1, sizeof(*g->paths));
	g->refs_at = xcalloc(n + 1, sizeof(*g->refs_at));
	for (size_t i = 0; i < n; i++) {
		g->paths[i] = infos[i].path;
		nr_refs += infos[i].nr_refs;
	}
	g->refs = xcalloc(nr_refs + 1, sizeof(*g->refs));
	cix_str_index_build(&at, (const char *const *)g->paths, n);
	for (size_t i = 0; i < n; i++) {
		g->refs_at[i] = k;
		for (size_t j = 0; j < infos[i].nr_refs; j++) {
			long x = cix_str_index_find(&at, infos[i].refs[j]);
			if (x >= 0)
				g->refs[k++] = (size_t)x;
		}
		/* Visited in sorted order, as nix-store does (they mostly come so). */
		qsort(g->refs + g->refs_at[i], k - g->refs_at[i], sizeof(*g->refs), cmp_index);
	}
	g->refs_at[n] = k;
	cix_str_index_release(&at);
}

/* The entry of infos[i], its NAR read ahead or now. */
static int export_one(struct export *x, size_t i, struct strbuf *out, struct cix_err *err)
{
	const struct cix_path_info *in = &x->infos[i];
	struct cix_export_meta m = { in->path, (const char *const *)in->refs, in->nr_refs,
				     in->deriver };
	char *nar;
	size_t len;
	int r;
	if (cix_nar_prefetch_take(x->ahead, i, &nar, &len)) {
		r = cix_export_path_mem(out_sink, out, nar, len, &m, err);
		free(nar);
		return r;
	}
	/* Each NAR read from the store's directory: one lookup a path. */
	if (x->names)
		return cix_export_path_at(out_sink, out, x->s->store_fd, x->names[i], &m, err);
	return cix_export_path(out_sink, out, in->path, &m, err);
}

/* Each path of the graph, in nix-store's order, as an entry of the stream. */
static int export_all(struct export *x, struct strbuf *out, struct cix_err *err)
{
	struct cix_db_graph g;
	size_t *order = xcalloc(x->n + 1, sizeof(*order));
	int r = 0;
	infos_graph(x->infos, x->n, &g);
	graph_order(&g, order);
	for (size_t k = 0; !r && k < x->n; k++)
		r = export_one(x, order[k], out, err);
	free(g.paths);
	free(g.refs_at);
	free(g.refs);
	free(order);
	return r;
}

int op_export(struct cix_store *s, const struct store_flags *f, char **args, int nargs)
{
	struct export x = { .s = s };
	struct strbuf out = STRBUF_INIT;
	struct cix_err err = { 0 };
	int r = cix_store_read_begin(s, &err);

	if (!r)
		r = query_args(&x, args, (size_t)nargs, &err);
	if (!r)
		r = export_all(&x, &out, &err);
	cix_store_read_end(s);
	cix_nar_prefetch_stop(x.ahead);
	if (!r)
		r = cix_export_end(out_sink, &out, &err);
	/* What came before an error goes out too, as it did unbuffered. */
	int fr = out_flush(&out);
	if (fr < 0 && !r)
		r = fr;
	strbuf_release(&out);
	for (size_t i = 0; i < x.n; i++)
		cix_path_info_release(&x.infos[i]);
	free(x.infos);
	free(x.paths);
	free(x.names);
	if (r < 0 && !err.msg[0])
		cix_error_errno(&err, r, "cannot write to standard output");
	return r < 0 ? error_err(&err) : 0;
}

static int print_path(const char *path, void *opaque)
{
	puts(path);
	return 0;
}

int op_import(struct cix_store *s, const struct store_flags *f, char **args, int nargs)
{
	static struct cix_buf_source in = CIX_BUF_SOURCE_INIT(0);
	struct cix_err err = { 0 };
	int r = cix_store_import(s, cix_buf_source_read, &in, print_path, NULL, &err);
	return r < 0 ? error_err(&err) : 0;
}
