/* remove-queue.h - store paths' files removed on a thread of their own */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef CIX_REMOVE_QUEUE_H
#define CIX_REMOVE_QUEUE_H

#include "err.h"

#include <stddef.h>
#include <stdint.h>

/*
 * The collector invalidates paths in batches, one transaction each, then
 * removes their files: the files of one batch can go while the next
 * batch's rows are deleted, the kernel's work on one core and SQLite's on
 * the other. A batch is queued only once its rows are committed, so files
 * still go only after their rows, as before.
 */
struct cix_remove_queue;

/*
 * Removals of names in dir_fd; each (may be NULL) is called with each path
 * removed, on the queue's thread: a negative code stops the removals.
 * NULL if no thread can be started (then remove in place).
 */
struct cix_remove_queue *cix_remove_queue_start(int dir_fd,
						int (*each)(const char *path, void *opaque),
						void *opaque);
/*
 * Remove paths[i] + skip for each i < n with done[i]: the queue takes
 * paths (the array, not the strings, which must outlive the queue) and
 * done, and frees them.
 */
void cix_remove_queue_add(struct cix_remove_queue *q, const char **paths, unsigned char *done,
			  size_t n, size_t skip);
/* Remove nothing more (what is left is garbage for the next collection). */
void cix_remove_queue_stop(struct cix_remove_queue *q);
/*
 * Wait for the queue to be done and free it: bytes freed and paths
 * removed are added to *bytes and *count; the first tree that could not
 * be removed is in *rm_err (if it had none); returns each's negative
 * code, or 0.
 */
int cix_remove_queue_finish(struct cix_remove_queue *q, uint64_t *bytes, size_t *count,
			    struct cix_err *rm_err);

#endif
