/* chan.c - a bounded byte pipe between two threads, in memory */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "chan.h"
#include "util.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/*
 * Each side sleeps until the other has moved a good part of the buffer
 * (a quarter of it, at most 64 KiB): no wake-up for every small piece.
 */
#define BATCH_MAX (64 * 1024)

struct cix_chan {
	pthread_mutex_t lock;
	pthread_cond_t readable, writable;
	unsigned char *buf;
	size_t cap, head, len; /* the bytes waiting: len of them from head, wrapping */
	size_t batch;
	int wclosed, wcode, rclosed;
	int rwaiting, wwaiting;
};

struct cix_chan *cix_chan_new(size_t cap)
{
	struct cix_chan *c = xcalloc(1, sizeof(*c));
	c->cap = cap ? cap : 1;
	c->buf = xmalloc(c->cap);
	c->batch = c->cap / 4 < BATCH_MAX ? c->cap / 4 : BATCH_MAX;
	if (!c->batch)
		c->batch = 1;
	pthread_mutex_init(&c->lock, NULL);
	pthread_cond_init(&c->readable, NULL);
	pthread_cond_init(&c->writable, NULL);
	return c;
}

int cix_chan_write(void *chan, const void *data, size_t len)
{
	struct cix_chan *c = chan;
	const unsigned char *p = data;

	pthread_mutex_lock(&c->lock);
	while (len) {
		while (c->len == c->cap && !c->rclosed) {
			c->wwaiting = 1;
			pthread_cond_wait(&c->writable, &c->lock);
		}
		c->wwaiting = 0;
		if (c->rclosed || c->wclosed) {
			pthread_mutex_unlock(&c->lock);
			return -EPIPE;
		}
		size_t tail = (c->head + c->len) % c->cap;
		size_t n = c->cap - c->len;
		if (n > c->cap - tail)
			n = c->cap - tail;
		if (n > len)
			n = len;
		memcpy(c->buf + tail, p, n);
		c->len += n;
		if (c->rwaiting && c->len >= c->batch) {
			c->rwaiting = 0;
			pthread_cond_signal(&c->readable);
		}
		p += n;
		len -= n;
	}
	pthread_mutex_unlock(&c->lock);
	return 0;
}

ssize_t cix_chan_read(void *chan, void *buf, size_t len)
{
	struct cix_chan *c = chan;
	size_t got = 0;
	ssize_t r;

	pthread_mutex_lock(&c->lock);
	/* Until a batch is there (or the end): no wake-up for every piece. */
	while (c->len < c->batch && !c->wclosed && !c->rclosed) {
		c->rwaiting = 1;
		pthread_cond_wait(&c->readable, &c->lock);
	}
	c->rwaiting = 0;
	if (c->rclosed) {
		r = -EPIPE;
	} else if (!c->len) {
		r = c->wcode;
	} else {
		while (got < len && c->len) {
			size_t n = c->cap - c->head;
			if (n > c->len)
				n = c->len;
			if (n > len - got)
				n = len - got;
			memcpy((unsigned char *)buf + got, c->buf + c->head, n);
			c->head = (c->head + n) % c->cap;
			c->len -= n;
			got += n;
		}
		r = (ssize_t)got;
		if (c->wwaiting && c->cap - c->len >= c->batch) {
			c->wwaiting = 0;
			pthread_cond_signal(&c->writable);
		}
	}
	pthread_mutex_unlock(&c->lock);
	return r;
}

void cix_chan_close_write(struct cix_chan *c, int code)
{
	pthread_mutex_lock(&c->lock);
	c->wclosed = 1;
	c->wcode = code > 0 ? 0 : code;
	pthread_cond_broadcast(&c->readable);
	pthread_mutex_unlock(&c->lock);
}

void cix_chan_close_read(struct cix_chan *c)
{
	pthread_mutex_lock(&c->lock);
	c->rclosed = 1;
	pthread_cond_broadcast(&c->writable);
	pthread_mutex_unlock(&c->lock);
}

void cix_chan_free(struct cix_chan *c)
{
	if (!c)
		return;
	pthread_cond_destroy(&c->readable);
	pthread_cond_destroy(&c->writable);
	pthread_mutex_destroy(&c->lock);
	free(c->buf);
	free(c);
}
