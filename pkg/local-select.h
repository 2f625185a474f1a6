/* local-select.h - a local file's selection (#:select?) copied into a tree of its own */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef CIX_LOCAL_SELECT_H
#define CIX_LOCAL_SELECT_H

#include "strvec.h"

struct cix_err;

/*
 * The files sel (names relative to the directory top, plain components
 * only) copied, as regular files (executable or not) and symlinks, into
 * TMP/name, TMP a new temporary directory: *tree_out is TMP/name, to add
 * to the store; *tmp_out is TMP, for the caller to remove. Nothing is
 * followed; on error nothing is left.
 */
int cix_local_selection_tree(const char *top, const struct strvec *sel, const char *name,
			     char **tmp_out, char **tree_out, struct cix_err *err);

#endif
