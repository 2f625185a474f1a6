/* gc.h - garbage collector roots, and what they keep alive */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef CIX_GC_H
#define CIX_GC_H

#include "store.h"
#include "strvec.h"

/*
 * The roots: the store paths that the symlinks below STATE/gcroots point
 * to (through at most a few more symlinks, and into directories they
 * point to, such as a profiles directory), and the temporary roots of
 * live processes, STATE/temproots/PID (NUL-separated paths). Nothing is
 * written, and nothing outside the store counts. Sorted, unique.
 */
int cix_gc_roots(struct cix_store *s, struct strvec *roots, struct cix_err *err);

/*
 * The valid paths that no root keeps alive (dead = 1) or that some root
 * does (dead = 0), sorted, into out.
 */
int cix_gc_paths(struct cix_store *s, int dead, struct strvec *out, struct cix_err *err);

#endif
