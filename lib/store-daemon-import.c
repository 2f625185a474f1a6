/* store-daemon-import.c - an export stream imported into a daemon's store */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "store-backend.h"
#include "env.h"
#include "export.h"
#include "remove.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>

/*
 * Through the daemon: the whole stream is read and checked first, each
 * entry restored in a private temporary directory (so that a truncated or
 * corrupt stream sends nothing); then the entries go, in order, in one
 * request (AddMultipleToStore, or AddToStoreNar each to an older daemon),
 * which the daemon checks again.
 */
struct remote_import {
	struct cix_store *s;
	char *dir;
	struct cix_path_info *infos;	/* the entries, in the stream's order */
	char **targets;			/* where each is restored */
	size_t nr, alloc, alloc_targets;
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
	struct cix_path_info *e;
	ALLOC_GROW(ri->infos, ri->nr + 1, ri->alloc);
	ALLOC_GROW(ri->targets, ri->nr + 1, ri->alloc_targets);
	ri->targets[ri->nr] = xstrdup(target);
	e = &ri->infos[ri->nr++];
	memset(e, 0, sizeof(*e));
	e->path = xstrdup(ii->meta.path);
	e->deriver = ii->meta.deriver ? xstrdup(ii->meta.deriver) : NULL;
	e->refs = xcalloc(ii->meta.nr_refs + 1, sizeof(char *));
	for (size_t i = 0; i < ii->meta.nr_refs; i++)
		e->refs[i] = xstrdup(ii->meta.refs[i]);
	e->nr_refs = ii->meta.nr_refs;
	e->nar_hash = ii->nar_hash;
	e->nar_size = ii->nar_size;
	/* A signature (cix archive's: KEY:BASE64) lets the daemon trust it. */
	if (ii->sig && ii->sig_len < 1024 && strlen(ii->sig) == ii->sig_len &&
	    strchr(ii->sig, ':') && !strpbrk(ii->sig, " \t\n"))
		e->sigs = xstrdup(ii->sig);
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
		const struct cix_path_info *in = &ri->infos[k];
		for (size_t i = 0; i < in->nr_refs; i++) {
			int found = 0, r;
			for (size_t j = 0; !found && j <= k; j++)
				found = !strcmp(ri->infos[j].path, in->refs[i]);
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

static int open_entry(void *opaque, size_t i, struct cix_nar_input *in, struct cix_err *err)
{
	struct remote_import *ri = opaque;
	(void)err;
	memset(in, 0, sizeof(*in));
	in->fs_path = ri->targets[i];
	return 0;
}

static void close_entry(void *opaque, size_t i)
{
	(void)opaque;
	(void)i;
}

int cix_daemon_import(struct cix_store *s, cix_source_fn src, void *src_opaque,
		      cix_path_fn imported, void *opaque, struct cix_err *err)
{
	static const struct cix_import_ops ops = { remote_target, remote_done, remote_discard, 0, NULL };
	const char *tmp = cix_env(CIX_ENV_TMPDIR);
	struct strbuf d = STRBUF_INIT;
	struct remote_import ri = { .s = s };
	struct cix_nar_provider np = { open_entry, close_entry, &ri };
	int r;
	strbuf_addf(&d, "%s/cix-import-XXXXXX", tmp);
	if (!mkdtemp(d.buf)) {
		r = cix_error_errno(err, -errno, "cannot create a directory in '%s'", d.buf);
		strbuf_release(&d);
		return r;
	}
	ri.dir = d.buf;
	r = cix_import_parse(src, src_opaque, s->store_dir, &ops, &ri, err);
	if (!r)
		r = check_refs(&ri, err);
	if (!r)
		r = cix_store_add_many(s, ri.infos, ri.nr, &np, err);
	for (size_t k = 0; !r && imported && k < ri.nr; k++)
		r = imported(ri.infos[k].path, opaque);
	for (size_t k = 0; k < ri.nr; k++) {
		cix_path_info_release(&ri.infos[k]);
		free(ri.targets[k]);
	}
	free(ri.infos);
	free(ri.targets);
	cix_remove_tree_at(AT_FDCWD, d.buf, NULL);
	strbuf_release(&d);
	return r;
}
