/* nar-hash.c - hash a tree's NAR serialisation on two threads */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "nar.h"
#include "nar-writer.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

/*
 * The walk (calling thread) does the metadata work: directory listings,
 * opens, stats, symlinks, and the NAR framing, into large buffers; it also
 * reads small files into those buffers. A second thread hashes the buffers
 * in order and reads the contents of large files itself, into a buffer that
 * stays in its own cache, so that SHA-256 reads cache-hot data; most bytes
 * are in large files. Measured on /usr/lib (bench/nar-hash): reading large
 * files on the walking thread instead left the hasher reading data another
 * core had just written, about 8% slower overall.
 */

#define NBUF 4
#define BUFSIZE (1024 * 1024)
#define QLEN 64
#define HASHER_CHUNK (256 * 1024)
#define DIRECT_MIN (256 * 1024)

struct item {
	int buf;          /* index of a full buffer, or -1 for a file */
	int fd;           /* file to read, owned by the hasher */
	uint64_t len;     /* bytes in the buffer, or to read from fd */
	const char *name; /* for messages; points into names[] */
};

struct hash_pipe {
	struct nar_writer w;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	unsigned char *bufs[NBUF];
	size_t lens[NBUF];
	int free_bufs[NBUF], nfree, cur;
	struct item q[QLEN];
	char *names[QLEN];
	unsigned head, tail;  /* queued items: [tail, head) modulo QLEN */
	int done, failed;
	struct cix_err err;   /* the hasher's error, valid when failed */
	struct cix_hash_ctx ctx;
	uint64_t total;
	unsigned char *chunk;
};

/* Read exactly len bytes of fd into the digest; the file must end there. */
static int hash_file(struct hash_pipe *p, const struct item *it)
{
	uint64_t left = it->len;
	for (;;) {
		size_t want = left < HASHER_CHUNK ? (size_t)left + 1 : HASHER_CHUNK;
		ssize_t n = read(it->fd, p->chunk, want);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return cix_error_errno(&p->err, -errno, "cannot read '%s'", it->name);
		}
		if ((uint64_t)n > left)
			return cix_error(&p->err, -CIX_EMISMATCH,
					 "file '%s' grew while being archived", it->name);
		if (n == 0 && left)
			return cix_error(&p->err, -CIX_EMISMATCH,
					 "file '%s' shrank while being archived", it->name);
		cix_hash_update(&p->ctx, p->chunk, (size_t)n);
		left -= (uint64_t)n;
		if (n == 0 || (size_t)n < want) {
			if (left)
				return cix_error(&p->err, -CIX_EMISMATCH,
						 "file '%s' shrank while being archived", it->name);
			return 0;
		}
	}
}

static void *hasher(void *arg)
{
	struct hash_pipe *p = arg;
	pthread_mutex_lock(&p->lock);
	for (;;) {
		while (p->tail == p->head && !p->done)
			pthread_cond_wait(&p->cond, &p->lock);
		if (p->tail == p->head)
			break;
		struct item it = p->q[p->tail % QLEN];
		int failed = p->failed;
		pthread_mutex_unlock(&p->lock);

		int r = 0;
		if (it.buf >= 0) {
			if (!failed)
				cix_hash_update(&p->ctx, p->bufs[it.buf], (size_t)it.len);
		} else {
			if (!failed)
				r = hash_file(p, &it);
			close(it.fd);
		}
		if (!r)
			p->total += it.len;

		pthread_mutex_lock(&p->lock);
		if (r < 0)
			p->failed = 1;
		if (it.buf >= 0)
			p->free_bufs[p->nfree++] = it.buf;
		p->tail++;
		pthread_cond_broadcast(&p->cond);
	}
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

/* Called with the lock held: wait for a free slot, queue it. */
static struct item *enqueue(struct hash_pipe *p)
{
	while (p->head - p->tail == QLEN)
		pthread_cond_wait(&p->cond, &p->lock);
	return &p->q[p->head++ % QLEN];
}

/* Hand the current buffer to the hasher and take a free one. */
static int pipe_flush(struct nar_writer *w)
{
	struct hash_pipe *p = (struct hash_pipe *)w;
	int r = 0;
	pthread_mutex_lock(&p->lock);
	if (w->len) {
		struct item *it = enqueue(p);
		*it = (struct item){ .buf = p->cur, .fd = -1, .len = w->len };
		pthread_cond_broadcast(&p->cond);
		while (!p->nfree)
			pthread_cond_wait(&p->cond, &p->lock);
		p->cur = p->free_bufs[--p->nfree];
		w->buf = p->bufs[p->cur];
		w->len = 0;
	}
	if (p->failed)
		r = p->err.code;
	pthread_mutex_unlock(&p->lock);
	return r;
}

static int pipe_contents(struct nar_writer *w, int fd, uint64_t size, const char *name)
{
	struct hash_pipe *p = (struct hash_pipe *)w;
	int r = pipe_flush(w), dfd;
	if (r < 0)
		return r;
	/* The hasher needs its own descriptor: the walk closes fd. */
	dfd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	if (dfd < 0)
		return -errno;
	pthread_mutex_lock(&p->lock);
	struct item *it = enqueue(p);
	unsigned slot = (unsigned)(it - p->q);
	free(p->names[slot]);
	p->names[slot] = xstrdup(name);
	*it = (struct item){ .buf = -1, .fd = dfd, .len = size, .name = p->names[slot] };
	pthread_cond_broadcast(&p->cond);
	pthread_mutex_unlock(&p->lock);
	return 0;
}

/*
 * A small regular file (a text the daemon was sent, a .drv) is hashed on
 * the calling thread: starting the hasher and its buffers (4 MiB) costs
 * far more than the hashing.
 */
#define SMALL_FILE (64 * 1024)

struct small_hash {
	struct cix_hash_ctx ctx;
	uint64_t total;
};

static int small_sink(void *opaque, const void *data, size_t len)
{
	struct small_hash *h = opaque;
	cix_hash_update(&h->ctx, data, len);
	h->total += len;
	return 0;
}

static int hash_small(const char *path, enum cix_hash_algo algo, struct cix_hash *out,
		      uint64_t *size, struct cix_err *err)
{
	struct small_hash h = { .total = 0 };
	cix_hash_init(&h.ctx, algo);
	int r = cix_nar_dump(path, small_sink, &h, err);
	if (r < 0) {
		cix_hash_abort(&h.ctx);
		return r;
	}
	cix_hash_final(&h.ctx, out);
	if (size)
		*size = h.total;
	return 0;
}

int cix_nar_hash_path(const char *path, enum cix_hash_algo algo,
		      struct cix_hash *out, uint64_t *size, struct cix_err *err)
{
	struct hash_pipe p = { .cur = 0 };
	struct stat st;
	pthread_t th;
	int r;

	cix_err_clear(err);
	if (lstat(path, &st) == 0 && S_ISREG(st.st_mode) && st.st_size <= SMALL_FILE)
		return hash_small(path, algo, out, size, err);
	pthread_mutex_init(&p.lock, NULL);
	pthread_cond_init(&p.cond, NULL);
	for (int i = 0; i < NBUF; i++) {
		p.bufs[i] = xmalloc(BUFSIZE);
		if (i)
			p.free_bufs[p.nfree++] = i;
	}
	p.chunk = xmalloc(HASHER_CHUNK);
	cix_hash_init(&p.ctx, algo);
	p.w.buf = p.bufs[0];
	p.w.cap = BUFSIZE;
	p.w.flush = pipe_flush;
	p.w.contents = pipe_contents;
	p.w.contents_min = DIRECT_MIN;
	if (pthread_create(&th, NULL, hasher, &p))
		BUG("cannot create hashing thread");

	r = nar_writer_dump_at(&p.w, AT_FDCWD, path, err);

	pthread_mutex_lock(&p.lock);
	p.done = 1;
	pthread_cond_broadcast(&p.cond);
	pthread_mutex_unlock(&p.lock);
	pthread_join(th, NULL);

	if (!r && p.failed) {
		r = p.err.code;
		if (err)
			*err = p.err;
	}
	if (r < 0 && err && !err->msg[0])
		cix_error_errno(err, r, "cannot hash '%s'", path);
	if (r < 0)
		cix_hash_abort(&p.ctx);
	else {
		cix_hash_final(&p.ctx, out);
		if (size)
			*size = p.total;
	}
	for (int i = 0; i < NBUF; i++)
		free(p.bufs[i]);
	for (int i = 0; i < QLEN; i++)
		free(p.names[i]);
	free(p.chunk);
	pthread_cond_destroy(&p.cond);
	pthread_mutex_destroy(&p.lock);
	return r;
}
