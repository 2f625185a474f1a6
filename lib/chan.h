/* chan.h - a bounded byte pipe between two threads, in memory */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef CIX_CHAN_H
#define CIX_CHAN_H

#include <stddef.h>
#include <sys/types.h>

/*
 * One thread writes (cix_chan_write, a cix_sink_fn), another reads
 * (cix_chan_read, a cix_source_fn); at most cap bytes wait between them,
 * so a writer faster than its reader blocks. The writer ends the stream
 * with cix_chan_close_write(code): 0 is the end of the data, a negative
 * code is what the reader's next read returns once the buffered bytes are
 * read. A reader that stops early calls cix_chan_close_read: writes then
 * fail with -EPIPE (no signal). Both sides close before cix_chan_free.
 */
struct cix_chan;
struct cix_chan *cix_chan_new(size_t cap);
int cix_chan_write(void *chan, const void *data, size_t len);
ssize_t cix_chan_read(void *chan, void *buf, size_t len);
void cix_chan_close_write(struct cix_chan *c, int code);
void cix_chan_close_read(struct cix_chan *c);
void cix_chan_free(struct cix_chan *c);

#endif
