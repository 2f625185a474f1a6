/* nar-hash.c - hash a tree's NAR serialisation on two threads */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "nar.h"
#include "nar-writer.h"
#include "hash-pipe.h"

#include <fcntl.h>
#include <stdlib.h>

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
	unsigned char *first; /* the buffer before the pipe starts */
};

/*
 * A NAR starts in a small buffer, hashed on the calling thread: most
 * store paths are small, and need no thread and no large buffer. Once it
 * passes the pipe's threshold, what is in the small buffer is copied to
 * the pipe and the walk writes into the pipe's buffers from then on.
 */
#define FIRST_BUF (64 * 1024)

static int pipe_flush(struct nar_writer *w)
{
	struct pipe_writer *pw = (struct pipe_writer *)w;
	struct cix_hash_pipe *p = &pw->pipe;
	if (!p->buf) {
		cix_hash_pipe_write(p, w->buf, w->len);
		w->len = 0;
		if (!p->buf)
			return 0;
		w->buf = p->buf;
		w->len = p->len;
		w->cap = p->cap;
		return 0;
	}
	p->len = w->len;
	cix_hash_pipe_flush(p);
	w->buf = p->buf;
	w->len = 0;
	return 0;
}

int cix_nar_hash_path(const char *path, enum cix_hash_algo algo,
		      struct cix_hash *out, uint64_t *size, struct cix_err *err)
{
	struct pipe_writer pw = { .w = { .flush = pipe_flush, .cap = FIRST_BUF } };
	int r;

	cix_err_clear(err);
	cix_hash_pipe_init(&pw.pipe, algo);
	pw.first = pw.w.buf = xmalloc(FIRST_BUF);
	r = nar_writer_dump_at(&pw.w, AT_FDCWD, path, err);
	free(pw.first);
	if (r < 0) {
		cix_hash_pipe_abort(&pw.pipe);
		if (err && !err->msg[0])
			cix_error_errno(err, r, "cannot hash '%s'", path);
		return r;
	}
	cix_hash_pipe_final(&pw.pipe, out, size);
	return 0;
}
