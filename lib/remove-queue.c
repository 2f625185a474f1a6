/* remove-queue.c - store paths' files removed, in place or on a thread of their own */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "remove-queue.h"
#include "remove.h"
#include "util.h"

#include <pthread.h>
#include <stdlib.h>

int cix_remove_listed(struct cix_removal *rm, const char *const *paths,
		      const unsigned char *done, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		/* Stopped half-way: the invalid rest is garbage for the next run. */
		if (!done[i] || (rm->stop && rm->stop(rm->stop_opaque)))
			continue;
		struct cix_err e = { 0 };
		if (cix_remove_tree_counted(rm->dir_fd, paths[i] + rm->skip, &rm->bytes, &e) < 0) {
			if (!rm->rm_err.code)
				rm->rm_err = e;
			continue;
		}
		rm->count++;
		int r;
		if (rm->each && (r = rm->each(paths[i], rm->opaque)) < 0)
			return r;
	}
	return 0;
}

struct batch {
	const char **paths;
	unsigned char *done;
	size_t n;
	struct batch *next;
};

struct cix_remove_queue {
	struct cix_removal rm;         /* the thread's own until it is joined */
	int r;                         /* each's error: nothing more is removed */
	pthread_t th;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct batch *head, *tail;
	int closed, stopped;           /* under lock */
};

static void batch_free(struct batch *b)
{
	free(b->paths);
	free(b->done);
	free(b);
}

/* The next batch, or NULL once closed (or stopped) and empty. */
static struct batch *next_batch(struct cix_remove_queue *q)
{
	struct batch *b;
	pthread_mutex_lock(&q->lock);
	while (!q->head && !q->closed && !q->stopped)
		pthread_cond_wait(&q->cond, &q->lock);
	b = q->stopped ? NULL : q->head;
	if (b && !(q->head = b->next))
		q->tail = NULL;
	pthread_mutex_unlock(&q->lock);
	return b;
}

static int stopped(void *opaque)
{
	struct cix_remove_queue *q = opaque;
	pthread_mutex_lock(&q->lock);
	int s = q->stopped;
	pthread_mutex_unlock(&q->lock);
	return s;
}

static void *run(void *arg)
{
	struct cix_remove_queue *q = arg;
	struct batch *b;
	while ((b = next_batch(q))) {
		if (!q->r)
			q->r = cix_remove_listed(&q->rm, (const char *const *)b->paths, b->done, b->n);
		batch_free(b);
	}
	return NULL;
}

struct cix_remove_queue *cix_remove_queue_start(const struct cix_removal *how)
{
	struct cix_remove_queue *q = xcalloc(1, sizeof(*q));
	q->rm = *how;
	q->rm.stop = stopped;
	q->rm.stop_opaque = q;
	q->rm.bytes = 0;
	q->rm.count = 0;
	q->rm.rm_err = (struct cix_err){ 0 };
	pthread_mutex_init(&q->lock, NULL);
	pthread_cond_init(&q->cond, NULL);
	if (pthread_create(&q->th, NULL, run, q)) {
		pthread_mutex_destroy(&q->lock);
		pthread_cond_destroy(&q->cond);
		free(q);
		return NULL;
	}
	return q;
}

void cix_remove_queue_add(struct cix_remove_queue *q, const char **paths, unsigned char *done,
			  size_t n)
{
	struct batch *b = xcalloc(1, sizeof(*b));
	*b = (struct batch){ paths, done, n, NULL };
	pthread_mutex_lock(&q->lock);
	if (q->tail)
		q->tail->next = b;
	else
		q->head = b;
	q->tail = b;
	pthread_cond_signal(&q->cond);
	pthread_mutex_unlock(&q->lock);
}

void cix_remove_queue_stop(struct cix_remove_queue *q)
{
	pthread_mutex_lock(&q->lock);
	q->stopped = 1;
	pthread_cond_signal(&q->cond);
	pthread_mutex_unlock(&q->lock);
}

int cix_remove_queue_finish(struct cix_remove_queue *q, struct cix_removal *into)
{
	struct batch *b;
	pthread_mutex_lock(&q->lock);
	q->closed = 1;
	pthread_cond_signal(&q->cond);
	pthread_mutex_unlock(&q->lock);
	pthread_join(q->th, NULL);
	while ((b = q->head)) {   /* left by a stop */
		q->head = b->next;
		batch_free(b);
	}
	into->bytes += q->rm.bytes;
	into->count += q->rm.count;
	if (q->rm.rm_err.code && !into->rm_err.code)
		into->rm_err = q->rm.rm_err;
	int r = q->r;
	pthread_mutex_destroy(&q->lock);
	pthread_cond_destroy(&q->cond);
	free(q);
	return r;
}
