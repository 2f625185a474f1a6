/* pkg-index.h - the package index: what `cix package -A/-s` answer from */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef CIX_PKG_INDEX_H
#define CIX_PKG_INDEX_H

#include <stddef.h>
#include <stdint.h>

#include "err.h"
#include "strbuf.h"

/*
 * Evaluating every package module takes Guile's start-up and the loading of
 * each module; the index keeps, per module file of the search path
 * (DIR/gnu/packages/NAME.scm, the first DIR that has NAME winning, as in
 * Guile), the file's identity (device, inode, size, mtime to the
 * nanosecond) and the packages it exported when it was last evaluated.
 * A query stats the module files, has only the changed or new ones
 * evaluated again (by the caller, through Guile), and answers from the rest.
 *
 * The file is text, one record a line, fields separated by tabs, with
 * backslash, tab and newline escaped as \\, \t and \n:
 *
 *   cix-package-index 1 VERSION
 *   path SEARCH-PATH
 *   module REL DIR DEV INO SIZE MTIME-SEC MTIME-NSEC ERROR
 *   package NAME VERSION OUTPUTS FILE LINE COLUMN HOME-PAGE LICENSE SYNOPSIS DESCRIPTION
 *
 * each package line belonging to the module line before it. It is a cache:
 * one that does not parse is ignored (and rewritten), never trusted.
 */

struct cix_pkg_entry {
	char *name, *version;
	char *outputs;             /* comma-separated: "out,doc" */
	char *file;                /* relative to its search directory */
	unsigned long line, column;
	char *home_page, *license, *synopsis, *description;
};

struct cix_pkg_module {
	char *rel;                 /* gnu/packages/base.scm */
	char *dir;                 /* the search directory it is in */
	uint64_t dev, ino, size;
	int64_t mtime_sec;
	long mtime_nsec;
	char *error;               /* why it could not be evaluated, or NULL */
	struct cix_pkg_entry *pkgs;
	size_t nr_pkgs, alloc_pkgs;
	int stale;                 /* to be evaluated (set by cix_pkg_index_reuse) */
};

struct cix_pkg_index {
	char *search_path;
	struct cix_pkg_module *mods;
	size_t nr_mods, alloc_mods;
};

#define CIX_PKG_INDEX_MAX_LINE (1 << 20)
#define CIX_PKG_INDEX_MAX_MODULES 100000
#define CIX_PKG_INDEX_MAX_PACKAGES 1000000

void cix_pkg_index_release(struct cix_pkg_index *idx);

/* Parse an index (hostile-safe); on error idx is left empty. */
int cix_pkg_index_parse(const char *buf, size_t len, struct cix_pkg_index *idx,
			struct cix_err *err);
/* Read FILE; -ENOENT when there is none. */
int cix_pkg_index_load(const char *file, struct cix_pkg_index *idx, struct cix_err *err);
void cix_pkg_index_format(const struct cix_pkg_index *idx, struct strbuf *out);
/* Write FILE atomically (a temporary file renamed over it), making its directory. */
int cix_pkg_index_save(const char *file, const struct cix_pkg_index *idx, struct cix_err *err);

/*
 * The module files of the colon-separated search path as they are now,
 * with no packages, in the order of their names.
 */
int cix_pkg_index_scan(const char *search_path, struct cix_pkg_index *now, struct cix_err *err);
/*
 * Take into now the packages of every module unchanged since old was made
 * (old is emptied of them); mark the others, and those that could not be
 * evaluated, stale. Returns how many are stale.
 */
size_t cix_pkg_index_reuse(struct cix_pkg_index *now, struct cix_pkg_index *old);

/* Add a package to a module (the strings are copied; NULL is ""). */
struct cix_pkg_entry *cix_pkg_module_add(struct cix_pkg_module *m);
void cix_pkg_entry_release(struct cix_pkg_entry *e);

/*
 * Every package once (the same name, version and place exported by two
 * modules count once), sorted by name, the newest version first. The
 * array is malloc'd; its pointers point into idx.
 */
size_t cix_pkg_index_list(const struct cix_pkg_index *idx, const struct cix_pkg_entry ***out);

/* Compare versions part by dot-separated part, numbers numerically. */
int cix_version_cmp(const char *a, const char *b);

/* Where the index of a search path is kept: $XDG_CACHE_HOME/cix/packages/HASH
 * (~/.cache when unset), or NULL when there is no such directory. */
char *cix_pkg_index_file(const char *search_path);

#endif
