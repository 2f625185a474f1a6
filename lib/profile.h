/* profile.h - profiles: their manifests and their generations */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef CIX_PROFILE_H
#define CIX_PROFILE_H

#include <stddef.h>
#include <time.h>

#include "err.h"
#include "search-path.h"
#include "strbuf.h"
#include "strvec.h"

/*
 * A profile is a symlink NAME (e.g. /var/cix/profiles/per-user/alice/
 * cix-profile) to NAME-N-link, itself a symlink to a store path: the
 * generation N, a union of symlinks to the packages' outputs plus a file
 * "manifest" saying what it holds. Switching generations is symlink() of a
 * temporary name then rename() over NAME: a crash at any moment leaves the
 * old generation or the new one. Transactions hold NAME.lock (flock).
 */

/*
 * ---- the manifest (PROFILE/manifest), a versioned text file ----
 *
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

/* ---- generations ---- */

struct cix_generation {
	long number;
	char *target;              /* the store path NAME-N-link points to */
	time_t time;               /* when the link was made (its lstat mtime) */
};

void cix_generations_release(struct cix_generation *v, size_t n);
/* The generations of PROFILE, by number; none when it has none. */
int cix_profile_generations(const char *profile, struct cix_generation **v, size_t *n,
			    struct cix_err *err);
/* The number of the current generation; -1 when the profile does not exist. */
int cix_profile_current(const char *profile, long *number, struct cix_err *err);

/* Take PROFILE.lock (waiting for it); *fd to give to cix_profile_unlock. */
int cix_profile_lock(const char *profile, int *fd, struct cix_err *err);
void cix_profile_unlock(int fd);

/*
 * Make STORE_PATH the next generation (the highest number + 1, or 1) and
 * switch to it; *number receives its number. PROFILE's directory must
 * exist.
 */
int cix_profile_add_generation(const char *profile, const char *store_path, long *number,
			       struct cix_err *err);
/* Switch to an existing generation. */
int cix_profile_switch(const char *profile, long number, struct cix_err *err);
/*
 * Switch to the previous existing generation; from the lowest one, to
 * generation 0, made to point to EMPTY (an empty profile's store path).
 */
int cix_profile_roll_back(const char *profile, const char *empty, long *number,
			  struct cix_err *err);
/* Delete these generations (their links); the current one is refused. */
int cix_profile_delete_generations(const char *profile, const long *numbers, size_t n,
				   struct cix_err *err);

/* ---- building a generation: builtin:profile ---- */

/*
 * The builder "builtin:profile", run by cix itself: OUT becomes a union of
 * symlinks to the store paths listed (one a line) in the derivation's
 * environment variable "paths", in their order, and OUT/manifest the
 * variable "manifest" verbatim. A directory present in one path only is a
 * symlink to it; in several, a directory of OUT where the union goes on;
 * the same file name in two paths (not links to one file) is a conflict:
 * an error naming both.
 */
int cix_builtin_profile(const char *paths, const char *manifest, const char *out,
			struct cix_err *err);

#endif
