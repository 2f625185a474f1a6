/* chan.c - unit tests: the bounded byte pipe between two threads */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "chan.h"
#include "tap.h"
#include "util.h"

#include <errno.h>
#include <pthread.h>
#include <stdint.h>

static unsigned char byte_at(size_t i)
{
	return (unsigned char)((i * 2654435761u) >> 13);
}

struct writer {
	struct cix_chan *c;
	size_t total, piece;
	int code;     /* given to close_write */
	int r;        /* the first failed write */
	size_t wrote;
};

static void *write_all(void *arg)
{
	struct writer *w = arg;
	unsigned char buf[70000];
	size_t step = 1;
	while (w->wrote < w->total) {
		size_t n = w->piece ? w->piece : step;
		if (n > sizeof(buf))
			n = sizeof(buf);
		if (n > w->total - w->wrote)
			n = w->total - w->wrote;
		for (size_t i = 0; i < n; i++)
			buf[i] = byte_at(w->wrote + i);
		if ((w->r = cix_chan_write(w->c, buf, n)) < 0)
			break;
		w->wrote += n;
		step = step * 7 % 65521 + 1;
	}
	cix_chan_close_write(w->c, w->r < 0 ? w->r : w->code);
	return NULL;
}

/* Read all of it in pieces of piece bytes (0: varying); 1 if it is right. */
static int read_all(struct cix_chan *c, size_t total, size_t piece, ssize_t *last)
{
	unsigned char buf[100000];
	size_t got = 0, step = 3;
	int right = 1;
	for (;;) {
		size_t n = piece ? piece : step;
		ssize_t r = cix_chan_read(c, buf, n > sizeof(buf) ? sizeof(buf) : n);
		if (r <= 0) {
			*last = r;
			break;
		}
		for (ssize_t i = 0; i < r; i++)
			right &= buf[i] == byte_at(got + (size_t)i);
		got += (size_t)r;
		step = step * 13 % 99991 + 1;
	}
	return right && got == total;
}

static void one(size_t cap, size_t total, size_t wpiece, size_t rpiece, int code)
{
	struct writer w = { .c = cix_chan_new(cap), .total = total, .piece = wpiece, .code = code };
	pthread_t th;
	ssize_t last = 1;
	pthread_create(&th, NULL, write_all, &w);
	int right = read_all(w.c, total, rpiece, &last);
	cix_chan_close_read(w.c);
	pthread_join(th, NULL);
	ok(right && w.r == 0, "cap %zu, %zu bytes, writes of %zu, reads of %zu: all in order",
	   cap, total, wpiece, rpiece);
	is_int(last, code, "  then %s", code ? "the writer's error" : "the end");
	cix_chan_free(w.c);
}

int main(void)
{
	one(1, 5000, 0, 0, 0);
	one(7, 100000, 0, 0, 0);
	one(1000, 300000, 1, 0, 0);
	one(65536, 3000000, 0, 1, 0);
	one(1 << 20, 20000000, 0, 0, 0);
	one(1 << 20, 20000000, 65536, 65536, 0);
	one(4096, 123457, 0, 0, -EIO);
	one(4096, 0, 0, 0, -ENOENT);

	/* A reader that stops: the writer's next write fails, without a signal. */
	struct writer w = { .c = cix_chan_new(4096), .total = 1 << 20 };
	pthread_t th;
	unsigned char b[100];
	pthread_create(&th, NULL, write_all, &w);
	ok(cix_chan_read(w.c, b, sizeof(b)) == (ssize_t)sizeof(b), "a reader reads a little");
	cix_chan_close_read(w.c);
	pthread_join(th, NULL);
	is_int(w.r, -EPIPE, "then stops: the writer gets EPIPE");
	ok(w.wrote < w.total, "  and has not written everything (%zu bytes)", w.wrote);
	is_int(cix_chan_read(w.c, b, sizeof(b)), -EPIPE, "reading after close_read: EPIPE");
	cix_chan_free(w.c);
	return done_testing();
}
