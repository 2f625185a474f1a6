/* wire.c - the Nix worker protocol's wire primitives, over a connection */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "wire.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stddef.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

void cix_wire_init(struct cix_wire *w, int fd)
{
	/*
	 * All but the read buffer (only [rpos, rlen) of it is ever read): a
	 * daemon's worker, fresh from fork, would fault in 16 pages of stack
	 * to zero it.
	 */
	memset(w, 0, offsetof(struct cix_wire, rbuf));
	memset(&w->rpos, 0, sizeof(*w) - offsetof(struct cix_wire, rpos));
	w->fd = w->out_fd = fd;
	w->timeout_ms = 60000;
	w->rcvtimeo_ms = -1;
	strbuf_init(&w->wbuf, 0);
}

void cix_wire_init_pair(struct cix_wire *w, int in_fd, int out_fd)
{
	cix_wire_init(w, in_fd);
	w->out_fd = out_fd;
}

void cix_wire_release(struct cix_wire *w)
{
	strbuf_release(&w->wbuf);
}

void cix_wire_reset_budget(struct cix_wire *w)
{
	w->spent = 0;
	w->over_budget = 0;
}

/* A read failed: what follows cannot be told apart from this message. */
static int broken(struct cix_wire *w, int r)
{
	w->broken = 1;
	return r;
}

/* Take n bytes of the request's budget before allocating them. */
static int charge(struct cix_wire *w, uint64_t n, struct cix_err *err)
{
	if (!w->budget)
		return 0;
	if (w->spent > w->budget || n > w->budget - w->spent) {
		w->over_budget = 1;
		return broken(w, cix_error(err, -CIX_ELIMIT,
					   "request too large: reading it would take more than "
					   "%llu bytes of memory", (unsigned long long)w->budget));
	}
	w->spent += n;
	return 0;
}

static int timed_out(int timeout_ms, struct cix_err *err)
{
	return cix_error(err, -ETIMEDOUT, "the peer sent nothing for %d seconds",
			 timeout_ms / 1000);
}

/* Wait up to timeout_ms (0: forever) for input: 1, or negative. */
static int wait_input(struct cix_wire *w, int timeout_ms, struct cix_err *err)
{
	struct pollfd p = { .fd = w->fd, .events = POLLIN };
	for (;;) {
		int n = poll(&p, 1, timeout_ms > 0 ? timeout_ms : -1);
		if (n > 0)
			return 1;
		if (n == 0)
			return timed_out(timeout_ms, err);
		if (errno != EINTR)
			return cix_error_errno(err, -errno, "cannot poll the connection");
	}
}

/*
 * Whether a blocking read can wait for us, the socket's receive timeout
 * set to timeout_ms: one system call per message instead of poll's two
 * (a daemon's worker answers one request a round trip).
 */
static int read_waits(struct cix_wire *w, int timeout_ms)
{
	struct timeval tv = { timeout_ms / 1000, (timeout_ms % 1000) * 1000 };
	int fl;
	if (w->poll_only)
		return 0;
	if (w->rcvtimeo_ms == timeout_ms)
		return 1;
	if (w->rcvtimeo_ms < 0 && ((fl = fcntl(w->fd, F_GETFL)) < 0 || (fl & O_NONBLOCK)))
		w->poll_only = 1;
	else if (setsockopt(w->fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) < 0)
		w->poll_only = 1;  /* (not a socket: a pipe, a file) */
	else
		w->rcvtimeo_ms = timeout_ms;
	return !w->poll_only;
}

/* Refill the read buffer: the number of bytes read, 0 at end of input. */
static ssize_t fill(struct cix_wire *w, int timeout_ms, struct cix_err *err)
{
	int r, waits;
	if (w->eof)
		return 0;
	timeout_ms = timeout_ms > 0 ? timeout_ms : 0;
	if (!(waits = read_waits(w, timeout_ms)) && (r = wait_input(w, timeout_ms, err)) < 0)
		return r;
	for (;;) {
		ssize_t n = read(w->fd, w->rbuf, sizeof(w->rbuf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && waits && (errno == EAGAIN || errno == EWOULDBLOCK))
			return timed_out(timeout_ms, err);
		if (n < 0)
			return cix_error_errno(err, -errno, "cannot read from the connection");
		if (n == 0)
			w->eof = 1;
		w->rpos = 0;
		w->rlen = (size_t)n;
		return n;
	}
}

int cix_wire_wait(struct cix_wire *w, int timeout_ms, struct cix_err *err)
{
	if (w->rpos < w->rlen)
		return 1;
	ssize_t n = fill(w, timeout_ms, err);
	return n < 0 ? (int)n : n > 0;
}

int cix_wire_read(struct cix_wire *w, void *buf, size_t len, struct cix_err *err)
{
	unsigned char *p = buf;
	while (len) {
		if (w->rpos == w->rlen) {
			ssize_t n = fill(w, w->timeout_ms, err);
			if (n < 0)
				return broken(w, (int)n);
			if (n == 0)
				return broken(w, cix_error(err, -CIX_EFORMAT,
							   "the connection ended in the middle of a message"));
		}
		size_t k = w->rlen - w->rpos < len ? w->rlen - w->rpos : len;
		memcpy(p, w->rbuf + w->rpos, k);
		w->rpos += k;
		w->bytes_in += k;
		p += k;
		len -= k;
	}
	return 0;
}

int cix_wire_read_u64(struct cix_wire *w, uint64_t *v, struct cix_err *err)
{
	unsigned char b[8];
	int r = cix_wire_read(w, b, 8, err);
	if (r < 0)
		return r;
	*v = cix_get_u64le(b);
	return 0;
}

int cix_wire_read_bool(struct cix_wire *w, int *v, struct cix_err *err)
{
	uint64_t x;
	int r = cix_wire_read_u64(w, &x, err);
	if (r < 0)
		return r;
	if (x > 1)
		return broken(w, cix_error(err, -CIX_EFORMAT, "bad boolean %llu", (unsigned long long)x));
	*v = (int)x;
	return 0;
}

static int read_padding(struct cix_wire *w, uint64_t len, struct cix_err *err)
{
	unsigned char pad[8];
	size_t n = (size_t)((8 - len % 8) % 8);
	int r = cix_wire_read(w, pad, n, err);
	if (r < 0)
		return r;
	for (size_t i = 0; i < n; i++)
		if (pad[i])
			return broken(w, cix_error(err, -CIX_EFORMAT, "non-zero padding"));
	return 0;
}

/*
 * A string into out, charging its length and extra bytes per string (what
 * the caller keeps of it besides out) to the budget.
 */
static int read_string(struct cix_wire *w, struct strbuf *out, size_t max, size_t extra,
		       struct cix_err *err)
{
	uint64_t len;
	int r;
	strbuf_reset(out);
	if ((r = cix_wire_read_u64(w, &len, err)) < 0)
		return r;
	if (len > max)
		return broken(w, cix_error(err, -CIX_ELIMIT, "string of %llu bytes is longer than %zu",
					   (unsigned long long)len, max));
	if ((r = charge(w, len + extra, err)) < 0)
		return r;
	strbuf_grow(out, (size_t)len);
	if ((r = cix_wire_read(w, out->buf, (size_t)len, err)) < 0)
		return r;
	strbuf_setlen(out, (size_t)len);
	return read_padding(w, len, err);
}

int cix_wire_read_string(struct cix_wire *w, struct strbuf *out, size_t max,
			 struct cix_err *err)
{
	return read_string(w, out, max, 1, err);
}

/* What a list's item costs besides its bytes: NUL, pointer, allocator. */
#define LIST_ITEM_COST (1 + sizeof(char *) + 16)

int cix_wire_read_strings(struct cix_wire *w, struct strvec *out, size_t max_count,
			  size_t max_len, struct cix_err *err)
{
	struct strbuf s = STRBUF_INIT;
	uint64_t n;
	int r;
	if ((r = cix_wire_read_u64(w, &n, err)) < 0)
		return r;
	if (n > max_count)
		return broken(w, cix_error(err, -CIX_ELIMIT, "list of %llu items is longer than %zu",
					   (unsigned long long)n, max_count));
	for (uint64_t i = 0; i < n; i++) {
		if ((r = read_string(w, &s, max_len, LIST_ITEM_COST, err)) < 0)
			break;
		if (memchr(s.buf, '\0', s.len)) {
			r = broken(w, cix_error(err, -CIX_EFORMAT, "string holds a NUL byte"));
			break;
		}
		strvec_push(out, s.buf);
	}
	strbuf_release(&s);
	return r < 0 ? r : 0;
}

int cix_wire_skip(struct cix_wire *w, uint64_t len, struct cix_err *err)
{
	unsigned char buf[4096];
	while (len) {
		size_t k = len < sizeof(buf) ? (size_t)len : sizeof(buf);
		int r = cix_wire_read(w, buf, k, err);
		if (r < 0)
			return r;
		len -= k;
	}
	return 0;
}

void cix_wire_write(struct cix_wire *w, const void *buf, size_t len)
{
	strbuf_add(&w->wbuf, buf, len);
}

void cix_wire_encode_u64(struct strbuf *b, uint64_t v)
{
	unsigned char n[8];
	cix_put_u64le(n, v);
	strbuf_add(b, n, 8);
}

void cix_wire_encode_string(struct strbuf *b, const char *s, size_t len)
{
	static const unsigned char zero[8];
	cix_wire_encode_u64(b, len);
	strbuf_add(b, s, len);
	strbuf_add(b, zero, (8 - len % 8) % 8);
}

void cix_wire_encode_str(struct strbuf *b, const char *s)
{
	cix_wire_encode_string(b, s ? s : "", s ? strlen(s) : 0);
}

void cix_wire_write_u64(struct cix_wire *w, uint64_t v)
{
	cix_wire_encode_u64(&w->wbuf, v);
}

void cix_wire_write_string(struct cix_wire *w, const char *s, size_t len)
{
	cix_wire_encode_string(&w->wbuf, s, len);
}

void cix_wire_write_str(struct cix_wire *w, const char *s)
{
	cix_wire_encode_str(&w->wbuf, s);
}

void cix_wire_write_strings(struct cix_wire *w, const char *const *v, size_t n)
{
	cix_wire_write_u64(w, n);
	for (size_t i = 0; i < n; i++)
		cix_wire_write_str(w, v[i]);
}

/* Write all of buf; on a socket without SIGPIPE when the peer is gone. */
static int send_full(int fd, const char *buf, size_t len)
{
	while (len) {
		ssize_t n = send(fd, buf, len, MSG_NOSIGNAL);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == ENOTSOCK)
			return cix_write_full(fd, buf, len);   /* a pipe: the caller's SIGPIPE */
		if (n < 0)
			return -errno;
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

int cix_wire_flush(struct cix_wire *w, struct cix_err *err)
{
	int r = 0;
	if (w->wbuf.len && (r = send_full(w->out_fd, w->wbuf.buf, w->wbuf.len)) < 0)
		r = cix_error_errno(err, r, "cannot write to the connection");
	strbuf_reset(&w->wbuf);
	return r;
}

/* ---- Sources ---- */

static ssize_t count(struct cix_wire_source *src, size_t n)
{
	if (src->max && (n > src->max || src->total > src->max - n))
		return cix_error(&src->err, -CIX_ELIMIT, "more than %llu bytes of data",
				 (unsigned long long)src->max);
	src->total += n;
	return (ssize_t)n;
}

ssize_t cix_wire_source_read(void *opaque, void *buf, size_t len)
{
	struct cix_wire_source *src = opaque;
	struct cix_wire *w = src->w;
	if (!len)
		return 0;
	if (w->rpos == w->rlen) {
		ssize_t n = fill(w, w->timeout_ms, &src->err);
		if (n < 0)
			return broken(w, (int)n);
		if (n == 0)
			return 0;
	}
	size_t k = w->rlen - w->rpos < len ? w->rlen - w->rpos : len;
	ssize_t r = count(src, k);
	if (r < 0)
		return broken(w, (int)r);
	memcpy(buf, w->rbuf + w->rpos, k);
	w->rpos += k;
	w->bytes_in += k;
	return (ssize_t)k;
}

ssize_t cix_wire_framed_read(void *opaque, void *buf, size_t len)
{
	struct cix_wire_source *src = opaque;
	int r;
	while (!src->done && !src->left) {
		if ((r = cix_wire_read_u64(src->w, &src->left, &src->err)) < 0)
			return r;
		if (!src->left)
			src->done = 1;
	}
	if (src->done || !len)
		return 0;
	size_t k = src->left < len ? (size_t)src->left : len;
	ssize_t c = count(src, k);
	if (c < 0)
		return broken(src->w, (int)c);
	if ((r = cix_wire_read(src->w, buf, k, &src->err)) < 0)
		return r;
	src->left -= k;
	return (ssize_t)k;
}

int cix_wire_framed_drain(struct cix_wire_source *src, struct cix_err *err)
{
	unsigned char buf[65536];
	src->max = 0;
	for (;;) {
		ssize_t n = cix_wire_framed_read(src, buf, sizeof(buf));
		if (n < 0) {
			if (err)
				*err = src->err;
			return (int)n;
		}
		if (n == 0)
			return 0;
	}
}

/* ---- stderr frames ---- */

void cix_wire_stderr_next(struct cix_wire *w, const char *msg)
{
	cix_wire_write_u64(w, CIX_STDERR_NEXT);
	cix_wire_write_str(w, msg);
}

void cix_wire_stderr_last(struct cix_wire *w)
{
	cix_wire_write_u64(w, CIX_STDERR_LAST);
}

void cix_wire_stderr_error(struct cix_wire *w, unsigned minor, const char *msg,
			   unsigned status)
{
	cix_wire_write_u64(w, CIX_STDERR_ERROR);
	if (minor >= 26) {
		cix_wire_write_str(w, "Error");
		cix_wire_write_u64(w, 0);          /* level: error */
		cix_wire_write_str(w, "Error");    /* name */
		cix_wire_write_str(w, msg);
		cix_wire_write_u64(w, 0);          /* no position */
		cix_wire_write_u64(w, 0);          /* no traces */
	} else {
		cix_wire_write_str(w, msg);
		cix_wire_write_u64(w, status ? status : 1);
	}
}

static void write_fields(struct cix_wire *w, const struct cix_wire_field *fields, size_t n)
{
	cix_wire_write_u64(w, n);
	for (size_t i = 0; i < n; i++) {
		cix_wire_write_u64(w, fields[i].is_string ? 1 : 0);
		if (fields[i].is_string)
			cix_wire_write_str(w, fields[i].s);
		else
			cix_wire_write_u64(w, fields[i].i);
	}
}

void cix_wire_start_activity(struct cix_wire *w, unsigned minor, uint64_t id, uint64_t level,
			     uint64_t type, const char *text,
			     const struct cix_wire_field *fields, size_t n, uint64_t parent)
{
	if (minor < 20)
		return;
	cix_wire_write_u64(w, CIX_STDERR_START_ACTIVITY);
	cix_wire_write_u64(w, id);
	cix_wire_write_u64(w, level);
	cix_wire_write_u64(w, type);
	cix_wire_write_str(w, text);
	write_fields(w, fields, n);
	cix_wire_write_u64(w, parent);
}

void cix_wire_stop_activity(struct cix_wire *w, unsigned minor, uint64_t id)
{
	if (minor < 20)
		return;
	cix_wire_write_u64(w, CIX_STDERR_STOP_ACTIVITY);
	cix_wire_write_u64(w, id);
}

void cix_wire_result(struct cix_wire *w, unsigned minor, uint64_t id, uint64_t type,
		     const struct cix_wire_field *fields, size_t n)
{
	if (minor < 20)
		return;
	cix_wire_write_u64(w, CIX_STDERR_RESULT);
	cix_wire_write_u64(w, id);
	cix_wire_write_u64(w, type);
	write_fields(w, fields, n);
}
