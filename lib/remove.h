/* remove.h - deleting a tree without following symlinks, at any depth */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef CIX_REMOVE_H
#define CIX_REMOVE_H

#include "err.h"
#include <stdint.h>

/*
 * Delete name (relative to dirfd, AT_FDCWD allowed) and, if it is a
 * directory, everything below it, never following a symlink: each level is
 * opened with O_NOFOLLOW|O_DIRECTORY and emptied with unlinkat on single
 * names. A missing name is not an error.
 */
int cix_remove_tree_at(int dirfd, const char *name, struct cix_err *err);

/*
 * The same, adding to *freed (if not NULL) the bytes the
 * filesystem gets back: the blocks of directories and of files that had
 * no other hard link. The tree may be deeper than PATH_MAX: one directory
 * is open at a time, and going back up, its parent is checked to be the
 * directory it came from (a tree moved meanwhile stops the deletion).
 */
int cix_remove_tree_counted(int dirfd, const char *name, uint64_t *freed,
			    struct cix_err *err);

#endif
