/* store-connection.c - a store reached over a connection made elsewhere */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "tap.h"
#include "store-backend.h"
#include "wire.h"
#include "worker-ops.h"

#include <pthread.h>
#include <sys/socket.h>
#include <unistd.h>

/* A daemon of a few lines on the other end: the handshake, then IsValidPath. */
struct fake {
	int fd;
	int garbage;         /* answer the handshake with another magic number */
	char asked[256];     /* the path IsValidPath was asked about */
};

static void *serve(void *arg)
{
	struct fake *f = arg;
	struct cix_wire w;
	struct strbuf path = STRBUF_INIT;
	uint64_t x;
	cix_wire_init(&w, f->fd);
	if (cix_wire_read_u64(&w, &x, NULL) < 0)
		goto out;
	cix_wire_write_u64(&w, f->garbage ? 0x1234 : CIX_WORKER_MAGIC_2);
	cix_wire_write_u64(&w, CIX_PROTOCOL_VERSION);
	cix_wire_flush(&w, NULL);
	if (f->garbage)
		goto out;
	for (int i = 0; i < 3; i++)   /* the client's version, affinity, reserveSpace */
		cix_wire_read_u64(&w, &x, NULL);
	cix_wire_write_str(&w, "fake 1.0");
	cix_wire_write_u64(&w, CIX_STDERR_LAST);
	cix_wire_flush(&w, NULL);
	if (cix_wire_read_u64(&w, &x, NULL) == 0 && x == CIX_OP_IS_VALID_PATH &&
	    cix_wire_read_string(&w, &path, sizeof(f->asked) - 1, NULL) == 0) {
		memcpy(f->asked, path.buf, path.len + 1);
		cix_wire_write_u64(&w, CIX_STDERR_LAST);
		cix_wire_write_u64(&w, 1);
		cix_wire_flush(&w, NULL);
	}
out:
	strbuf_release(&path);
	cix_wire_release(&w);
	close(f->fd);
	return NULL;
}

static void count_close(void *opaque)
{
	(*(int *)opaque)++;
}

static int start(struct fake *f, pthread_t *th)
{
	int sv[2];
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
		return -1;
	f->fd = sv[1];
	pthread_create(th, NULL, serve, f);
	return sv[0];
}

int main(void)
{
	struct cix_err err = { 0 };
	struct cix_store *s = NULL;
	struct fake f = { 0 };
	pthread_t th;
	int closed = 0, r;
	char path[600];

	setenv("CIX_STORE_DIR", "/cix/store", 1);
	snprintf(path, sizeof(path), "%s", "/cix/store/00000000000000000000000000000000-x");
	r = cix_store_open_connection(start(&f, &th), "fake", 5000, count_close, &closed, &s, &err);
	if (!ok(r == 0, "a store over a connection: the handshake done"))
		diag("%s", err.msg);
	if (r == 0) {
		ok(!strcmp(cix_store_kind(s), "daemon") && !cix_store_has(s, CIX_STORE_LOCAL_DB),
		   "it is served as a daemon's store");
		is_int(cix_store_is_valid(s, path, &err), 1, "a query goes over it");
		is_str(f.asked, path, "the other end was asked about that path");
		ok(!cix_store_files_here(s), "its files are not here");
		cix_store_close(s);
	}
	pthread_join(th, NULL);
	is_int(closed, 1, "closing the store runs after_close once");

	struct fake g = { .garbage = 1 };
	closed = 0;
	r = cix_store_open_connection(start(&g, &th), "garbage", 5000, count_close, &closed, &s, &err);
	pthread_join(th, NULL);
	ok(r < 0 && strstr(err.msg, "'garbage' does not speak the worker protocol"),
	   "another protocol: refused in one line naming it (%s)", err.msg);
	is_int(closed, 1, "and after_close still runs once");
	return done_testing();
}
