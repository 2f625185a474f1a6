/* remove-queue.c - store paths' files removed on a thread of their own */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "remove-queue.h"
#include "nar-read.h"
#include "util.h"

#include <pthread.h>
#include <stdlib.h>

struct batch {
	const char **paths;
	unsigned char *done;
	size_t n, skip;
	struct batch *next;
};

struct cix_remove_queue {
	int dir_fd;
	int (*each)(const char *path, void *opaque);
	void *opaque;
	pthread_t th;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct batch *head, *tail;
	int closed, stopped;           /* under lock */
	/* the thread's own until it is joined */
	uint64_t bytes;
	size_t count;
	struct cix_err rm_err;
	int r;
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

static int stopped(struct cix_remove_queue *q)
{
	pthread_mutex_lock(&q->lock);
	int s = q->stopped;
	pthread_mutex_unlock(&q->lock);
	return s;
}

static void remove_batch(struct cix_remove_queue *q, const struct batch *b)
{
	for (size_t i = 0; i < b->n && !q->r; i++) {
		struct cix_err e = { 0 };
		if (!b->done[i] || stopped(q))
			continue;
		if (cix_remove_tree_counted(q->dir_fd, b->paths[i] + b->skip, &q->bytes, &e) < 0) {
			if (!q->rm_err.code)
				q->rm_err = e;
			continue;
		}
		q->count++;
		if (q->each) {
			int r = q->each(b->paths[i], q->opaque);
			if (r < 0)
				q->r = r;   /* nothing more is removed */
		}
	}
}

static void *run(void *arg)
{
	struct cix_remove_queue *q = arg;
	struct batch *b;
	while ((b = next_batch(q))) {
		remove_batch(q, b);
		batch_free(b);
	}
	return NULL;
}

struct cix_remove_queue *cix_remove_queue_start(int dir_fd,
						int (*each)(const char *path, void *opaque),
						void *opaque)
{
	struct cix_remove_queue *q = xcalloc(1, sizeof(*q));
	q->dir_fd = dir_fd;
	q->each = each;
	q->opaque = opaque;
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
			  size_t n, size_t skip)
{
	struct batch *b = xcalloc(1, sizeof(*b));
	*b = (struct batch){ paths, done, n, skip, NULL };
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

int cix_remove_queue_finish(struct cix_remove_queue *q, uint64_t *bytes, size_t *count,
			    struct cix_err *rm_err)
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
	*bytes += q->bytes;
	*count += q->count;
	if (q->rm_err.code && !rm_err->code)
		*rm_err = q->rm_err;
	int r = q->r;
	pthread_mutex_destroy(&q->lock);
	pthread_cond_destroy(&q->cond);
	free(q);
	return r;
}
