/* hash-pipe.h - internal: a digest computed on a thread of its own */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef CIX_HASH_PIPE_H
#define CIX_HASH_PIPE_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include "hash.h"

/*
 * One SHA-256 stream runs at about the speed of one core, so a NAR hash is
 * fastest when the core that computes it does nothing else. A hash pipe
 * hands large buffers to a hashing thread: the producer (the calling
 * thread) fills buf[len..cap) directly or through cix_hash_pipe_write, and
 * cix_hash_pipe_flush queues buf[0..len) and swaps in a free buffer.
 * Memory is bounded: at most HASH_PIPE_NBUF buffers of HASH_PIPE_BUF
 * bytes, allocated only when needed.
 *
 * Short streams are hashed on the calling thread until they pass a few
 * hundred KiB, so that hashing a small NAR starts no thread. The hasher
 * cannot fail, so errors are all the producer's; if no thread can be
 * created, the buffers are hashed on the calling thread.
 *
 * Not thread safe: one producer per pipe.
 */
#define HASH_PIPE_NBUF 4
#define HASH_PIPE_BUF (4u << 20)

struct cix_hash_pipe {
	unsigned char *buf;  /* NULL until cix_hash_pipe_start */
	size_t len, cap;
	uint64_t total;      /* bytes hashed or queued, buf[0..len) excluded */

	/* The rest is private. */
	struct cix_hash_ctx ctx;
	pthread_t thread;
	int threaded, done;
	pthread_mutex_t lock;
	pthread_cond_t work, room;
	unsigned char *bufs[HASH_PIPE_NBUF];
	size_t lens[HASH_PIPE_NBUF];
	int nalloc, cur;
	int free_bufs[HASH_PIPE_NBUF], nfree;
	int queue[HASH_PIPE_NBUF];
	unsigned head, tail;  /* queued buffers: [tail, head) mod NBUF */
};

void cix_hash_pipe_init(struct cix_hash_pipe *p, enum cix_hash_algo algo);

/* Make buf available (start the thread) now, whatever the stream's size. */
void cix_hash_pipe_start(struct cix_hash_pipe *p);

/* Queue buf[0..len) for hashing; buf is then an empty buffer. */
void cix_hash_pipe_flush(struct cix_hash_pipe *p);

/*
 * Room to fill in place (at least 1 byte, *room of them) after starting the
 * pipe or flushing it if needed; cix_hash_pipe_commit(p, n) then adds the n
 * bytes written there. They stay readable until the next call on p.
 */
unsigned char *cix_hash_pipe_room(struct cix_hash_pipe *p, size_t *room);
void cix_hash_pipe_commit(struct cix_hash_pipe *p, size_t n);

/* Add len bytes of data (copied, or hashed at once while the stream is short). */
void cix_hash_pipe_write(struct cix_hash_pipe *p, const void *data, size_t len);

/*
 * Hash what is left, stop the thread and release everything; out (may be
 * NULL: the digest is dropped) receives the digest, size (may be NULL) the
 * number of bytes hashed. The thread is always joined.
 */
void cix_hash_pipe_final(struct cix_hash_pipe *p, struct cix_hash *out, uint64_t *size);

/* Same, without a result (error paths). */
void cix_hash_pipe_abort(struct cix_hash_pipe *p);

#endif
