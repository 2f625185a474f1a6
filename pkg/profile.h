/* profile.h - profiles and their generations (their manifests: manifest.h) */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef CIX_PROFILE_H
#define CIX_PROFILE_H

#include <stddef.h>
#include <time.h>

#include "err.h"
#include "manifest.h"

/*
 * A profile is a symlink NAME (e.g. /var/cix/profiles/per-user/alice/
 * cix-profile) to NAME-N-link, itself a symlink to a store path: the
 * generation N, a union of symlinks to the packages' outputs plus a file
 * "manifest" saying what it holds. Switching generations is symlink() of a
 * temporary name then rename() over NAME: a crash at any moment leaves the
 * old generation or the new one. Transactions hold NAME.lock (flock).
 */

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

#endif
