/* nar-hash.c - hash a tree's NAR serialisation on two threads */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "nar.h"
#include "nar-writer.h"
#include "hash-pipe.h"

#include <fcntl.h>
#include <sys/stat.h>

/*
 * The walk (calling thread) does everything but the digest: directory
 * listings, opens, stats, symlinks, the NAR framing, and reads every
 * file's contents straight into the hash pipe's buffers (large reads, no
 * other copy). The pipe's thread only runs SHA-256 over full 4 MiB
 * buffers, which keeps it at the speed of SHA-256 over memory (see
 * hash-pipe.c for the measurements).
 */

struct pipe_writer {
	struct nar_writer w;
	struct cix_hash_pipe pipe;
};

static int pipe_flush(struct nar_writer *w)
{
	struct cix_hash_pipe *p = &((struct pipe_writer *)w)->pipe;
	p->len = w->len;
	cix_hash_pipe_flush(p);
	w->buf = p->buf;
	w->len = 0;
	return 0;
}

/*
 * A small regular file (a text the daemon was sent, a .drv) is hashed on
 * the calling thread: starting a thread costs more than the hashing.
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
	struct pipe_writer pw = { .w = { .flush = pipe_flush } };
	struct stat st;
	int r;

	cix_err_clear(err);
	if (lstat(path, &st) == 0 && S_ISREG(st.st_mode) && st.st_size <= SMALL_FILE)
		return hash_small(path, algo, out, size, err);
	cix_hash_pipe_init(&pw.pipe, algo);
	cix_hash_pipe_start(&pw.pipe);
	pw.w.buf = pw.pipe.buf;
	pw.w.cap = pw.pipe.cap;

	r = nar_writer_dump_at(&pw.w, AT_FDCWD, path, err);

	if (r < 0) {
		cix_hash_pipe_abort(&pw.pipe);
		if (err && !err->msg[0])
			cix_error_errno(err, r, "cannot hash '%s'", path);
		return r;
	}
	cix_hash_pipe_final(&pw.pipe, out, size);
	return 0;
}
