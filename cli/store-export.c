/* store-export.c - cix store --export and --import */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "cix.h"
#include "store-ops.h"
#include "export.h"
#include "nar-read.h"
#include "remote.h"

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

int op_export(struct cix_store *s, const struct store_flags *f, char **args, int nargs)
{
	struct strvec ps = { 0 };
	struct strbuf order = STRBUF_INIT;
	struct strbuf out = STRBUF_INIT;
	struct cix_err err = { 0 };
	int r = cix_store_read_begin(s, &err);

	for (int i = 0; !r && i < nargs; i++) {
		if ((r = cix_store_check_path(s, args[i], &err)) < 0)
			break;
		if ((r = cix_store_is_valid(s, args[i], &err)) == 0)
			r = cix_error(&err, -CIX_ENOTFOUND, "path '%s' is not valid", args[i]);
		if (r > 0)
			r = set_add(args[i], &ps);
	}
	if (!r)
		r = topo_print(s, &ps, &order, &err);
	for (char *line = order.buf, *nl; !r && *line; line = nl + 1) {
		struct cix_path_info info;
		nl = strchr(line, '\n');
		*nl = '\0';
		if ((r = cix_store_query(s, line, &info, &err)) < 0)
			break;
		struct cix_export_meta m = { info.path, (const char *const *)info.refs,
					     info.nr_refs, info.deriver };
		r = cix_export_path(out_sink, &out, info.path, &m, &err);
		cix_path_info_release(&info);
	}
	cix_store_read_end(s);
	if (!r)
		r = cix_export_end(out_sink, &out, &err);
	/* What came before an error goes out too, as it did unbuffered. */
	int fr = out_flush(&out);
	if (fr < 0 && !r)
		r = fr;
	strbuf_release(&out);
	strbuf_release(&order);
	strvec_clear(&ps);
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
