/* archive-ops.h - cix archive --export and --import: signed export streams */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef CIX_ARCHIVE_OPS_H
#define CIX_ARCHIVE_OPS_H

#include "compress.h"

/*
 * Write PATHS[0..n) (with recursive, their closure), dependencies first,
 * as an export stream to standard output, each entry signed with the
 * secret key in key_file over the path's Nix fingerprint. Returns an exit
 * status; nothing is written when the key or a path is wrong.
 */
int archive_export(const char *key_file, int recursive, char **paths, int n);

/*
 * Write PATHS[0..n) (with recursive, their closure) into the directory dir
 * as a static binary cache (narinfos signed with the key of key_file, NARs
 * compressed with comp at level), what cix publish --cache makes: any HTTP
 * server of files can then serve it. Prints the paths; returns an exit
 * status.
 */
int archive_to_cache(const char *key_file, const char *dir, enum cix_comp comp, int level,
		     int recursive, char **paths, int n);

/*
 * Import the export stream on standard input into the store, all or
 * nothing, if every entry carries a valid signature by a key of the ACL
 * file acl_file over the fingerprint of what was received. Prints the
 * imported paths; returns an exit status.
 */
int archive_import(const char *acl_file);

#endif
