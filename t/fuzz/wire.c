/* wire.c - libFuzzer target: the worker protocol's wire reads on hostile input */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "nar.h"
#include "strbuf.h"
#include "strvec.h"
#include "util.h"
#include "wire.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/*
 * Input: byte 0 is the length P (at most 32) of a program, the next P
 * bytes; the rest is the stream the peer sends. It is read through a
 * memfd (a regular file: poll always says readable, read says 0 at its
 * end, so nothing blocks). Each program byte picks a read (low 3 bits)
 * and a parameter (the rest), as the daemon's operations chain them.
 *
 * Invariants: nothing reads past the stream (bytes_in never exceeds it);
 * what a read returns is what the stream holds at that offset; a string
 * longer than its max is refused (-CIX_ELIMIT) before anything is
 * allocated for it; lists and framed data respect their bounds; every
 * error has a one-line message.
 */

static const size_t maxes[4] = { 0, 8, 100, CIX_WIRE_MAX_PATH };

static const uint8_t *stream;
static size_t stream_len;

static void check_err(int r, const struct cix_err *err)
{
	if (r >= 0)
		return;
	if (!err->msg[0] || strchr(err->msg, '\n'))
		abort();
}

/* The u64 at the stream's offset off, if it is all there. */
static int peek_u64(size_t off, uint64_t *v)
{
	if (off > stream_len || stream_len - off < 8)
		return 0;
	*v = cix_get_u64le(stream + off);
	return 1;
}

static void check_bounds(const struct cix_wire *w)
{
	if (w->bytes_in > stream_len || w->rpos > w->rlen || w->rlen > sizeof(w->rbuf))
		abort();
}

static void do_string(struct cix_wire *w, size_t max)
{
	struct strbuf s = STRBUF_INIT;
	struct cix_err err = { 0 };
	size_t off = (size_t)w->bytes_in;
	uint64_t declared;
	int have = peek_u64(off, &declared);
	int r = cix_wire_read_string(w, &s, max, &err);
	check_err(r, &err);
	if (have && declared > max && (r != -CIX_ELIMIT || s.alloc))
		abort();   /* too long: refused, nothing allocated */
	if (!r) {
		size_t pad = (8 - s.len % 8) % 8;
		if (!have || s.len != declared || s.len > max ||
		    w->bytes_in != off + 8 + s.len + pad ||
		    memcmp(s.buf, stream + off + 8, s.len) || s.buf[s.len])
			abort();
		for (size_t i = 0; i < pad; i++)
			if (stream[off + 8 + s.len + i])
				abort();   /* non-zero padding accepted */
	}
	strbuf_release(&s);
}

static void do_strings(struct cix_wire *w, size_t max_count, size_t max_len)
{
	struct strvec v = STRVEC_INIT;
	struct cix_err err = { 0 };
	uint64_t declared;
	int have = peek_u64((size_t)w->bytes_in, &declared);
	int r = cix_wire_read_strings(w, &v, max_count, max_len, &err);
	check_err(r, &err);
	if (have && declared > max_count && (r != -CIX_ELIMIT || v.nr))
		abort();
	if (v.nr > max_count)
		abort();
	if (!r && (!have || v.nr != declared))
		abort();
	for (size_t i = 0; i < v.nr; i++)
		if (strlen(v.v[i]) > max_len)
			abort();
	strvec_clear(&v);
}

static void do_framed(struct cix_wire *w, size_t chunk, uint64_t max)
{
	struct cix_wire_source src = CIX_WIRE_SOURCE_INIT(w);
	unsigned char buf[300];
	uint64_t total = 0;
	int failed = 0;
	src.max = max;
	for (;;) {
		ssize_t n = cix_wire_framed_read(&src, buf, chunk);
		check_bounds(w);
		if (n < 0) {
			check_err((int)n, &src.err);
			failed = 1;
			break;
		}
		if ((size_t)n > chunk)
			abort();
		total += (uint64_t)n;
		if (n == 0) {
			if (!src.done)
				abort();   /* 0 before the end frame */
			break;
		}
	}
	/* A failed read may have counted a chunk it did not return. */
	if (total > src.total || (!failed && total != src.total) || (max && total > max))
		abort();
	/* After an error (a limit), the rest may be drained. */
	if (!src.done) {
		struct cix_err err = { 0 };
		int r = cix_wire_framed_drain(&src, &err);
		check_err(r, &err);
		if (!r && !src.done)
			abort();
	}
	if (src.done && cix_wire_framed_read(&src, buf, chunk) != 0)
		abort();   /* done stays done */
}

static void do_raw(struct cix_wire *w, size_t len, uint64_t max)
{
	struct cix_wire_source src = CIX_WIRE_SOURCE_INIT(w);
	unsigned char buf[600];
	size_t off = (size_t)w->bytes_in;
	src.max = max;
	ssize_t n = cix_wire_source_read(&src, buf, len);
	if (n < 0)
		check_err((int)n, &src.err);
	else if ((size_t)n > len || (max && (uint64_t)n > max) ||
		 w->bytes_in != off + (size_t)n || memcmp(buf, stream + off, (size_t)n))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int fd = -1;
	struct cix_wire *w;
	size_t plen;

	if (!size)
		return 0;
	plen = data[0] % 33;
	if (plen > size - 1)
		plen = size - 1;
	stream = data + 1 + plen;
	stream_len = size - 1 - plen;
	if (fd < 0 && (fd = memfd_create("wire", MFD_CLOEXEC)) < 0)
		abort();
	if (ftruncate(fd, 0) < 0 || lseek(fd, 0, SEEK_SET) < 0 ||
	    cix_write_full(fd, stream, stream_len) < 0 || lseek(fd, 0, SEEK_SET) < 0)
		abort();

	w = xmalloc(sizeof(*w));
	cix_wire_init(w, fd);
	w->timeout_ms = 10;
	for (size_t i = 0; i < plen; i++) {
		unsigned op = data[1 + i] & 7, p = data[1 + i] >> 3;
		struct cix_err err = { 0 };
		uint64_t v;
		int b, r = 0;
		size_t off = (size_t)w->bytes_in;
		switch (op) {
		case 0:
			r = cix_wire_read_u64(w, &v, &err);
			if (!r && (off + 8 > stream_len || v != cix_get_u64le(stream + off)))
				abort();
			break;
		case 1:
			r = cix_wire_read_bool(w, &b, &err);
			if (!r && (b != 0 && b != 1))
				abort();
			break;
		case 2:
			do_string(w, maxes[p % 4]);
			break;
		case 3:
			do_strings(w, p % 8, maxes[(p >> 3) % 4]);
			break;
		case 4:
			do_framed(w, 1 + p * 9, (p & 1) ? 64 : 0);
			break;
		case 5:
			do_raw(w, 1 + p * 18, (p & 1) ? 100 : 0);
			break;
		case 6:
			r = cix_wire_skip(w, (uint64_t)p * 8, &err);
			break;
		default:
			r = cix_wire_wait(w, 10, &err);
			if (r > 0 && w->rpos >= w->rlen)
				abort();
			if (r >= 0)
				r = 0;
			break;
		}
		check_err(r, &err);
		check_bounds(w);
	}
	cix_wire_release(w);
	free(w);
	return 0;
}
