/* index.c - the package index as the commands use it: kept up to date, and as hints for Guile */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "cix.h"
#include "index.h"
#include "scheme.h"
#include "strbuf.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * The index of the current search path as saved, with the module files as
 * they are now: those changed or added since marked stale. *file is where
 * it is kept (NULL: nowhere); *changed says whether it must be saved again.
 */
static int index_read(struct cix_pkg_index *idx, char **file, int *changed, struct cix_err *err)
{
	struct strbuf path = STRBUF_INIT;
	struct cix_pkg_index old;
	struct cix_err ignored = { 0 };
	int r;

	cix_scheme_search_path(&path);
	*file = cix_pkg_index_file(path.buf);
	if (!*file || cix_pkg_index_load(*file, &old, &ignored) < 0)
		memset(&old, 0, sizeof(old));
	if ((r = cix_pkg_index_scan(path.buf, idx, err)) == 0) {
		size_t stale = cix_pkg_index_reuse(idx, &old);
		*changed = stale || !old.search_path || old.nr_mods != idx->nr_mods;
	}
	cix_err_clear(&ignored);
	cix_pkg_index_release(&old);
	strbuf_release(&path);
	return r;
}

/* The stale modules evaluated (by Guile), and the index saved when it changed. */
static int index_update(struct cix_pkg_index *idx, const char *file, int changed, int warn,
			struct cix_err *err)
{
	struct cix_err ignored = { 0 };
	for (size_t i = 0; i < idx->nr_mods; i++)
		if (idx->mods[i].stale) {
			int r = cix_scheme_index_module(&idx->mods[i], err);
			if (r < 0)
				return r;
		}
	if (changed && file && cix_pkg_index_save(file, idx, &ignored) < 0 && warn)
		fprintf(stderr, "%s: warning: %s\n", cix_progname, ignored.msg);
	cix_err_clear(&ignored);
	return 0;
}

int index_load(struct cix_pkg_index *idx, int warn, struct cix_err *err)
{
	char *file = NULL;
	int changed = 0, r;

	if ((r = index_read(idx, &file, &changed, err)) == 0 &&
	    (r = index_update(idx, file, changed, warn, err)) == 0)
		for (size_t i = 0; i < idx->nr_mods && warn; i++)
			if (idx->mods[i].error)
				fprintf(stderr, "%s: warning: %s/%s: %s\n", cix_progname,
					idx->mods[i].dir, idx->mods[i].rel, idx->mods[i].error);
	free(file);
	return r;
}

/*
 * Hints are given only from an index that is up to date as it is, without
 * evaluating anything: a module that changed is loaded by the lookups
 * themselves (all of them, as without an index), and that is where its
 * errors are reported. The index is brought up to date after them
 * (index_hint_done), from the modules they loaded.
 */
static int hints_state;        /* 0: not looked at; 1: hints given; 2: index to update */

void index_hint_lookups(void)
{
	struct cix_pkg_index idx;
	struct cix_err err = { 0 };
	char *file = NULL;
	int changed = 0, usable;

	if (hints_state)
		return;
	memset(&idx, 0, sizeof(idx));
	usable = index_read(&idx, &file, &changed, &err) == 0;
	for (size_t i = 0; usable && i < idx.nr_mods; i++)
		if (idx.mods[i].stale || idx.mods[i].error)
			usable = 0;
	if (usable && !changed)
		cix_scheme_hint_modules(&idx);
	hints_state = usable && !changed ? 1 : 2;
	cix_err_clear(&err);
	cix_pkg_index_release(&idx);
	free(file);
}

void index_hint_done(void)
{
	struct cix_pkg_index idx;
	struct cix_err err = { 0 };

	if (hints_state != 2)
		return;
	hints_state = 1;
	memset(&idx, 0, sizeof(idx));
	index_load(&idx, 0, &err);
	cix_err_clear(&err);
	cix_pkg_index_release(&idx);
}
