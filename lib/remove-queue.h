/* remove-queue.h - store paths' files removed, in place or on a thread of their own */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef CIX_REMOVE_QUEUE_H
#define CIX_REMOVE_QUEUE_H

#include "err.h"

#include <stddef.h>
#include <stdint.h>

/*
 * A removal of listed store paths' files: the trees named by each path
 * past its first skip bytes, in dir_fd. stop (may be NULL) is asked before
 * each path; each (may be NULL) is told of each path removed, and its
 * negative code stops the removal. A tree that cannot be removed (changed
 * under us) is left for the next collection, the first such failure kept
 * in rm_err, and the others still go. bytes and count add up what went.
 */
struct cix_removal {
	int dir_fd;
	size_t skip;
	int (*stop)(void *stop_opaque);
	void *stop_opaque;
	int (*each)(const char *path, void *opaque);
	void *opaque;
	uint64_t bytes;
	size_t count;
	struct cix_err rm_err;
};

/* paths[i] for each i < n with done[i], in order, here; each's negative code, or 0. */
int cix_remove_listed(struct cix_removal *rm, const char *const *paths,
		      const unsigned char *done, size_t n);

/*
 * The collector invalidates paths in batches, one transaction each, then
 * removes their files: the files of one batch can go while the next
 * batch's rows are deleted, the kernel's work on one core and SQLite's on
 * the other. A batch is queued only once its rows are committed, so files
 * still go only after their rows.
 */
struct cix_remove_queue;

/*
 * A queue removing as how says (its stop is the queue's own), each called
 * on the queue's thread. NULL if no thread can be started (then remove in
 * place).
 */
struct cix_remove_queue *cix_remove_queue_start(const struct cix_removal *how);
/*
 * Remove as cix_remove_listed would: the queue takes paths (the array,
 * not the strings, which must outlive the queue) and done, and frees them.
 */
void cix_remove_queue_add(struct cix_remove_queue *q, const char **paths, unsigned char *done,
			  size_t n);
/* Remove nothing more (what is left is garbage for the next collection). */
void cix_remove_queue_stop(struct cix_remove_queue *q);
/*
 * Wait for the queue to be done and free it: its bytes and count are
 * added to into's, its first failure kept if into has none; returns
 * each's negative code, or 0.
 */
int cix_remove_queue_finish(struct cix_remove_queue *q, struct cix_removal *into);

#endif
