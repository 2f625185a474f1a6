/* gc-int.h - internals shared by the garbage collector's files */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef CIX_GC_INT_H
#define CIX_GC_INT_H

#include "gc.h"

/*
 * The store path that p (a file name) is in, if any, becomes a root that
 * link makes. Anything outside the store is ignored.
 */
void cix_gc_roots_add(struct cix_store *s, const char *link, const char *p,
		      struct cix_gc_roots *roots);

/* Has the caller asked to stop (roots->cancelled)? */
int cix_gc_roots_cancelled(const struct cix_gc_roots *roots);

/*
 * The roots that the symlinks below STATE/gcroots make (lib/gc-scan.c);
 * -ECANCELED when roots->cancelled asked to stop.
 */
int cix_gc_scan_links(struct cix_store *s, struct cix_gc_roots *roots, struct cix_err *err);

/*
 * The runtime roots: the valid store paths that the processes of /proc
 * use (lib/gc-proc.c); -ECANCELED when roots->cancelled asked to stop.
 */
int cix_gc_runtime_roots(struct cix_store *s, struct cix_gc_roots *roots, struct cix_err *err);

#endif
