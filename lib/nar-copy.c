/* nar-copy.c - a file or tree copied through its NAR, hashed on the way */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "nar.h"
#include "chan.h"
#include "remove.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>

#define COPY_CHAN_SIZE (2 << 20)

struct dumper {
	int dirfd;
	const char *src;
	struct cix_chan *chan;
	int r;
	struct cix_err err;
};

static void *dump_thread(void *arg)
{
	struct dumper *d = arg;
	d->r = cix_nar_dump_at(d->dirfd, d->src, cix_chan_write, d->chan, &d->err);
	cix_chan_close_write(d->chan, d->r < 0 ? d->r : 0);
	return NULL;
}

int cix_nar_copy_at(int dirfd, const char *src, const char *target, int flags,
		    struct cix_hash *nar_hash, uint64_t *nar_size, struct cix_err *err)
{
	struct dumper d = { .dirfd = dirfd, .src = src };
	pthread_t th;
	int r;

	/* In memory, not through a socket: no system call, one copy fewer. */
	d.chan = cix_chan_new(COPY_CHAN_SIZE);
	if (pthread_create(&th, NULL, dump_thread, &d)) {
		cix_chan_free(d.chan);
		return cix_error(err, -EAGAIN, "cannot create thread");
	}
	r = cix_nar_restore_flags(cix_chan_read, d.chan, target, flags, nar_hash, nar_size, err);
	cix_chan_close_read(d.chan); /* a dump still writing gets EPIPE and stops */
	pthread_join(th, NULL);
	cix_chan_free(d.chan);
	/*
	 * The source's own error explains a truncated stream best; but a
	 * source stopped by EPIPE was stopped by the restore's own error.
	 */
	if (d.r < 0 && !(r < 0 && d.r == -EPIPE)) {
		if (err)
			*err = d.err;
		r = d.r;
		if (!err || !err->msg[0])
			cix_error_errno(err, r, "cannot read '%s'", src);
	}
	if (r < 0)
		cix_remove_tree_at(AT_FDCWD, target, NULL);
	return r;
}
