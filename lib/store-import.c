/* store-import.c - import export streams into the store, all or nothing */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "gc.h"
#include "store.h"
#include "store-int.h"
#include "store-backend.h"
#include "export.h"
#include "remove.h"
#include "store-path.h"
#include "str-index.h"

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
	long pid;        /* ours, for the temporaries' names */
};

/* Targets are names in the temporaries' directory, held open by the store. */
static int nar_target(void *opaque, char **target, struct cix_err *err)
{
	struct import *im = opaque;
	struct strbuf sb = STRBUF_INIT;
	cix_store_tmp_name_of(&sb, im->pid);
	*target = strbuf_detach(&sb, NULL);
	return 0;
}

static int target_dir(void *opaque)
{
	return ((struct import *)opaque)->s->tmp_fd;
}

static void discard(void *opaque, const char *target)
{
	cix_remove_tree_at(target_dir(opaque), target, NULL);
}

static int path_done(void *opaque, const char *target, const struct cix_import_info *in,
		     struct cix_err *err)
{
	struct import *im = opaque;
	struct entry *e;
	ALLOC_GROW(im->e, im->nr + 1, im->alloc);
	e = memset(&im->e[im->nr++], 0, sizeof(*e));
	e->tmp = xstrdup(target);
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

/* An entry with the first bytes of its path's hash part, to sort by without a miss. */
struct sort_key {
	uint64_t key;
	struct entry *e;
};

static int cmp_key(const void *a, const void *b)
{
	const struct sort_key *x = a, *y = b;
	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	int c = strcmp(x->e->info.path, y->e->info.path);
	return c ? c : (x->e > y->e) - (x->e < y->e); /* the same path twice: stream order */
}

/* The entries sorted by path, then by their place in the stream. */
static struct entry **sorted_entries(struct import *im)
{
	struct sort_key *keys = xcalloc(im->nr + 1, sizeof(*keys));
	struct entry **order = xcalloc(im->nr + 1, sizeof(*order));
	size_t skip = strlen(im->s->store_dir) + 1;   /* (the same in every path) */
	for (size_t i = 0; i < im->nr; i++) {
		keys[i].e = &im->e[i];
		keys[i].key = cix_str_key(im->e[i].info.path + skip);
	}
	qsort(keys, im->nr, sizeof(*keys), cmp_key);
	for (size_t i = 0; i < im->nr; i++)
		order[i] = keys[i].e;
	free(keys);
	return order;
}

/* Each reference must be valid already, the path itself, or come earlier. */
static int check_refs(struct import *im, struct cix_err *err)
{
	const char **paths = xcalloc(im->nr + 1, sizeof(*paths));
	struct cix_str_index first;   /* of a path repeated, its first place */
	int r = 0;
	for (size_t i = 0; i < im->nr; i++)
		paths[i] = im->e[i].info.path;
	cix_str_index_build(&first, paths, im->nr);
	for (size_t i = 0; !r && i < im->nr; i++) {
		struct cix_path_info *in = &im->e[i].info;
		for (size_t k = 0; !r && k < in->nr_refs; k++) {
			const char *ref = in->refs[k];
			long at = cix_str_index_find(&first, ref);
			if ((at >= 0 && (size_t)at < i) || !strcmp(ref, in->path))
				continue;
			r = cix_store_add_temp_root(im->s, ref, err);
			if (!r)
				r = cix_db_is_valid(im->s->db, ref, err);
			if (!r)
				r = cix_error(err, -CIX_ENOTFOUND,
					      "cannot import '%s': its reference '%s' is neither valid nor earlier in the stream",
					      in->path, ref);
			r = r < 0 ? r : 0;
		}
	}
	cix_str_index_release(&first);
	free(paths);
	return r;
}

/* The first entry of each path, in sorted order (the first one is imported): their count. */
static size_t first_of_each(struct import *im, struct entry **order)
{
	size_t n = 0;
	for (size_t i = 0; i < im->nr; i++)
		if (!n || strcmp(order[n - 1]->info.path, order[i]->info.path))
			order[n++] = order[i];
	return n;
}

/*
 * Which of the claimed paths are valid already, in one snapshot taken
 * after every claim: nobody can register one of them from then on.
 */
static int skip_valid(struct import *im, struct entry **order, size_t n, char *valid,
		      struct cix_err *err)
{
	int r = cix_store_read_begin(im->s, err);
	for (size_t i = 0; !r && i < n; i++)
		if ((r = cix_db_is_valid(im->s->db, order[i]->info.path, err)) >= 0)
			valid[i] = (char)r, r = 0;
	cix_store_read_end(im->s);
	return r;
}

/* Into place; an invalid leftover of a crash in the way goes first. */
static int move_one(struct import *im, struct entry *e, struct cix_err *err)
{
	struct cix_store *s = im->s;
	const char *base = e->info.path + strlen(s->store_dir) + 1;
	int r = cix_store_move_in(s, s->tmp_fd, e->tmp, base, err);
	if (r == -EEXIST && (r = cix_remove_tree_at(s->store_fd, base, err)) == 0)
		r = cix_store_move_in(s, s->tmp_fd, e->tmp, base, err);
	if (!r)
		e->moved = 1;
	return r;
}

/* Claim every path, in ascending order, and move in those not valid yet. */
static int claim_and_move(struct import *im, struct cix_path_claim *claim,
			  struct entry **order, struct cix_err *err)
{
	size_t n = first_of_each(im, order);
	char *valid = xcalloc(n + 1, 1);
	const char **paths = xcalloc(n + 1, sizeof(*paths));
	int r;
	for (size_t i = 0; i < n; i++)
		paths[i] = order[i]->info.path;
	r = cix_path_claim_all(im->s, claim, paths, n, err);
	free(paths);
	if (!r)
		r = skip_valid(im, order, n, valid, err);
	for (size_t i = 0; !r && i < n; i++)
		if (!valid[i])
			r = move_one(im, order[i], err);
	free(valid);
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
	int r;

	for (size_t i = 0; i < im->nr; i++)
		paths[i] = order[i]->info.path;
	r = cix_store_add_temp_roots(s, paths, im->nr, err);
	if (!r)
		r = cix_path_claim_begin(s, &claim, err);
	if (r < 0)
		goto out;
	r = claim_and_move(im, &claim, order, err);
	for (size_t i = 0; i < im->nr; i++)
		if (im->e[i].moved)
			moved[n++] = im->e[i].info.path;
	/* In place: derivations are checked, their inputs among them too. */
	if (!r) {
		struct cix_drv_admission *a = cix_store_admission_new(s, moved, n);
		for (size_t i = 0; !r && i < im->nr; i++)
			if (im->e[i].moved)
				r = cix_store_admit(a, &im->e[i].info, im->e[i].info.path, err);
		cix_store_admission_free(a);
	}
	for (size_t i = 0, k = 0; !r && i < im->nr; i++)
		if (im->e[i].moved)
			infos[k++] = im->e[i].info;
	if (!r && n)
		r = cix_store_register(s, infos, n, err);
	/* Still ours while the claim lasts: nobody else may have touched them. */
	for (size_t i = 0; r < 0 && i < n; i++)
		cix_remove_path(s, moved[i], NULL);
	cix_path_claim_end(s, &claim);
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
		if (e->tmp && !e->moved)
			cix_remove_tree_at(im->s->tmp_fd, e->tmp, NULL);
		free(e->tmp);
		cix_path_info_release(&e->info);
	}
	free(im->e);
}

int cix_local_import(struct cix_store *s, cix_source_fn src, void *src_opaque,
		     cix_path_fn imported, void *opaque, struct cix_err *err)
{
	static const struct cix_import_ops ops = { nar_target, path_done, discard,
						   CIX_RESTORE_CANONICAL | CIX_RESTORE_WRITEBACK, target_dir };
	struct import im = { .s = s, .pid = (long)getpid() };
	struct entry **order = NULL;
	int r = cix_store_need_tmp(s, err);
	if (!r)
		r = cix_import_parse(src, src_opaque, s->store_dir, &ops, &im, err);
	if (!r) {
		order = sorted_entries(&im);
		r = check_refs(&im, err);
	}
	if (!r)
		r = commit(&im, order, err);
	free(order);
	for (size_t i = 0; !r && imported && i < im.nr; i++)
		r = imported(im.e[i].info.path, opaque);
	release(&im);
	return r;
}
