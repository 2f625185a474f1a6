/* store-int.h - internals shared by the local store's files */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef CIX_STORE_INT_H
#define CIX_STORE_INT_H

#include "store.h"

/* Temporaries, STORE/.cix-tmp/tmp-PID-N (cix_store_tmp_name). */
#define TMP_DIR ".cix-tmp"

/*
 * Under the path's lock, unless it became valid meanwhile: drop an invalid
 * leftover of an earlier crash, rename the canonical tree TMP_DIR/tmp to
 * info->path, register info. The caller removes tmp if it is still there.
 * Returns 1 when info was registered here, 0 when the path was valid.
 */
int cix_store_install(struct cix_store *s, const char *tmp, struct cix_path_info *info,
		      struct cix_err *err);

/*
 * 0 when the store has its temporaries' directory, else (a read-only
 * store, opened for queries) an error naming the reason: what writes
 * calls it first.
 */
int cix_store_need_tmp(struct cix_store *s, struct cix_err *err);

#endif
