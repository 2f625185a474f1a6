/* daemon-load.c - load generator for bench/daemon: many clients of a worker-protocol daemon */
/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Usage: daemon-load [-c CLIENTS] [-n OPS] [-a ADD-EVERY] [-t TAG] [-o FILE] [-Q]
 *                    SOCKET STOREDIR PATHS-FILE
 *
 * Starts CLIENTS threads (default 64) at once; each connects to SOCKET,
 * does the handshake (protocol 1.34) and SetOptions, then OPS operations
 * (default 200): queries on the store paths listed in PATHS-FILE
 * (IsValidPath on a valid and on a made-up path, QueryPathInfo,
 * QueryReferrers), and one operation in ADD-EVERY (default 4) is an
 * AddToStore of a few hundred bytes of distinct contents, alternately
 * "fixed:r:sha256" (a NAR of a regular file) and "text:sha256" (a text
 * referring to a listed path). Every reply is checked: valid paths are
 * valid, the made-up one is not, QueryPathInfo finds the path with a
 * sha256 NAR hash, and each added path is the one its contents and
 * method give (computed here as Nix computes it). TAG goes into the
 * contents, so that two runs with the same TAG add the same paths.
 * With -Q every operation is a QueryPathInfo (no adds), for bench/scale.
 *
 * Prints "OPS SECONDS" (all operations of all clients; the time from the
 * first connect to the last client's end) on standard output; -o writes
 * the added paths, sorted, to FILE.
 */
#include "encoding.h"
#include "hash.h"
#include "store-path.h"
#include "strbuf.h"
#include "strvec.h"
#include "util.h"
#include "wire.h"
#include "worker-ops.h"

#include <errno.h>
#include <stdarg.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>


static const char *sock_path, *store_dir, *tag = "cix";
static struct strvec paths = STRVEC_INIT;
static unsigned nr_clients = 64, nr_ops = 200, add_every = 4;
static int only_query_info;

struct client {
	pthread_t th;
	unsigned id;
	struct cix_wire *w;
	struct strvec added;
	struct strbuf why;   /* the first failure */
};

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int fail(struct client *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(struct client *c, const char *fmt, ...)
{
	va_list ap;
	if (c->why.len)
		return -1;
	strbuf_addf(&c->why, "client %u: ", c->id);
	va_start(ap, fmt);
	strbuf_vaddf(&c->why, fmt, ap);
	va_end(ap);
	return -1;
}

static int rd_u64(struct client *c, uint64_t *v)
{
	struct cix_err err = { 0 };
	if (cix_wire_read_u64(c->w, v, &err) < 0)
		return fail(c, "%s", err.msg);
	return 0;
}

static int rd_str(struct client *c, struct strbuf *sb)
{
	struct cix_err err = { 0 };
	if (cix_wire_read_string(c->w, sb, CIX_WIRE_MAX_STRING, &err) < 0)
		return fail(c, "%s", err.msg);
	return 0;
}

static int rd_strs(struct client *c, struct strvec *sv)
{
	struct cix_err err = { 0 };
	if (cix_wire_read_strings(c->w, sv, CIX_WIRE_MAX_LIST, CIX_WIRE_MAX_PATH, &err) < 0)
		return fail(c, "%s", err.msg);
	return 0;
}

static int flush(struct client *c)
{
	struct cix_err err = { 0 };
	if (cix_wire_flush(c->w, &err) < 0)
		return fail(c, "%s", err.msg);
	return 0;
}

static int skip_fields(struct client *c)
{
	struct strbuf s = STRBUF_INIT;
	uint64_t n, tag_, x;
	int r = rd_u64(c, &n);
	for (uint64_t i = 0; !r && i < n; i++) {
		if ((r = rd_u64(c, &tag_)) < 0)
			break;
		r = tag_ == 1 ? rd_str(c, &s) : tag_ == 0 ? rd_u64(c, &x) : fail(c, "bad field type");
	}
	strbuf_release(&s);
	return r;
}

/* Read stderr frames up to LAST; an error frame is a failure. */
static int stderr_frames(struct client *c)
{
	struct strbuf s = STRBUF_INIT;
	uint64_t code, x;
	int r = 0;
	while (!r && !(r = rd_u64(c, &code)) && code != CIX_STDERR_LAST) {
		switch (code) {
		case CIX_STDERR_NEXT:
			r = rd_str(c, &s);
			break;
		case CIX_STDERR_START_ACTIVITY:
			if (!(r = rd_u64(c, &x)) && !(r = rd_u64(c, &x)) && !(r = rd_u64(c, &x)) &&
			    !(r = rd_str(c, &s)) && !(r = skip_fields(c)))
				r = rd_u64(c, &x);
			break;
		case CIX_STDERR_STOP_ACTIVITY:
			r = rd_u64(c, &x);
			break;
		case CIX_STDERR_RESULT:
			if (!(r = rd_u64(c, &x)) && !(r = rd_u64(c, &x)))
				r = skip_fields(c);
			break;
		case CIX_STDERR_ERROR:
			/* minor >= 26: "Error", level, name, message, ... */
			if (!rd_str(c, &s) && !rd_u64(c, &x) && !rd_str(c, &s) && !rd_str(c, &s))
				r = fail(c, "daemon error: %s", s.buf);
			else
				r = -1;
			break;
		default:
			r = fail(c, "unknown stderr frame %#llx", (unsigned long long)code);
		}
	}
	strbuf_release(&s);
	return r;
}

static int handshake(struct client *c)
{
	struct cix_wire *w = c->w;
	struct strbuf s = STRBUF_INIT;
	uint64_t magic, version;
	int r;
	cix_wire_write_u64(w, CIX_WORKER_MAGIC_1);
	if ((r = flush(c)) || (r = rd_u64(c, &magic)) || (r = rd_u64(c, &version)))
		goto out;
	if (magic != CIX_WORKER_MAGIC_2 || CIX_PROTOCOL_MINOR(version) < 34) {
		r = fail(c, "bad handshake (version %#llx)", (unsigned long long)version);
		goto out;
	}
	cix_wire_write_u64(w, CIX_PROTOCOL_VERSION);
	cix_wire_write_u64(w, 0);   /* no CPU affinity */
	cix_wire_write_u64(w, 0);   /* reserveSpace */
	if ((r = flush(c)) || (r = rd_str(c, &s)) || (r = stderr_frames(c)))
		goto out;
	/* SetOptions as nix-store sends it, without overrides. */
	static const uint64_t opts[] = { 0, 0, 0, 3, 1, 0, 1, 0, 0, 0, 1, 0, 0 };
	cix_wire_write_u64(w, CIX_OP_SET_OPTIONS);
	for (size_t i = 0; i < ARRAY_SIZE(opts); i++)
		cix_wire_write_u64(w, opts[i]);
	if (!(r = flush(c)))
		r = stderr_frames(c);
out:
	strbuf_release(&s);
	return r;
}

/* Read ValidPathInfo (without the path) and check its NAR hash. */
static int read_info(struct client *c, const char *path)
{
	struct strbuf s = STRBUF_INIT;
	struct strvec sv = STRVEC_INIT;
	uint64_t x;
	int r;
	if ((r = rd_str(c, &s)) || (r = rd_str(c, &s)))   /* deriver, narHash */
		goto out;
	if (s.len != 64 || strspn(s.buf, "0123456789abcdef") != 64) {
		r = fail(c, "bad NAR hash for %s: '%s'", path, s.buf);
		goto out;
	}
	if ((r = rd_strs(c, &sv)) || (r = rd_u64(c, &x)) || (r = rd_u64(c, &x)) ||
	    (r = rd_u64(c, &x)))
		goto out;
	strvec_clear(&sv);
	if ((r = rd_strs(c, &sv)) || (r = rd_str(c, &s)))   /* sigs, ca */
		goto out;
out:
	strbuf_release(&s);
	strvec_clear(&sv);
	return r;
}

static int op_is_valid(struct client *c, const char *path, uint64_t expect)
{
	uint64_t v;
	int r;
	cix_wire_write_u64(c->w, CIX_OP_IS_VALID_PATH);
	cix_wire_write_str(c->w, path);
	if ((r = flush(c)) || (r = stderr_frames(c)) || (r = rd_u64(c, &v)))
		return r;
	return v == expect ? 0 : fail(c, "IsValidPath %s: %llu", path, (unsigned long long)v);
}

static int op_query_info(struct client *c, const char *path)
{
	uint64_t found;
	int r;
	cix_wire_write_u64(c->w, CIX_OP_QUERY_PATH_INFO);
	cix_wire_write_str(c->w, path);
	if ((r = flush(c)) || (r = stderr_frames(c)) || (r = rd_u64(c, &found)))
		return r;
	if (found != 1)
		return fail(c, "QueryPathInfo %s: not found", path);
	return read_info(c, path);
}

static int op_referrers(struct client *c, const char *path)
{
	struct strvec sv = STRVEC_INIT;
	int r;
	cix_wire_write_u64(c->w, CIX_OP_QUERY_REFERRERS);
	cix_wire_write_str(c->w, path);
	if (!(r = flush(c)) && !(r = stderr_frames(c)))
		r = rd_strs(c, &sv);
	strvec_clear(&sv);
	return r;
}

static void nar_str(struct strbuf *sb, const void *p, size_t n)
{
	static const char zero[8];
	unsigned char b[8];
	cix_put_u64le(b, n);
	strbuf_add(sb, b, 8);
	strbuf_add(sb, p, n);
	strbuf_add(sb, zero, (8 - n % 8) % 8);
}

/* AddToStore of distinct contents; the reply must be the path computed here. */
static int op_add(struct client *c, unsigned i, int text)
{
	struct strbuf name = STRBUF_INIT, data = STRBUF_INIT, want = STRBUF_INIT,
		      got = STRBUF_INIT;
	struct cix_hash h;
	struct cix_err err = { 0 };
	const char *ref = paths.v[(c->id * 7 + i) % paths.nr];
	int r;

	strbuf_addf(&name, "bench-%s-%u-%u%s", tag, c->id, i, text ? ".txt" : "");
	strbuf_addf(&data, "%s: client %u, operation %u\n", tag, c->id, i);
	if (text)
		strbuf_addf(&data, "refers to %s\n", ref);
	while (data.len < 300)
		strbuf_addstr(&data, "Lorem ipsum dolor sit amet, consectetur adipiscing elit.\n");
	if (!text) {
		/* The NAR of a regular file holding data. */
		struct strbuf nar = STRBUF_INIT;
		static const char *const toks[] = { "nix-archive-1", "(", "type", "regular",
						    "contents" };
		for (size_t k = 0; k < ARRAY_SIZE(toks); k++)
			nar_str(&nar, toks[k], strlen(toks[k]));
		nar_str(&nar, data.buf, data.len);
		nar_str(&nar, ")", 1);
		strbuf_release(&data);
		data = nar;
	}
	cix_hash_buf(CIX_HASH_SHA256, data.buf, data.len, &h);
	r = text ? cix_store_path_make_text(&want, store_dir, name.buf, &h, &ref, 1, &err)
		 : cix_store_path_make_fixed(&want, store_dir, name.buf, 1, &h, &err);
	if (r < 0) {
		r = fail(c, "%s", err.msg);
		goto out;
	}

	cix_wire_write_u64(c->w, CIX_OP_ADD_TO_STORE);
	cix_wire_write_str(c->w, name.buf);
	cix_wire_write_str(c->w, text ? "text:sha256" : "fixed:r:sha256");
	cix_wire_write_strings(c->w, text ? &ref : NULL, text ? 1 : 0);
	cix_wire_write_u64(c->w, 0);   /* repair */
	cix_wire_write_u64(c->w, data.len);
	cix_wire_write(c->w, data.buf, data.len);
	cix_wire_write_u64(c->w, 0);
	if ((r = flush(c)) || (r = stderr_frames(c)) || (r = rd_str(c, &got)) ||
	    (r = read_info(c, got.buf)))
		goto out;
	if (strcmp(got.buf, want.buf)) {
		r = fail(c, "AddToStore gave %s, expected %s", got.buf, want.buf);
		goto out;
	}
	strvec_push(&c->added, got.buf);
out:
	strbuf_release(&name);
	strbuf_release(&data);
	strbuf_release(&want);
	strbuf_release(&got);
	return r;
}

static int run_client(struct client *c)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	struct strbuf bogus = STRBUF_INIT;
	int fd, r = 0;

	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return fail(c, "socket: %s", strerror(errno));
	strcpy(addr.sun_path, sock_path);
	if (connect(fd, (struct sockaddr *)&addr, sizeof(addr)) < 0) {
		close(fd);
		return fail(c, "connect: %s", strerror(errno));
	}
	c->w = xmalloc(sizeof(*c->w));
	cix_wire_init(c->w, fd);
	/* A valid-looking path that is not in the store. */
	strbuf_addf(&bogus, "%s/00000000000000000000000000000000-bench-%u", store_dir, c->id);
	if (!(r = handshake(c))) {
		for (unsigned i = 0; !r && i < nr_ops; i++) {
			const char *p = paths.v[(c->id * 131 + i * 17) % paths.nr];
			if (only_query_info) {
				r = op_query_info(c, p);
				continue;
			}
			if (add_every && i % add_every == add_every - 1) {
				r = op_add(c, i, (i / add_every) % 2);
				continue;
			}
			switch (i % 5) {
			case 0: r = op_is_valid(c, p, 1); break;
			case 1: r = op_is_valid(c, bogus.buf, 0); break;
			case 2: case 3: r = op_query_info(c, p); break;
			default: r = op_referrers(c, p); break;
			}
		}
	}
	cix_wire_release(c->w);
	free(c->w);
	close(fd);
	strbuf_release(&bogus);
	return r;
}

static void *client_main(void *arg)
{
	run_client(arg);
	return NULL;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static unsigned number(const char *s)
{
	char *end;
	unsigned long v = strtoul(s, &end, 10);
	if (!*s || *end || v > 1000000) {
		fprintf(stderr, "daemon-load: bad number '%s'\n", s);
		exit(2);
	}
	return (unsigned)v;
}

int main(int argc, char **argv)
{
	const char *out_file = NULL;
	struct strbuf line = STRBUF_INIT;
	int opt, bad = 0;

	while ((opt = getopt(argc, argv, "c:n:a:t:o:Q")) != -1) {
		switch (opt) {
		case 'c': nr_clients = number(optarg); break;
		case 'n': nr_ops = number(optarg); break;
		case 'a': add_every = number(optarg); break;
		case 't': tag = optarg; break;
		case 'o': out_file = optarg; break;
		case 'Q': only_query_info = 1; break;
		default: bad = 1;
		}
	}
	if (bad || argc - optind != 3 || !nr_clients) {
		fprintf(stderr, "usage: daemon-load [-c CLIENTS] [-n OPS] [-a ADD-EVERY] [-t TAG] "
				"[-o FILE] [-Q] SOCKET STOREDIR PATHS-FILE\n");
		return 2;
	}
	sock_path = argv[optind];
	store_dir = argv[optind + 1];
	struct sockaddr_un addr;
	if (strlen(sock_path) >= sizeof(addr.sun_path)) {
		fprintf(stderr, "daemon-load: socket path too long\n");
		return 2;
	}
	FILE *f = fopen(argv[optind + 2], "r");
	if (!f) {
		fprintf(stderr, "daemon-load: cannot open '%s': %s\n", argv[optind + 2],
			strerror(errno));
		return 1;
	}
	char buf[4096];
	while (fgets(buf, sizeof(buf), f)) {
		buf[strcspn(buf, "\n")] = '\0';
		if (*buf)
			strvec_push(&paths, buf);
	}
	fclose(f);
	if (!paths.nr) {
		fprintf(stderr, "daemon-load: no paths in '%s'\n", argv[optind + 2]);
		return 1;
	}
	cix_hash_global_init();

	struct client *cl = xcalloc(nr_clients, sizeof(*cl));
	double t0 = now();
	for (unsigned i = 0; i < nr_clients; i++) {
		cl[i].id = i;
		strbuf_init(&cl[i].why, 0);
		if (pthread_create(&cl[i].th, NULL, client_main, &cl[i])) {
			fprintf(stderr, "daemon-load: cannot start a thread\n");
			return 1;
		}
	}
	for (unsigned i = 0; i < nr_clients; i++)
		pthread_join(cl[i].th, NULL);
	double t1 = now();

	struct strvec all = STRVEC_INIT;
	for (unsigned i = 0; i < nr_clients; i++) {
		if (cl[i].why.len) {
			fprintf(stderr, "daemon-load: %s\n", cl[i].why.buf);
			bad = 1;
		}
		for (size_t k = 0; k < cl[i].added.nr; k++)
			strvec_push(&all, cl[i].added.v[k]);
		strvec_clear(&cl[i].added);
		strbuf_release(&cl[i].why);
	}
	free(cl);
	if (bad)
		return 1;
	if (out_file) {
		if (all.nr)
			qsort(all.v, all.nr, sizeof(*all.v), cmp_str);
		if (!(f = fopen(out_file, "w"))) {
			fprintf(stderr, "daemon-load: cannot create '%s'\n", out_file);
			return 1;
		}
		for (size_t k = 0; k < all.nr; k++)
			fprintf(f, "%s\n", all.v[k]);
		if (fclose(f)) {
			fprintf(stderr, "daemon-load: cannot write '%s'\n", out_file);
			return 1;
		}
	}
	printf("%llu %.6f\n", (unsigned long long)nr_clients * nr_ops, t1 - t0);
	strvec_clear(&all);
	strvec_clear(&paths);
	strbuf_release(&line);
	return 0;
}
