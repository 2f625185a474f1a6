/* profile-build.h - running builtin:profile for lib/build.c */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef CIX_PROFILE_BUILD_H
#define CIX_PROFILE_BUILD_H

#include "db.h"
#include "drv.h"
#include "err.h"

/*
 * Run the builder "builtin:profile" of DRV (the derivation DRV_PATH) as
 * cix itself, without sandbox: its output "out" is made as
 * ROOT/STORE_DIR/BASE, where the sandbox would have left it, by
 * cix_builtin_profile() from the environment's "paths" (required) and
 * "manifest" (empty when absent). Every path listed must be one of the
 * input closure INPUTS: nothing else of the host is read.
 */
int cix_build_run_profile(const struct cix_drv *drv, const char *drv_path,
			  const char *store_dir, const char *root,
			  const struct cix_db_graph *inputs, struct cix_err *err);

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
