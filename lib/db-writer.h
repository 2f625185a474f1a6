/* db-writer.h - the queue of a database's writers, in shared memory */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef CIX_DB_WRITER_H
#define CIX_DB_WRITER_H

#include <stddef.h>
#include <stdint.h>

/*
 * The processes that write one database (daemon workers, cix commands)
 * share a file beside it, mapped in memory: a robust, process-shared
 * mutex that writers queue on, and request slots for group commit. A
 * process puts its request (its registrations, serialised) in a slot of
 * its own, then takes the mutex; whoever holds the mutex commits every
 * request waiting, in one transaction. Under load, one commit then serves
 * many writers, where each used to wait for the others' commits in turn.
 *
 * A slot is its process's while it holds an open-file-description lock on
 * a byte of the file, so the kernel frees it when the process dies; a
 * writer that dies holding the mutex hands it on (EOWNERDEAD). The file
 * records the boot it was set up in, and is set up again after a reboot
 * (a mutex left held by a process of an earlier boot would never be freed).
 */
struct cix_writer;

/* Bytes a request may take in a slot; larger ones are committed directly. */
#define CIX_WRITER_DATA_MAX (15 * 1024)

/* NULL when path cannot be used (a read-only state directory). */
struct cix_writer *cix_writer_open(const char *path);
void cix_writer_close(struct cix_writer *w);

/* Both do nothing when w is NULL. */
void cix_writer_lock(struct cix_writer *w);
void cix_writer_unlock(struct cix_writer *w);

/*
 * Queue a request: 0, or -1 when it cannot be (no slot free, too large);
 * then the caller commits it itself, holding the mutex.
 */
int cix_writer_submit(struct cix_writer *w, const void *data, size_t len);

/*
 * For the holder of the mutex: the next waiting request after slot *cursor
 * (start with 0). Copies its bytes to buf (CIX_WRITER_DATA_MAX) and returns
 * its slot number, or -1 when there is none.
 */
int cix_writer_next(struct cix_writer *w, int *cursor, void *buf, size_t *len);

/* For the holder of the mutex, once committed: slot's outcome. */
void cix_writer_done(struct cix_writer *w, int slot, int code, const char *msg);

/*
 * A committer (the daemon's) serves the queue: it commits requests as they
 * come, while their owners sleep until theirs is done; its connection is
 * then the only one that writes, and its page cache stays warm. Without
 * one, or when it is gone, each writer commits what waits itself.
 *
 * cix_writer_serve: become the committer (-1: another one is). Each round,
 * cix_writer_submitted tells how many requests came so far; when none
 * waited, cix_writer_wait_submit sleeps until more came (or timeout_ms).
 */
int cix_writer_serve(struct cix_writer *w);
void cix_writer_unserve(struct cix_writer *w);
uint32_t cix_writer_submitted(struct cix_writer *w);
void cix_writer_wait_submit(struct cix_writer *w, uint32_t seen, int timeout_ms);

/* 1 while a committer serves the queue. */
int cix_writer_served(struct cix_writer *w);

/*
 * After cix_writer_submit, with a committer: wait up to timeout_ms for it
 * to commit the request; 1 when it did, 0 if not (or it is gone), and then
 * the caller commits it itself.
 */
int cix_writer_wait_done(struct cix_writer *w, int timeout_ms);

/*
 * The outcome of this process's queued request, once the mutex was taken:
 * its code (0 or negative), msg filled with its message.
 */
int cix_writer_result(struct cix_writer *w, char *msg, size_t size);

#endif
