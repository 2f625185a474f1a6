/* buildenv.h - running builtin:buildenv (Nix's nix-env profiles) for lib/build.c */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef CIX_BUILDENV_H
#define CIX_BUILDENV_H

#include "db.h"
#include "drv.h"
#include "err.h"

/*
 * Run the builder "builtin:buildenv" of DRV (the derivation DRV_PATH) as
 * cix itself, without sandbox, as builtin:profile is: its output "out" is
 * made as ROOT/STORE_DIR/BASE, the union of the packages of its
 * "derivations" attribute with Nix 2.8's priorities and collisions, and
 * OUT/manifest.nix a link to its "manifest". Every package, and every
 * package they propagate, must be one of the input closure INPUTS.
 */
int cix_build_run_buildenv(const struct cix_drv *drv, const char *drv_path,
			   const char *store_dir, const char *root,
			   const struct cix_db_graph *inputs, struct cix_err *err);

#endif
