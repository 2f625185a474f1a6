/* manifest.h - what a profile holds: its manifest, a versioned text file */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef CIX_MANIFEST_H
#define CIX_MANIFEST_H

#include <stddef.h>

#include "err.h"
#include "search-path.h"
#include "strbuf.h"
#include "strvec.h"

/*
 * A profile's manifest (PROFILE/manifest) is a versioned text file:
 * "cix-manifest 2", then a line per entry: NAME VERSION OUTPUT PATH DEPS,
 * tab-separated, DEPS the paths separated by single spaces; each field
 * escaped (\\, \t, \n). After an entry, a line per search path it declares:
 * an empty field, "search-path", VARIABLE, SEPARATOR (empty: none),
 * FILE-TYPE, FILE-PATTERN (empty: none), then its FILEs. Version 1 (no
 * search paths) is read too; the version written is 2.
 */

struct cix_manifest_entry {
	char *name, *version, *output;
	char *path;                /* the output's store path */
	struct strvec deps;        /* store paths installed along (propagated inputs) */
	/* The search paths of the package and of those it propagates. */
	struct cix_search_path *search_paths;
	size_t nr_search_paths, alloc_search_paths;
};

#define CIX_MANIFEST_MAX_SEARCH_PATHS 1024

struct cix_manifest {
	struct cix_manifest_entry *v;
	size_t nr, alloc;
};

void cix_manifest_release(struct cix_manifest *m);
/* Append an entry (the strings are copied). */
struct cix_manifest_entry *cix_manifest_add(struct cix_manifest *m, const char *name,
					    const char *version, const char *output,
					    const char *path);
/* Append a copy of the entry from (of another manifest). */
struct cix_manifest_entry *cix_manifest_add_copy(struct cix_manifest *m,
						 const struct cix_manifest_entry *from);
/* Append a copy of sp to e's search paths. */
void cix_manifest_entry_add_search_path(struct cix_manifest_entry *e,
					const struct cix_search_path *sp);
/* Remove the entries of NAME (and OUTPUT, when not NULL); how many went. */
size_t cix_manifest_remove(struct cix_manifest *m, const char *name, const char *output);
/* Entries sorted by name, then output. */
void cix_manifest_sort(struct cix_manifest *m);
void cix_manifest_format(const struct cix_manifest *m, struct strbuf *out);
/* Hostile-safe, versions 1 and 2; on error m is empty. */
int cix_manifest_parse(const char *buf, size_t len, struct cix_manifest *m, struct cix_err *err);
/* PROFILE/manifest; a profile that does not exist has an empty manifest. */
int cix_manifest_read(const char *profile, struct cix_manifest *m, struct cix_err *err);

#endif
