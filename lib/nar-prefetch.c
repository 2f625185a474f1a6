/* nar-prefetch.c - NARs of store paths read ahead on a thread of their own */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "nar-prefetch.h"
#include "nar.h"
#include "strbuf.h"

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

/*
 * Each name is in one state; the thread takes the free ones in order, the
 * caller takes any: a free one it reads itself (the thread then passes it
 * by), one being read it waits for. So once the caller writes, both cores
 * read, and neither waits for the other's order.
 */
enum state { FREE, READING, READY, NOT_READ, TAKEN };

struct cix_nar_prefetch {
	int dir_fd;
	const char *const *names;
	size_t n, budget, used, next;
	struct strbuf *nars;
	unsigned char *state;
	size_t want;                  /* READING, the caller waits for it (SIZE_MAX: none) */
	int stop;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	pthread_t thread;
	int started;
};

struct capped {
	struct strbuf *sb;
	size_t room;
};

/* A sink into memory that refuses to go over the budget. */
static int capped_sink(void *opaque, const void *data, size_t len)
{
	struct capped *c = opaque;
	if (len > c->room - c->sb->len)
		return -E2BIG;
	strbuf_add(c->sb, data, len);
	return 0;
}

/* The next free name, marked READING (SIZE_MAX: none, or stopped). Locked. */
static size_t next_free(struct cix_nar_prefetch *p)
{
	while (!p->stop && p->next < p->n && p->state[p->next] != FREE)
		p->next++;
	if (p->stop || p->next >= p->n)
		return SIZE_MAX;
	p->state[p->next] = READING;
	return p->next++;
}

static void *prefetch(void *arg)
{
	struct cix_nar_prefetch *p = arg;
	size_t i;
	pthread_mutex_lock(&p->lock);
	while ((i = next_free(p)) != SIZE_MAX) {
		struct capped c = { &p->nars[i], p->budget - p->used };
		pthread_mutex_unlock(&p->lock);
		struct cix_err err = { 0 };
		int ok = cix_nar_dump_at(p->dir_fd, p->names[i], capped_sink, &c, &err) == 0;
		pthread_mutex_lock(&p->lock);
		p->state[i] = ok ? READY : NOT_READ;
		p->used += ok ? p->nars[i].len : 0;
		if (!ok) {
			strbuf_release(&p->nars[i]);
			p->stop = 1;   /* over the budget, or an error the caller will meet */
		}
		if (p->want == i)
			pthread_cond_broadcast(&p->cond);
	}
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

struct cix_nar_prefetch *cix_nar_prefetch_start(int dir_fd, const char *const *names, size_t n,
						size_t budget)
{
	struct cix_nar_prefetch *p = xcalloc(1, sizeof(*p));
	p->dir_fd = dir_fd;
	p->names = names;
	p->n = n;
	p->budget = budget;
	p->want = SIZE_MAX;
	p->nars = xcalloc(n + 1, sizeof(*p->nars));
	for (size_t i = 0; i < n; i++)
		strbuf_init(&p->nars[i], 0);
	p->state = xcalloc(n + 1, 1);
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->cond, NULL);
	p->started = pthread_create(&p->thread, NULL, prefetch, p) == 0;
	return p;
}

int cix_nar_prefetch_take(struct cix_nar_prefetch *p, size_t i, char **buf, size_t *len)
{
	int got = 0;
	if (!p || i >= p->n)
		return 0;
	pthread_mutex_lock(&p->lock);
	p->want = i;
	while (p->state[i] == READING)
		pthread_cond_wait(&p->cond, &p->lock);
	p->want = SIZE_MAX;
	if (p->state[i] == READY) {
		*len = p->nars[i].len;
		*buf = strbuf_detach(&p->nars[i], NULL);
		got = 1;
	}
	p->state[i] = TAKEN;   /* (a free one: the thread passes it by) */
	pthread_mutex_unlock(&p->lock);
	return got;
}

void cix_nar_prefetch_wait(struct cix_nar_prefetch *p)
{
	if (p->started)
		pthread_join(p->thread, NULL);
	p->started = 0;
}

void cix_nar_prefetch_stop(struct cix_nar_prefetch *p)
{
	if (!p)
		return;
	pthread_mutex_lock(&p->lock);
	p->stop = 1;
	pthread_mutex_unlock(&p->lock);
	cix_nar_prefetch_wait(p);
	for (size_t i = 0; i < p->n; i++)
		strbuf_release(&p->nars[i]);
	pthread_mutex_destroy(&p->lock);
	pthread_cond_destroy(&p->cond);
	free(p->nars);
	free(p->state);
	free(p);
}
