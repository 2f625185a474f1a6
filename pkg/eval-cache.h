/* eval-cache.h - what package specifications evaluated to, kept between commands */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef CIX_EVAL_CACHE_H
#define CIX_EVAL_CACHE_H

#include <stddef.h>
#include <stdint.h>

#include "err.h"
#include "strbuf.h"
#include "strvec.h"

/*
 * `cix package -i NAME` spends most of its time starting Guile and loading
 * modules to find that NAME is the derivation it was the last time. The
 * evaluation cache keeps, per specification, what lowering it gave: the
 * .drv, the outputs, and the manifest entry made of it. It is valid while
 * nothing it came from has changed:
 *
 *  - the stamp: every file below the directories of the search path and
 *    of the compiled path (name, device, inode, size, mtime and ctime to
 *    the nanosecond), the cix executable, the store directory, the
 *    system, $CIX_DATA_DIR and cix's version, hashed; a cache of another
 *    stamp is empty;
 *  - per entry, the local files (local-file) read by the command that
 *    made it, each by the same identity.
 *
 * The user of a hit still checks that the .drv is valid in the store.
 * Scheme code that reads other files, or the environment, while its module
 * loads is not seen: such a package is evaluated again only when its
 * module changes (Guix's own packages do neither).
 *
 * The file is text, fields tab-separated and escaped as in the package
 * index (\\, \t, \n):
 *
 *   cix-eval-cache 1 STAMP
 *   spec SPEC DRV PROPAGATES OUTPATH...
 *   file PATH DEV INO SIZE MTIME-SEC MTIME-NSEC CTIME-SEC CTIME-NSEC
 *   manifest TEXT            (a manifest of one entry, pkg/manifest.h)
 *
 * file and manifest lines belonging to the spec line before them. It is a
 * cache: one that does not parse is ignored, never trusted.
 */

#define CIX_EVAL_CACHE_MAX_ENTRIES 100000
#define CIX_EVAL_CACHE_MAX_FILES 10000      /* per entry */
#define CIX_EVAL_CACHE_MAX_LINE (1 << 20)

struct cix_file_id {
	char *path;
	uint64_t dev, ino, size;
	int64_t mtime_sec, ctime_sec;
	long mtime_nsec, ctime_nsec;
};

struct cix_eval_entry {
	char *spec;
	char *drv_path;
	struct strvec out_paths;       /* every output of the package */
	int propagates;                /* propagated inputs: always given to the builder */
	char *manifest;                /* one entry (pkg/manifest.h's format) */
	struct cix_file_id *files;
	size_t nr_files;
};

struct cix_eval_cache {
	char stamp[65];
	struct cix_eval_entry *v;
	size_t nr, alloc;
	size_t nr_sorted;              /* v[0..nr_sorted) in the order of their specs */
};

void cix_eval_cache_release(struct cix_eval_cache *c);

/*
 * The stamp of the search path and compiled path (colon-separated lists of
 * directories), with the store directory and system.
 */
int cix_eval_stamp(const char *search_path, const char *compiled_path, const char *store_dir,
		   const char *system, char stamp[65], struct cix_err *err);

/* The cache file of those (in $XDG_CACHE_HOME/cix/eval/), or NULL: none kept. */
char *cix_eval_cache_file(const char *search_path, const char *store_dir);

int cix_eval_cache_parse(const char *buf, size_t len, struct cix_eval_cache *c,
			 struct cix_err *err);
void cix_eval_cache_format(const struct cix_eval_cache *c, struct strbuf *out);
/* The cache in FILE when it has this stamp, else an empty one (with it). */
void cix_eval_cache_load(const char *file, const char *stamp, struct cix_eval_cache *c);
int cix_eval_cache_save(const char *file, const struct cix_eval_cache *c, struct cix_err *err);

/* The entry of spec whose files are unchanged, or NULL. */
const struct cix_eval_entry *cix_eval_cache_find(const struct cix_eval_cache *c,
						 const char *spec);
/* A fresh entry for spec (replacing the one there was); fill it in. */
struct cix_eval_entry *cix_eval_cache_put(struct cix_eval_cache *c, const char *spec);

/*
 * The identity of a regular file (following symlinks): 1, 0 when it is
 * something else (a directory: not tracked), -errno when it cannot be
 * looked at.
 */
int cix_file_id_get(const char *path, struct cix_file_id *id);
void cix_file_id_release(struct cix_file_id *id);

#endif
