/* store-export.c - cix store --export and --import */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "cix.h"
#include "store-ops.h"
#include "export.h"
#include "nar-read.h"
#include "remote.h"
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
	if (!r && x->n && !x->s->remote && (r = cix_store_is_valid(x->s, x->paths[0], err)) >= 0) {
		r = 0;
		read_ahead(x);
	}
	if (!r)
		r = cix_store_query_many(x->s, (const char *const *)x->paths, x->n, x->infos,
					 x->s->remote ? read_ahead : NULL, x, err);
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

/*
 * Through the daemon: the whole stream is read and checked first, each
 * entry restored in a private temporary directory (so that a truncated or
 * corrupt stream sends nothing); then the entries go, in order, as
 * AddToStoreNar, which the daemon checks again.
 */
struct remote_entry {
	struct cix_path_info info;
	char *target;
};

struct remote_import {
	struct cix_store *s;
	char *dir;
	struct remote_entry *e;
	size_t nr, alloc;
};

static int remote_target(void *opaque, char **target, struct cix_err *err)
{
	struct remote_import *ri = opaque;
	struct strbuf t = STRBUF_INIT;
	strbuf_addf(&t, "%s/%zu", ri->dir, ri->nr);
	*target = strbuf_detach(&t, NULL);
	return 0;
}

static int remote_done(void *opaque, const char *target, const struct cix_import_info *ii,
		       struct cix_err *err)
{
	struct remote_import *ri = opaque;
	struct remote_entry *e;
	ALLOC_GROW(ri->e, ri->nr + 1, ri->alloc);
	e = &ri->e[ri->nr++];
	memset(e, 0, sizeof(*e));
	e->target = xstrdup(target);
	e->info.path = xstrdup(ii->meta.path);
	e->info.deriver = ii->meta.deriver ? xstrdup(ii->meta.deriver) : NULL;
	e->info.refs = xcalloc(ii->meta.nr_refs + 1, sizeof(char *));
	for (size_t i = 0; i < ii->meta.nr_refs; i++)
		e->info.refs[i] = xstrdup(ii->meta.refs[i]);
	e->info.nr_refs = ii->meta.nr_refs;
	e->info.nar_hash = ii->nar_hash;
	e->info.nar_size = ii->nar_size;
	/* A signature (cix archive's: KEY:BASE64) lets the daemon trust it. */
	if (ii->sig && ii->sig_len < 1024 && strlen(ii->sig) == ii->sig_len &&
	    strchr(ii->sig, ':') && !strpbrk(ii->sig, " \t\n"))
		e->info.sigs = xstrdup(ii->sig);
	return 0;
}

static void remote_discard(void *opaque, const char *target)
{
	cix_remove_tree_at(AT_FDCWD, target, NULL);
}

/* Every reference is valid already, or an earlier entry (or the path itself). */
static int check_refs(struct remote_import *ri, struct cix_err *err)
{
	for (size_t k = 0; k < ri->nr; k++) {
		const struct cix_path_info *in = &ri->e[k].info;
		for (size_t i = 0; i < in->nr_refs; i++) {
			int found = 0, r;
			for (size_t j = 0; !found && j <= k; j++)
				found = !strcmp(ri->e[j].info.path, in->refs[i]);
			if (found)
				continue;
			if ((r = cix_store_is_valid(ri->s, in->refs[i], err)) < 0)
				return r;
			if (!r)
				return cix_error(err, -CIX_ENOTFOUND,
						 "cannot import '%s': its reference '%s' is neither valid nor earlier in the stream",
						 in->path, in->refs[i]);
		}
	}
	return 0;
}

static int import_remote(struct cix_store *s, struct cix_buf_source *in, struct cix_err *err)
{
	static const struct cix_import_ops ops = { remote_target, remote_done, remote_discard, 0, NULL };
	const char *tmp = getenv("TMPDIR");
	struct strbuf d = STRBUF_INIT;
	struct remote_import ri = { s, NULL, NULL, 0, 0 };
	int r;
	strbuf_addf(&d, "%s/cix-import-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(d.buf)) {
		r = cix_error_errno(err, -errno, "cannot create a directory in '%s'", d.buf);
		strbuf_release(&d);
		return r;
	}
	ri.dir = d.buf;
	r = cix_import_parse(cix_buf_source_read, in, s->store_dir, &ops, &ri, err);
	if (!r)
		r = check_refs(&ri, err);
	for (size_t k = 0; !r && k < ri.nr; k++)
		if (!(r = cix_remote_add_nar(s->remote, &ri.e[k].info, ri.e[k].target, err)))
			puts(ri.e[k].info.path);
	for (size_t k = 0; k < ri.nr; k++) {
		cix_path_info_release(&ri.e[k].info);
		free(ri.e[k].target);
	}
	free(ri.e);
	cix_remove_tree_at(AT_FDCWD, d.buf, NULL);
	strbuf_release(&d);
	return r;
}

int op_import(struct cix_store *s, const struct store_flags *f, char **args, int nargs)
{
	static struct cix_buf_source in = CIX_BUF_SOURCE_INIT(0);
	struct cix_err err = { 0 };
	int r = s->remote ? import_remote(s, &in, &err)
			  : cix_store_import(s, cix_buf_source_read, &in, print_path, NULL, &err);
	return r < 0 ? error_err(&err) : 0;
}
