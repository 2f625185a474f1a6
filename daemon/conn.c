/* conn.c - one client's connection: handshake, trust, the operation loop */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "daemon.h"
#include "encoding.h"
#include "quote.h"
#include "store-path.h"
#include "util.h"

#include <errno.h>
#include <pwd.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

/* A refused client has this long (ms) to shake hands and hear why. */
#define REFUSE_TIMEOUT_MS 5000
/*
 * A client that sends nothing for this long (ms) loses the read
 * transaction kept for its queries: a snapshot kept longer by an idle
 * client would keep the WAL from being checkpointed past it.
 */
#define SNAPSHOT_IDLE_MS 100

int conn_read_path(struct conn *c, struct strbuf *out, struct cix_err *err)
{
	int r = cix_wire_read_string(&c->w, out, CIX_WIRE_MAX_PATH, err);
	if (r < 0)
		return r;
	if (memchr(out->buf, '\0', out->len))
		return cix_error(err, -CIX_EFORMAT, "path holds a NUL byte");
	return cix_store_check_path(c->s, out->buf, err);
}

int conn_read_paths(struct conn *c, struct strvec *out, struct cix_err *err)
{
	int r = cix_wire_read_strings(&c->w, out, CIX_WIRE_MAX_LIST, CIX_WIRE_MAX_PATH, err);
	for (size_t i = 0; !r && i < out->nr; i++)
		r = cix_store_check_path(c->s, out->v[i], err);
	return r;
}

/*
 * The data of the older protocols' tunnel: the daemon asks for up to n
 * bytes with STDERR_READ, the client answers with a string.
 */
ssize_t conn_tunnel_read(void *opaque, void *buf, size_t len)
{
	struct conn_tunnel *t = opaque;
	if (t->pos == t->chunk.len) {
		int r;
		cix_wire_write_u64(&t->c->w, CIX_STDERR_READ);
		cix_wire_write_u64(&t->c->w, 65536);
		if ((r = cix_wire_flush(&t->c->w, &t->err)) < 0 ||
		    (r = cix_wire_read_string(&t->c->w, &t->chunk, 65536, &t->err)) < 0)
			return r;
		t->pos = 0;
		if (!t->chunk.len)
			return 0;
	}
	size_t k = t->chunk.len - t->pos < len ? t->chunk.len - t->pos : len;
	memcpy(buf, t->chunk.buf + t->pos, k);
	t->pos += k;
	return (ssize_t)k;
}

void conn_last(struct conn *c)
{
	cix_wire_stderr_last(&c->w);
}

int conn_need_trust(struct conn *c, const char *what, struct cix_err *err)
{
	if (c->trusted)
		return 0;
	return cix_error(err, -EPERM, "you are not privileged to %s", what);
}

void conn_write_path_info(struct conn *c, const struct cix_path_info *info)
{
	struct strbuf hex = STRBUF_INIT;
	cix_wire_write_str(&c->w, info->deriver);
	cix_base16_encode(&hex, info->nar_hash.bytes, info->nar_hash.len);
	cix_wire_write_str(&c->w, hex.buf);
	cix_wire_write_strings(&c->w, (const char *const *)info->refs, info->nr_refs);
	cix_wire_write_u64(&c->w, (uint64_t)info->reg_time);
	cix_wire_write_u64(&c->w, info->nar_size);
	if (c->minor >= 16) {
		cix_wire_write_u64(&c->w, info->ultimate != 0);
		/* signatures, space-separated in the database */
		struct strvec sigs = STRVEC_INIT;
		if (info->sigs) {
			char *copy = xstrdup(info->sigs), *save = NULL;
			for (char *t = strtok_r(copy, " ", &save); t; t = strtok_r(NULL, " ", &save))
				strvec_push(&sigs, t);
			free(copy);
		}
		cix_wire_write_strings(&c->w, (const char *const *)sigs.v, sigs.nr);
		strvec_clear(&sigs);
		cix_wire_write_str(&c->w, info->ca);
	}
	strbuf_release(&hex);
}

static int handshake(struct conn *c, struct cix_err *err)
{
	uint64_t magic, version, x;
	int r;
	if ((r = cix_wire_read_u64(&c->w, &magic, err)) < 0)
		return r;
	if (magic != CIX_WORKER_MAGIC_1)
		return cix_error(err, -CIX_EFORMAT, "protocol mismatch");
	cix_wire_write_u64(&c->w, CIX_WORKER_MAGIC_2);
	cix_wire_write_u64(&c->w, CIX_PROTOCOL_VERSION);
	if ((r = cix_wire_flush(&c->w, err)) < 0 ||
	    (r = cix_wire_read_u64(&c->w, &version, err)) < 0)
		return r;
	if (version < CIX_PROTOCOL_OLDEST || CIX_PROTOCOL_MAJOR(version) != CIX_PROTOCOL_MAJOR(CIX_PROTOCOL_VERSION))
		return cix_error(err, -CIX_EUNSUPPORTED, "the client's protocol version %#llx is not supported",
				 (unsigned long long)version);
	c->minor = CIX_PROTOCOL_MINOR(version) < CIX_PROTOCOL_MINOR(CIX_PROTOCOL_VERSION)
		   ? CIX_PROTOCOL_MINOR(version) : CIX_PROTOCOL_MINOR(CIX_PROTOCOL_VERSION);
	daemon_guix_handshake(c, version);
	if (c->minor >= 14) {
		/* obsolete CPU affinity: a flag, then the CPU if set */
		if ((r = cix_wire_read_u64(&c->w, &x, err)) < 0 ||
		    (x && (r = cix_wire_read_u64(&c->w, &x, err)) < 0))
			return r;
	}
	if (c->minor >= 11 && (r = cix_wire_read_u64(&c->w, &x, err)) < 0)
		return r;   /* obsolete reserveSpace */
	if (c->minor >= 33)
		cix_wire_write_str(&c->w, "2.8.0");
	return 0;   /* the caller ends it: STDERR_LAST, or an error */
}

/* The operation of code (NULL: none), and whether it only reads the database. */
static const struct op *find_op(const struct conn *c, uint64_t code, int *reads_db)
{
	static const struct op *const tables[] = {
		daemon_read_ops,   /* first: reads_db */
		daemon_query_ops, daemon_add_ops, daemon_add_nar_ops, daemon_build_ops,
		daemon_build_drv_ops, daemon_gc_ops, daemon_log_ops,
		daemon_guix_ops,   /* last: for Guix's clients only */
	};
	for (size_t t = 0; t < ARRAY_SIZE(tables) - !c->guix; t++)
		for (const struct op *o = tables[t]; o->fn; o++)
			if (o->code == code) {
				*reads_db = t == 0;
				return o;
			}
	return NULL;
}

/* Milliseconds the client may idle between operations (0: for ever). */
static int idle_ms(const struct conn *c)
{
	const struct daemon_settings *set = c->settings;
	return (int)(c->trusted ? set->trusted_idle_timeout : set->idle_timeout) * 1000;
}

/* Wait for the next request: 1, or 0 (hung up), or negative (idled too long). */
static int wait_request(struct conn *c, struct cix_err *err)
{
	if (c->snapshot) {
		int r = cix_wire_wait(&c->w, SNAPSHOT_IDLE_MS, err);
		if (r != -ETIMEDOUT)
			return r;
		cix_db_snapshot_release(c->s->db);
		c->snapshot = 0;
	}
	return cix_wire_wait(&c->w, idle_ms(c), err);
}

/*
 * Queries are served in one read transaction while nothing is committed
 * (the snapshot's header check costs less than a transaction of each
 * query's own); anything else in none.
 */
static void snapshot_for(struct conn *c, int reads_db)
{
	if (reads_db)
		c->snapshot = cix_db_snapshot_hold(c->s->db);
	else if (c->snapshot) {
		cix_db_snapshot_release(c->s->db);
		c->snapshot = 0;
	}
}

static int serve_ops(struct conn *c, struct cix_err *err)
{
	for (;;) {
		uint64_t code;
		int reads_db = 0;
		int r = wait_request(c, err);
		if (r <= 0)
			return r;   /* the client hung up, or idled too long */
		cix_wire_reset_budget(&c->w);
		if ((r = cix_wire_read_u64(&c->w, &code, err)) < 0)
			return r;
		const struct op *o = find_op(c, code, &reads_db);
		if (c->settings->debug)
			fprintf(stderr, "cix-daemon: uid %u: %s\n", (unsigned)c->uid,
				cix_worker_op_name(code) ? cix_worker_op_name(code) : "(unknown)");
		if (!o) {
			const char *name = cix_worker_op_name(code);
			if (name)
				cix_error(err, -CIX_EUNSUPPORTED, "invalid operation %llu (%s is not served)",
					  (unsigned long long)code, name);
			else
				cix_error(err, -CIX_EUNSUPPORTED, "invalid operation %llu",
					  (unsigned long long)code);
			cix_wire_stderr_error(&c->w, c->minor, err->msg, 1);
			cix_wire_flush(&c->w, NULL);
			return -CIX_EUNSUPPORTED;
		}
		snapshot_for(c, reads_db);
		/*
		 * The store's temporary directory is held while an operation
		 * that may write runs, and let go after each: once a client
		 * has its reply, no worker of its keeps STORE/.cix-tmp there
		 * (Nix's tests remove the store's directory right after a
		 * collection). A read-only store says so when written to.
		 */
		if (!reads_db)
			cix_store_need_tmp(c->s, NULL);
		size_t before = c->w.wbuf.len;
		struct cix_err e = { 0 };
		c->error_status = 1;
		r = o->fn(c, &e);
		if (r < 0) {
			if (c->broken || c->w.broken || c->w.eof) {
				/*
				 * A request that could not be read whole ends the
				 * connection without a word, as Nix's daemon does;
				 * one the operation could not finish reading (a
				 * NAR refused half-way, a request too large for
				 * the memory budget) is told why first.
				 */
				if ((!c->w.broken || c->w.over_budget) && !c->w.eof) {
					cix_wire_stderr_error(&c->w, c->minor, e.msg,
							      c->error_status);
					cix_wire_flush(&c->w, NULL);
				}
				*err = e;
				return r;
			}
			/* Drop what the operation began of its reply. */
			strbuf_setlen(&c->w.wbuf, before);
			cix_wire_stderr_error(&c->w, c->minor, e.msg, c->error_status);
		}
		cix_store_close_tmp(c->s);
		if ((r = cix_wire_flush(&c->w, err)) < 0)
			return r;
	}
}

_Static_assert(offsetof(struct conn, w) == 0, "the wire comes first in a connection");

/*
 * Zero all of c but its wire's read buffer, which cix_wire_init leaves
 * alone: 64 KiB of untouched stack in a worker fresh from fork.
 */
static void conn_init(struct conn *c, int in_fd, int out_fd,
		      const struct daemon_settings *settings)
{
	memset((char *)c + sizeof(c->w), 0, sizeof(*c) - sizeof(c->w));
	cix_wire_init_pair(&c->w, in_fd, out_fd);
	c->settings = settings;
}

int daemon_serve(int fd, const struct daemon_settings *settings,
		 const struct cix_conf *conf, int clean)
{
	struct ucred cred;
	socklen_t len = sizeof(cred);

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) < 0) {
		fprintf(stderr, "cix-daemon: cannot get the peer's credentials: %s\n", strerror(errno));
		return 1;
	}
	return daemon_serve_as(fd, fd, &cred, settings, conf, clean);
}

void conn_set_builders(struct conn *c, const char *spec)
{
	struct cix_err err = { 0 };
	cix_machines_release(&c->machines);
	c->build.machines = NULL;
	if (spec && cix_machines_from_spec(&c->machines, spec, &err) < 0) {
		cix_machines_release(&c->machines);
		fprintf(stderr, "cix-daemon: %s: no builds are offloaded\n", err.msg);
	}
	if (c->machines.nr)
		c->build.machines = &c->machines;
}

int daemon_serve_as(int in_fd, int out_fd, const struct ucred *peer,
		    const struct daemon_settings *settings, const struct cix_conf *conf,
		    int clean)
{
	struct conn c;
	struct cix_err err = { 0 };
	int r;

	conn_init(&c, in_fd, out_fd, settings);
	c.w.budget = settings->max_request_memory;
	c.uid = peer->uid;
	c.gid = peer->gid;
	c.pid = peer->pid;
	c.trusted = c.uid == 0 || daemon_user_in(&conf->trusted_users, c.uid, c.gid);
	c.build.max_jobs = settings->max_jobs;
	c.build.cores = settings->cores;
	c.build.max_silent = settings->max_silent;
	c.build.timeout = settings->timeout;
	c.build.limits = &settings->limits;
	c.build.log_fd = -1;
	c.build.no_file_urls = !c.trusted;
	c.conf = conf;
	c.trusted_set.keep_outputs = c.trusted_set.keep_derivations = -1;
	if (!settings->no_substitutes && settings->substitute_urls)
		c.substitute_urls = xstrdup(settings->substitute_urls);
	conn_set_builders(&c, settings->builders);

	/* A client that says nothing at all is idle too. */
	int mid_message_ms = c.w.timeout_ms;
	if (idle_ms(&c) && idle_ms(&c) < mid_message_ms)
		c.w.timeout_ms = idle_ms(&c);
	r = handshake(&c, &err);
	c.w.timeout_ms = mid_message_ms;
	/* A client gone before it said a word (a port probe, ssh cut short): no error. */
	if (r < 0 && c.w.eof && !c.w.bytes_in) {
		r = 0;
		goto out;
	}
	if (r < 0)
		goto out;
	/*
	 * The client waits for the end of the handshake before it sends
	 * anything more: a refusal sent in its place is shown to the user,
	 * and nothing unread is left to reset the connection.
	 */
	if (!c.trusted && !daemon_user_in(&conf->allowed_users, c.uid, c.gid))
		r = cix_error(&err, -EPERM, "user %u is not allowed to connect to the cix daemon",
			      (unsigned)c.uid);
	else if (clean)
		r = cix_store_open(NULL, NULL, &c.s, &err);
	else
		r = cix_store_open_no_clean(NULL, NULL, &c.s, &err);
	if (r < 0) {
		cix_wire_stderr_error(&c.w, c.minor, err.msg, 1);
		cix_wire_flush(&c.w, NULL);
		goto out;
	}
	/*
	 * The state's directories may have been removed since the daemon
	 * started (Nix's daemon makes them for each connection too).
	 */
	if (geteuid() == 0) {
		struct cix_err e = { 0 };
		if (daemon_profile_dirs(c.s->state_dir, &e) < 0)
			fprintf(stderr, "cix-daemon: %s\n", e.msg);
		/* As Nix's store: the identical files' directory is always there. */
		mkdirat(c.s->store_fd, ".links", 0755);
	}
	daemon_user_profile_dir(c.s->state_dir, c.uid, c.gid);
	conn_last(&c);
	if ((r = cix_wire_flush(&c.w, &err)) < 0)
		goto out;
	if (settings->debug)
		fprintf(stderr, "cix-daemon: connection from uid %u pid %ld%s\n", (unsigned)c.uid,
			(long)c.pid, c.trusted ? " (trusted)" : "");
	r = serve_ops(&c, &err);
out:
	if (r < 0 && settings->debug)
		fprintf(stderr, "cix-daemon: connection from uid %u ended: %s\n",
			(unsigned)c.uid, err.msg);
	/* Closing the store drops the connection's temporary roots. */
	cix_store_close(c.s);
	cix_wire_release(&c.w);
	free(c.substitute_urls);
	cix_machines_release(&c.machines);
	free(c.trusted_set.post_build_hook);
	free(c.trusted_set.secret_key_files);
	return r < 0 ? 1 : 0;
}

int daemon_refuse(int fd, const char *why)
{
	struct conn c = { 0 };
	struct cix_err err = { 0 };
	cix_wire_init(&c.w, fd);
	c.w.timeout_ms = REFUSE_TIMEOUT_MS;
	c.w.budget = 4096;
	/* As for the users not allowed: the refusal in place of the handshake's end. */
	if (handshake(&c, &err) == 0) {
		cix_wire_stderr_error(&c.w, c.minor, why, 1);
		cix_wire_flush(&c.w, NULL);
	}
	cix_wire_release(&c.w);
	return 1;
}
