/* index.h - the package index as the commands use it (index.c) */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef CIX_CLI_INDEX_H
#define CIX_CLI_INDEX_H

#include "err.h"
#include "pkg-index.h"

/* The index of the search path, brought up to date (Guile evaluates changed modules). */
int index_load(struct cix_pkg_index *idx, int warn, struct cix_err *err);

/*
 * Tells Guile, once per command, where to find packages by name, when the
 * index is up to date; index_hint_done, once the lookups succeeded, brings
 * it up to date otherwise, for the next command.
 */
void index_hint_lookups(void);
void index_hint_done(void);

#endif
