/* store-import.c - import export streams into the store, all or nothing */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "gc.h"
#include "store.h"
#include "store-int.h"
#include "export.h"
#include "nar-read.h"
#include "store-path.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/*
 * Every NAR of the stream is restored under a temporary name first. Only
 * when the whole stream has been read and checked are the paths claimed
 * (in sorted order, so that concurrent writers cannot deadlock, with one
 * descriptor for all: path-lock.c), moved into place and registered, in
 * one transaction: a truncated or corrupt stream registers nothing, and a
 * crash leaves only invalid leftovers that the next opening of the store
 * or add of the path removes.
 */

struct entry {
	struct cix_path_info info;
	char *tmp;       /* base name in the temporary directory, or NULL */
	int moved;       /* renamed into place, not yet registered */
};

struct import {
	struct cix_store *s;
	struct entry *e;
	size_t nr, alloc;
};

static int nar_target(void *opaque, char **target, struct cix_err *err)
{
	struct import *im = opaque;
	struct strbuf sb = STRBUF_INIT;
	strbuf_addf(&sb, "%s/.cix-tmp/", im->s->store_dir);
	cix_store_tmp_name(&sb);
	*target = strbuf_detach(&sb, NULL);
	return 0;
}

static void discard(void *opaque, const char *target)
{
	cix_remove_tree_at(AT_FDCWD, target, NULL);
}

static int path_done(void *opaque, const char *target, const struct cix_import_info *in,
		     struct cix_err *err)
{
	struct import *im = opaque;
	struct entry *e;
	ALLOC_GROW(im->e, im->nr + 1, im->alloc);
	e = memset(&im->e[im->nr++], 0, sizeof(*e));
	e->tmp = xstrdup(strrchr(target, '/') + 1);
	e->info.path = xstrdup(in->meta.path);
	e->info.nar_hash = in->nar_hash;
	e->info.nar_size = in->nar_size;
	if (in->meta.deriver)
		e->info.deriver = xstrdup(in->meta.deriver);
	e->info.refs = xcalloc(in->meta.nr_refs + 1, sizeof(char *));
	for (size_t i = 0; i < in->meta.nr_refs; i++)
		e->info.refs[i] = xstrdup(in->meta.refs[i]);
	e->info.nr_refs = in->meta.nr_refs;
	return 0;
}

static int cmp_entry(const void *a, const void *b)
{
	const struct entry *x = *(struct entry *const *)a, *y = *(struct entry *const *)b;
	int c = strcmp(x->info.path, y->info.path);
	return c ? c : (x > y) - (x < y); /* the same path twice: stream order */
}

/* The entries sorted by path, then by their place in the stream. */
static struct entry **sorted_entries(struct import *im)
{
	struct entry **order = xcalloc(im->nr + 1, sizeof(*order));
	for (size_t i = 0; i < im->nr; i++)
		order[i] = &im->e[i];
	qsort(order, im->nr, sizeof(*order), cmp_entry);
	return order;
}

/* Whether path comes in the stream before entry e (the first of it, if repeated). */
static int earlier(struct entry **order, size_t n, const char *path, const struct entry *e)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (strcmp(order[mid]->info.path, path) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && !strcmp(order[lo]->info.path, path) && order[lo] < e;
}

/* Each reference must be valid already, the path itself, or come earlier. */
static int check_refs(struct import *im, struct entry **order, struct cix_err *err)
{
	for (size_t i = 0; i < im->nr; i++) {
		struct cix_path_info *in = &im->e[i].info;
		for (size_t k = 0; k < in->nr_refs; k++) {
			const char *ref = in->refs[k];
			if (!strcmp(ref, in->path) || earlier(order, im->nr, ref, &im->e[i]))
				continue;
			int r = cix_store_add_temp_root(im->s, ref, err);
			if (!r)
				r = cix_db_is_valid(im->s->db, ref, err);
			if (r < 0)
				return r;
			if (!r)
				return cix_error(err, -CIX_ENOTFOUND,
						 "cannot import '%s': its reference '%s' is neither valid nor earlier in the stream",
						 in->path, ref);
		}
	}
	return 0;
}

static int tmp_path(struct import *im, struct entry *e, struct strbuf *sb)
{
	strbuf_reset(sb);
	strbuf_addf(sb, "%s/.cix-tmp/%s", im->s->store_dir, e->tmp);
	return 0;
}

/* Claimed: into place, unless valid already. */
static int claim_one(struct import *im, struct cix_path_claim *claim, int tfd,
		     struct entry *e, struct cix_err *err)
{
	struct cix_store *s = im->s;
	const char *base = e->info.path + strlen(s->store_dir) + 1;
	int r = cix_path_claim(s, claim, e->info.path, err);
	if (!r && (r = cix_db_is_valid(s->db, e->info.path, err)) > 0)
		return 0;
	if (!r && (r = cix_remove_tree_at(s->store_fd, base, err)) == 0 &&
	    (r = cix_store_move_in(s, tfd, e->tmp, base, err)) == 0)
		e->moved = 1;
	return r;
}

/* Claim, move into place and register every entry; all or nothing. */
static int commit(struct import *im, struct entry **order, struct cix_err *err)
{
	struct cix_store *s = im->s;
	struct cix_path_info *infos = xcalloc(im->nr + 1, sizeof(*infos));
	const char **moved = xcalloc(im->nr + 1, sizeof(*moved));
	const char **paths = xcalloc(im->nr + 1, sizeof(*paths));
	struct cix_path_claim claim;
	size_t n = 0;
	int tfd = -1, r;

	for (size_t i = 0; i < im->nr; i++)
		paths[i] = order[i]->info.path;
	r = cix_store_add_temp_roots(s, paths, im->nr, err);
	if (!r)
		r = cix_path_claim_begin(s, &claim, err);
	if (r < 0)
		goto out;
	tfd = openat(s->store_fd, TMP_DIR, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (tfd < 0)
		r = cix_error_errno(err, -errno, "cannot open '%s/%s'", s->store_dir, TMP_DIR);
	/* (the same path again in the stream: the first is imported) */
	for (size_t i = 0; !r && i < im->nr; i++)
		if (!i || strcmp(order[i - 1]->info.path, order[i]->info.path))
			r = claim_one(im, &claim, tfd, order[i], err);
	for (size_t i = 0; i < im->nr; i++)
		if (im->e[i].moved)
			moved[n++] = im->e[i].info.path;
	/* In place: derivations are checked, their inputs among them too. */
	for (size_t i = 0; !r && i < im->nr; i++)
		if (im->e[i].moved)
			r = cix_store_admit_drv(s, &im->e[i].info, im->e[i].info.path, moved, n,
						err);
	for (size_t i = 0, k = 0; !r && i < im->nr; i++)
		if (im->e[i].moved)
			infos[k++] = im->e[i].info;
	if (!r && n)
		r = cix_store_register(s, infos, n, err);
	/* Still ours while the claim lasts: nobody else may have touched them. */
	for (size_t i = 0; r < 0 && i < n; i++)
		cix_remove_path(s, moved[i], NULL);
	cix_path_claim_end(s, &claim);
	if (tfd >= 0)
		close(tfd);
out:
	free(paths);
	free(moved);
	free(infos);
	return r;
}

static void release(struct import *im)
{
	for (size_t i = 0; i < im->nr; i++) {
		struct entry *e = &im->e[i];
		if (e->tmp && !e->moved) {
			struct strbuf sb = STRBUF_INIT;
			tmp_path(im, e, &sb);
			cix_remove_tree_at(AT_FDCWD, sb.buf, NULL);
			strbuf_release(&sb);
		}
		free(e->tmp);
		cix_path_info_release(&e->info);
	}
	free(im->e);
}

int cix_store_import(struct cix_store *s, cix_source_fn src, void *src_opaque,
		     cix_path_fn imported, void *opaque, struct cix_err *err)
{
	static const struct cix_import_ops ops = { nar_target, path_done, discard,
						   CIX_RESTORE_CANONICAL };
	struct import im = { .s = s };
	struct entry **order = NULL;
	int r = cix_store_need_tmp(s, err);
	if (!r)
		r = cix_import_parse(src, src_opaque, s->store_dir, &ops, &im, err);
	if (!r) {
		order = sorted_entries(&im);
		r = check_refs(&im, order, err);
	}
	if (!r)
		r = commit(&im, order, err);
	free(order);
	for (size_t i = 0; !r && imported && i < im.nr; i++)
		r = imported(im.e[i].info.path, opaque);
	release(&im);
	return r;
}
