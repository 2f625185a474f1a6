/* wire.h - the Nix worker protocol's wire primitives, over a connection */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef CIX_WIRE_H
#define CIX_WIRE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "err.h"
#include "strbuf.h"
#include "strvec.h"

/*
 * doc/formats.md §1 and §8: a u64 is 8 bytes little-endian (bools too); a
 * string is a u64 length, the bytes, zero padding to a multiple of 8; a
 * list is a u64 count and the items. Everything read is hostile: lengths
 * and counts are bounded before anything is allocated, padding must be
 * zero, and a peer that stops in the middle of a message is given up on
 * after a timeout. After any failed read the stream is out of step with
 * the peer (broken is set): the connection can only be dropped.
 */

#define CIX_WORKER_MAGIC_1 0x6e697863ULL   /* client -> daemon */
#define CIX_WORKER_MAGIC_2 0x6478696fULL   /* daemon -> client */
#define CIX_PROTOCOL_VERSION ((1 << 8) | 34)
#define CIX_PROTOCOL_MAJOR(v) ((v) & 0xff00)
#define CIX_PROTOCOL_MINOR(v) ((v) & 0x00ff)
/* The oldest client the daemon talks to (as Nix 2.8). */
#define CIX_PROTOCOL_OLDEST 0x10a

/* stderr frames: what the daemon sends before its reply */
#define CIX_STDERR_NEXT  0x6f6c6d67ULL
#define CIX_STDERR_READ  0x64617461ULL
#define CIX_STDERR_WRITE 0x64617416ULL
#define CIX_STDERR_LAST  0x616c7473ULL
#define CIX_STDERR_ERROR 0x63787470ULL
#define CIX_STDERR_START_ACTIVITY 0x53545254ULL
#define CIX_STDERR_STOP_ACTIVITY  0x53544f50ULL
#define CIX_STDERR_RESULT 0x52534c54ULL

/* Bounds on what a peer may send. */
#define CIX_WIRE_MAX_STRING (64u << 20)    /* one string (a text file, a log) */
#define CIX_WIRE_MAX_PATH 4096             /* a store path, a name */
#define CIX_WIRE_MAX_LIST (1u << 20)       /* items of a list */

struct cix_wire {
	int fd;              /* read from (and written to, unless out_fd differs) */
	int out_fd;          /* written to: fd, or standard output with --stdio */
	/* Milliseconds a read in the middle of a message may wait; 0: forever. */
	int timeout_ms;
	unsigned char rbuf[65536];
	size_t rpos, rlen;
	struct strbuf wbuf;
	int eof;             /* the peer closed its end */
	int broken;          /* a read failed in the middle of a message: out of step */
	uint64_t bytes_in;   /* read so far, for limits */
	/*
	 * Bytes that string and list reads may allocate (0: no limit), and
	 * what they took so far: one request may not make the reader
	 * allocate more, whatever its counts say. over_budget tells that
	 * error from the others (the reader may still answer it).
	 */
	uint64_t budget, spent;
	int over_budget;
	/* SO_RCVTIMEO now set on fd, in ms (-1: not yet); poll_only: not a blocking socket */
	int rcvtimeo_ms, poll_only;
};

void cix_wire_init(struct cix_wire *w, int fd);
/* Reading in_fd, writing out_fd (a peer on a pipe's two ends: standard input and output). */
void cix_wire_init_pair(struct cix_wire *w, int in_fd, int out_fd);
/* Free the buffers; the descriptor is the caller's. */
void cix_wire_release(struct cix_wire *w);
/* A new request: its string and list reads start from a full budget. */
void cix_wire_reset_budget(struct cix_wire *w);

/*
 * Wait until the peer sends something or closes: 1 when there is input,
 * 0 at a clean end of the connection (nothing pending), negative on
 * error or after timeout_ms (0: wait forever). For the start of a message.
 */
int cix_wire_wait(struct cix_wire *w, int timeout_ms, struct cix_err *err);

int cix_wire_read(struct cix_wire *w, void *buf, size_t len, struct cix_err *err);
int cix_wire_read_u64(struct cix_wire *w, uint64_t *v, struct cix_err *err);
/* A bool: 0 or 1, anything else is an error. */
int cix_wire_read_bool(struct cix_wire *w, int *v, struct cix_err *err);
/* A string of at most max bytes (NUL-terminated in out, which may hold NULs). */
int cix_wire_read_string(struct cix_wire *w, struct strbuf *out, size_t max,
			 struct cix_err *err);
/* A list of at most max_count strings of at most max_len bytes, none holding NUL. */
int cix_wire_read_strings(struct cix_wire *w, struct strvec *out, size_t max_count,
			  size_t max_len, struct cix_err *err);
/* Discard len bytes (and, for a string's data, its padding). */
int cix_wire_skip(struct cix_wire *w, uint64_t len, struct cix_err *err);

void cix_wire_write(struct cix_wire *w, const void *buf, size_t len);
void cix_wire_write_u64(struct cix_wire *w, uint64_t v);
void cix_wire_write_string(struct cix_wire *w, const char *s, size_t len);
void cix_wire_write_str(struct cix_wire *w, const char *s);   /* NUL-terminated; NULL: "" */
/* The same encodings appended to b (a message built apart, sent as frames). */
void cix_wire_encode_u64(struct strbuf *b, uint64_t v);
void cix_wire_encode_string(struct strbuf *b, const char *s, size_t len);
void cix_wire_encode_str(struct strbuf *b, const char *s);   /* NULL: "" */
void cix_wire_write_strings(struct cix_wire *w, const char *const *v, size_t n);
/*
 * Send what is buffered. A peer gone is an error (-EPIPE), never a
 * SIGPIPE: the descriptor is written with MSG_NOSIGNAL when a socket.
 */
int cix_wire_flush(struct cix_wire *w, struct cix_err *err);

/*
 * Sources for cix_source_fn (lib/nar.h) reading from the connection:
 * cix_wire_source_read reads the stream as it comes (a NAR inline);
 * cix_wire_framed_read reads "framed" data, chunks of a u64 length each,
 * ending with an empty one (after which it returns 0 for ever).
 */
ssize_t cix_wire_source_read(void *opaque /* struct cix_wire_source * */, void *buf, size_t len);
ssize_t cix_wire_framed_read(void *opaque /* struct cix_wire_source * */, void *buf, size_t len);
struct cix_wire_source {
	struct cix_wire *w;
	uint64_t left;       /* of the current frame */
	int done;            /* the empty frame was read */
	uint64_t max;        /* bytes allowed in all, 0: no limit */
	uint64_t total;
	struct cix_err err;  /* why a read failed */
};
#define CIX_WIRE_SOURCE_INIT(wire) { (wire), 0, 0, 0, 0, { 0 } }
/* Read and discard what is left of framed data (after an error, say). */
int cix_wire_framed_drain(struct cix_wire_source *src, struct cix_err *err);

/*
 * stderr frames, daemon side. An error is sent in the form the client's
 * minor version expects (>= 26: the structured one). Activities are only
 * sent to minors >= 20; for older ones start/stop/result do nothing.
 */
void cix_wire_stderr_next(struct cix_wire *w, const char *msg);
void cix_wire_stderr_last(struct cix_wire *w);
void cix_wire_stderr_error(struct cix_wire *w, unsigned minor, const char *msg,
			   unsigned status);

/* An activity's field: an integer or a string. */
struct cix_wire_field {
	int is_string;
	uint64_t i;
	const char *s;
};
void cix_wire_start_activity(struct cix_wire *w, unsigned minor, uint64_t id, uint64_t level,
			     uint64_t type, const char *text,
			     const struct cix_wire_field *fields, size_t n, uint64_t parent);
void cix_wire_stop_activity(struct cix_wire *w, unsigned minor, uint64_t id);
void cix_wire_result(struct cix_wire *w, unsigned minor, uint64_t id, uint64_t type,
		     const struct cix_wire_field *fields, size_t n);

#endif
