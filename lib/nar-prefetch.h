/* nar-prefetch.h - NARs of store paths read ahead on a thread of their own */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef CIX_NAR_PREFETCH_H
#define CIX_NAR_PREFETCH_H

#include <stddef.h>

/*
 * An export writes NARs in an order it knows only after its queries; the
 * files can be read meanwhile. The prefetcher dumps the NARs of names[i]
 * (in the directory dir_fd), in order, each into memory, on a second
 * thread, while their total stays within budget bytes: it stops at the
 * first that would go over, or that fails (the caller reads those itself,
 * and meets the error itself). names and dir_fd must outlive it.
 */
struct cix_nar_prefetch;

struct cix_nar_prefetch *cix_nar_prefetch_start(int dir_fd, const char *const *names, size_t n,
						size_t budget);
/*
 * names[i]'s NAR, if read ahead: 1, *buf (the caller's to free) and *len;
 * or 0 (read it yourself: the thread will not). Waits only while the
 * thread is reading it. Each i is taken once.
 */
int cix_nar_prefetch_take(struct cix_nar_prefetch *p, size_t i, char **buf, size_t *len);
/* Until the thread has tried every name (or stopped): the tests' certainty. */
void cix_nar_prefetch_wait(struct cix_nar_prefetch *p);
/* Stop the thread and free what was not taken (p may be NULL). */
void cix_nar_prefetch_stop(struct cix_nar_prefetch *p);

#endif
