/* nar-hash.c - hash a tree's NAR serialisation, reading and hashing in parallel */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "nar.h"
#include "nar-writer.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>

/*
 * The walk (this thread) reads files straight into large buffers; a second
 * thread hashes full buffers. With the page cache warm, read() is a memcpy
 * several times faster than SHA-256, so hashing runs nearly all the time
 * and the total approaches the digest's own speed.
 */

#define NBUF 4
#define BUFSIZE (1024 * 1024)

struct hash_pipe {
	struct nar_writer w;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	unsigned char *bufs[NBUF];
	size_t lens[NBUF];
	unsigned head, tail;      /* full buffers: [tail, head) modulo NBUF */
	int done;
	struct cix_hash_ctx ctx;
	uint64_t total;
};

static void *hasher(void *arg)
{
	struct hash_pipe *p = arg;
	pthread_mutex_lock(&p->lock);
	for (;;) {
		while (p->tail == p->head && !p->done)
			pthread_cond_wait(&p->cond, &p->lock);
		if (p->tail == p->head)
			break;
		unsigned i = p->tail % NBUF;
		pthread_mutex_unlock(&p->lock);
		cix_hash_update(&p->ctx, p->bufs[i], p->lens[i]);
		p->total += p->lens[i];
		pthread_mutex_lock(&p->lock);
		p->tail++;
		pthread_cond_broadcast(&p->cond);
	}
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

/* Hand the current buffer to the hasher and take the next free one. */
static int pipe_flush(struct nar_writer *w)
{
	struct hash_pipe *p = (struct hash_pipe *)w;
	if (!w->len)
		return 0;
	pthread_mutex_lock(&p->lock);
	p->lens[p->head % NBUF] = w->len;
	p->head++;
	pthread_cond_broadcast(&p->cond);
	while (p->head - p->tail == NBUF)
		pthread_cond_wait(&p->cond, &p->lock);
	w->buf = p->bufs[p->head % NBUF];
	w->len = 0;
	pthread_mutex_unlock(&p->lock);
	return 0;
}

int cix_nar_hash_path(const char *path, enum cix_hash_algo algo,
		      struct cix_hash *out, uint64_t *size, struct cix_err *err)
{
	struct hash_pipe p = { .head = 0 };
	pthread_t th;
	int r;

	cix_err_clear(err);
	pthread_mutex_init(&p.lock, NULL);
	pthread_cond_init(&p.cond, NULL);
	for (int i = 0; i < NBUF; i++)
		p.bufs[i] = xmalloc(BUFSIZE);
	cix_hash_init(&p.ctx, algo);
	p.w.buf = p.bufs[0];
	p.w.cap = BUFSIZE;
	p.w.flush = pipe_flush;
	if (pthread_create(&th, NULL, hasher, &p))
		BUG("cannot create hashing thread");

	r = nar_writer_dump_at(&p.w, AT_FDCWD, path, err);

	pthread_mutex_lock(&p.lock);
	p.done = 1;
	pthread_cond_broadcast(&p.cond);
	pthread_mutex_unlock(&p.lock);
	pthread_join(th, NULL);

	if (r < 0)
		cix_hash_abort(&p.ctx);
	else {
		cix_hash_final(&p.ctx, out);
		if (size)
			*size = p.total;
	}
	for (int i = 0; i < NBUF; i++)
		free(p.bufs[i]);
	pthread_cond_destroy(&p.cond);
	pthread_mutex_destroy(&p.lock);
	return r;
}
