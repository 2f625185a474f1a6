/* hash-pipe.c - a digest computed on a thread of its own */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "hash-pipe.h"
#include "util.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>

/*
 * Why whole buffers of 4 MiB, filled by the producer: measured on /usr/lib's
 * large files (2 cores), the hashing thread spent 1.79 GB/s of its CPU time
 * on buffers of 1 to 4 MiB that the other core had filled, as fast as
 * SHA-256 over a buffer in its own cache, whereas reading the files itself
 * (the copy out of the page cache on the hashing core) brought it down to
 * 1.43 GB/s. A mapping of the files (mmap + MADV_POPULATE_READ) was no
 * faster, and a file truncated under it would raise SIGBUS.
 */

/* Streams shorter than this are hashed on the calling thread. */
#define SYNC_MAX (256 * 1024)

enum { RUNNING, FINISHING, ABORTING };

void cix_hash_pipe_init(struct cix_hash_pipe *p, enum cix_hash_algo algo)
{
	memset(p, 0, sizeof(*p));
	cix_hash_init(&p->ctx, algo);
}

static void *hasher(void *arg)
{
	struct cix_hash_pipe *p = arg;
	pthread_mutex_lock(&p->lock);
	for (;;) {
		while (p->tail == p->head && p->done == RUNNING)
			pthread_cond_wait(&p->work, &p->lock);
		if (p->tail == p->head)
			break;
		int i = p->queue[p->tail % HASH_PIPE_NBUF], skip = p->done == ABORTING;
		pthread_mutex_unlock(&p->lock);
		if (!skip)
			cix_hash_update(&p->ctx, p->bufs[i], p->lens[i]);
		pthread_mutex_lock(&p->lock);
		p->tail++;
		p->free_bufs[p->nfree++] = i;
		pthread_cond_signal(&p->room);
	}
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

void cix_hash_pipe_start(struct cix_hash_pipe *p)
{
	sigset_t all, old;
	if (p->buf)
		return;
	p->bufs[0] = xmalloc(HASH_PIPE_BUF);
	p->nalloc = 1;
	p->cur = 0;
	p->buf = p->bufs[0];
	p->cap = HASH_PIPE_BUF;
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->work, NULL);
	pthread_cond_init(&p->room, NULL);
	/* The hasher takes no signal: they stay for the threads that expect them. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	p->threaded = !pthread_create(&p->thread, NULL, hasher, p);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}

/* Called with the lock held: a buffer to fill next. */
static int take_free(struct cix_hash_pipe *p)
{
	if (!p->nfree && p->nalloc < HASH_PIPE_NBUF) {
		p->bufs[p->nalloc] = xmalloc(HASH_PIPE_BUF);
		return p->nalloc++;
	}
	while (!p->nfree)
		pthread_cond_wait(&p->room, &p->lock);
	return p->free_bufs[--p->nfree];
}

void cix_hash_pipe_flush(struct cix_hash_pipe *p)
{
	if (!p->len)
		return;
	p->total += p->len;
	if (!p->threaded) {
		cix_hash_update(&p->ctx, p->buf, p->len);
		p->len = 0;
		return;
	}
	pthread_mutex_lock(&p->lock);
	p->lens[p->cur] = p->len;
	p->queue[p->head++ % HASH_PIPE_NBUF] = p->cur;
	pthread_cond_signal(&p->work);
	p->cur = take_free(p);
	pthread_mutex_unlock(&p->lock);
	p->buf = p->bufs[p->cur];
	p->len = 0;
}

void cix_hash_pipe_write(struct cix_hash_pipe *p, const void *data, size_t len)
{
	const unsigned char *s = data;
	if (!p->buf && p->total + len <= SYNC_MAX) {
		cix_hash_update(&p->ctx, data, len);
		p->total += len;
		return;
	}
	cix_hash_pipe_start(p);
	while (len) {
		if (p->len == p->cap)
			cix_hash_pipe_flush(p);
		size_t k = p->cap - p->len < len ? p->cap - p->len : len;
		memcpy(p->buf + p->len, s, k);
		p->len += k;
		s += k;
		len -= k;
	}
}

unsigned char *cix_hash_pipe_room(struct cix_hash_pipe *p, size_t *room)
{
	cix_hash_pipe_start(p);
	if (p->len == p->cap)
		cix_hash_pipe_flush(p);
	*room = p->cap - p->len;
	return p->buf + p->len;
}

void cix_hash_pipe_commit(struct cix_hash_pipe *p, size_t n)
{
	p->len += n;
}

static void stop(struct cix_hash_pipe *p, int how)
{
	if (!p->buf)
		return;
	if (p->threaded) {
		pthread_mutex_lock(&p->lock);
		p->done = how;
		pthread_cond_signal(&p->work);
		pthread_mutex_unlock(&p->lock);
		pthread_join(p->thread, NULL);
		p->threaded = 0;
	}
	for (int i = 0; i < p->nalloc; i++)
		free(p->bufs[i]);
	pthread_cond_destroy(&p->room);
	pthread_cond_destroy(&p->work);
	pthread_mutex_destroy(&p->lock);
	p->buf = NULL;
	p->len = p->cap = 0;
}

void cix_hash_pipe_final(struct cix_hash_pipe *p, struct cix_hash *out, uint64_t *size)
{
	if (p->buf)
		cix_hash_pipe_flush(p);
	stop(p, FINISHING);
	if (size)
		*size = p->total;
	if (out)
		cix_hash_final(&p->ctx, out);
	else
		cix_hash_abort(&p->ctx);
}

void cix_hash_pipe_abort(struct cix_hash_pipe *p)
{
	stop(p, ABORTING);
	cix_hash_abort(&p->ctx);
}
