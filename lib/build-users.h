/* build-users.h - the pool of build users, and the directories builds run in */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef CIX_BUILD_USERS_H
#define CIX_BUILD_USERS_H

#include <sys/types.h>

#include "err.h"
#include "store.h"

/*
 * Build users: the members of the group $CIX_BUILD_USERS_GROUP (default
 * "cixbld"), as Nix's nixbld. A build takes one that no other build holds
 * (an flock on /run/cix/userpool/UID, so that every cix process of the
 * machine agrees, whatever its store)
 * and runs as it, its uid and the group's gid mapped to the sandbox's
 * uid 1000 and gid 100. Without such a group (or when not root) builds
 * run in a user namespace mapped to the caller.
 */
struct cix_build_user {
	uid_t uid;      /* (uid_t)-1: none */
	gid_t gid;
	int lock_fd;
};

#define CIX_BUILD_USER_INIT { (uid_t)-1, (gid_t)-1, -1 }

/* The name of the build users' group ("" when turned off). */
const char *cix_build_users_group(void);

/*
 * The uids of group's members, in the group's order, and its gid; none
 * without such a group. A member that is root (or the caller), or that
 * does not exist, is an error. The answer is kept while /etc/group and
 * /etc/passwd stay as they are, a second at most. *uids is malloc'd.
 */
int cix_build_users_members(const char *group, uid_t **uids, size_t *nr, gid_t *gid,
			    struct cix_err *err);

/*
 * Take a free build user. Returns 0 with u->uid set, or with u->uid
 * (uid_t)-1 when there are no build users to take (not root, no such
 * group, no members); waits while all of them are busy. A member that is
 * root or unknown is an error: a build never runs as anyone privileged.
 * Any process left running as the user is killed first.
 */
int cix_build_user_acquire(struct cix_store *s, struct cix_build_user *u,
			   struct cix_err *err);
void cix_build_user_release(struct cix_build_user *u);

/*
 * A fresh build directory, STATE/builds/build-XXXXXX, 0700, below
 * STATE/builds (0700, the caller's: nobody else can reach a build's
 * files, doc/security.md items 6, 12 and 26, which it refuses to use when
 * anyone else could write it). With a build user, the directory is given
 * to it (by its descriptor, never by path: item 6). *out is malloc'd.
 */
int cix_build_dir_create(struct cix_store *s, const struct cix_build_user *u, char **out,
			 struct cix_err *err);

/*
 * Remove the build directories of cix processes that died (kill -9), and
 * the kept ones (below) that are too old or too many.
 */
void cix_build_dirs_clean(struct cix_store *s);

/*
 * A failed build's directory, kept (-K): renamed STATE/builds/kept-XXXXXX.
 * Kept directories are removed CIX_KEPT_BUILDS_MAX_AGE seconds after they
 * were kept ($CIX_KEPT_BUILDS_MAX_AGE when set), and the oldest beyond the
 * CIX_KEPT_BUILDS_MAX newest ($CIX_KEPT_BUILDS_MAX): when a build starts
 * and when one is kept. *kept is malloc'd.
 */
#define CIX_KEPT_BUILDS_MAX_AGE (7L * 86400)
#define CIX_KEPT_BUILDS_MAX 20
int cix_build_dir_keep(const char *dir, char **kept, struct cix_err *err);

/*
 * Hand a kept (-K) build directory to the caller: every file, directory
 * and symlink in it that the build user owns, and that no other
 * directory shares (a hard link), becomes the caller's; nothing is
 * followed and nothing else changes (doc/security.md items 4 and 18).
 */
int cix_build_dir_hand_over(const char *dir, const struct cix_build_user *u,
			    struct cix_err *err);

#endif
