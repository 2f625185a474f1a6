/* ops-build.c - the daemon's builds, and the store's upkeep operations */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "build-results.h"
#include "daemon.h"
#include "drv.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* "DRV!OUT,..." or "DRV!*" or a plain path: the path part in out. */
static int derived_path(struct conn *c, const char *s, struct strbuf *out, int *is_drv,
			struct cix_err *err)
{
	const char *bang = strchr(s, '!');
	strbuf_reset(out);
	strbuf_add(out, s, bang ? (size_t)(bang - s) : strlen(s));
	int r = cix_store_check_path(c->s, out->buf, err);
	if (r < 0)
		return r;
	*is_drv = out->len > 4 && !strcmp(out->buf + out->len - 4, ".drv");
	if (bang && !*is_drv)
		return cix_error(err, -CIX_EINVAL, "'%s' is not a derivation", out->buf);
	return 0;
}

/*
 * Builder output, from the build's pipe to the client: line by line as
 * results (build log lines) of a "building" activity, which the client
 * shows as Nix's daemon's; or, for clients older than 1.20, as text.
 */
struct log_pump {
	struct conn *c;
	int fd;
	uint64_t activity;
	int gone;             /* the client left; the build goes on */
};

static void send_line(struct log_pump *p, const char *line, size_t len)
{
	struct strbuf l = STRBUF_INIT;
	if (p->gone)
		return;
	strbuf_add(&l, line, len);
	if (p->c->minor >= 20) {
		struct cix_wire_field f = { .is_string = 1, .s = l.buf };
		cix_wire_result(&p->c->w, p->c->minor, p->activity, 101, &f, 1);
	} else {
		strbuf_addch(&l, '\n');
		cix_wire_stderr_next(&p->c->w, l.buf);
	}
	strbuf_release(&l);
	if (cix_wire_flush(&p->c->w, NULL) < 0)
		p->gone = 1;
}

static void *pump(void *arg)
{
	struct log_pump *p = arg;
	struct strbuf pending = STRBUF_INIT;
	char buf[4096];
	ssize_t n;
	while ((n = read(p->fd, buf, sizeof(buf))) > 0 || (n < 0 && errno == EINTR)) {
		if (n <= 0)
			continue;
		strbuf_add(&pending, buf, (size_t)n);
		size_t start = 0;
		for (size_t i = 0; i < pending.len; i++)
			if (pending.buf[i] == '\n') {
				send_line(p, pending.buf + start, i - start);
				start = i + 1;
			}
		/* A line longer than 64 KiB goes out in pieces. */
		if (pending.len - start > 65536) {
			send_line(p, pending.buf + start, pending.len - start);
			start = pending.len;
		}
		memmove(pending.buf, pending.buf + start, pending.len - start);
		strbuf_setlen(&pending, pending.len - start);
	}
	if (pending.len)
		send_line(p, pending.buf, pending.len);
	strbuf_release(&pending);
	return NULL;
}

/*
 * A client that hangs up while its build runs wants it no more: the
 * worker ends, and with it the build (the sandbox dies with its caller,
 * locks are released, temporaries removed by the next user of the store).
 */
struct hangup_watch {
	int client_fd, stop_fd;
};

static void *watch_hangup(void *arg)
{
	struct hangup_watch *h = arg;
	struct pollfd p[2] = {
		{ .fd = h->client_fd, .events = POLLRDHUP },
		{ .fd = h->stop_fd, .events = POLLIN },
	};
	for (;;) {
		int n = poll(p, 2, -1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n > 0 && (p[1].revents & (POLLIN | POLLHUP)))
			return NULL;
		if (n > 0 && (p[0].revents & (POLLRDHUP | POLLHUP | POLLERR)))
			_exit(1);
		if (n < 0)
			return NULL;
	}
}

/*
 * Substitute the plain paths, then build drvs[0..n) with the client's
 * options (and caches), streaming their output.
 */
int daemon_build(struct conn *c, const struct strvec *plain, const char *const *drvs, size_t n,
		 struct cix_drv *basic, struct cix_err *err)
{
	struct cix_build_opts o = c->build;
	struct cix_caches cs = { 0 };
	struct log_pump p = { c, -1, ((uint64_t)getpid() << 32) | ++c->next_activity, 0 };
	struct strbuf text = STRBUF_INIT;
	pthread_t th;
	int pfd[2], r;
	if (!n && !plain->nr)
		return 0;
	if (pipe2(pfd, O_CLOEXEC) < 0)
		return cix_error_errno(err, -errno, "cannot create a pipe");
	p.fd = pfd[0];
	o.log_fd = pfd[1];
	struct daemon_build_hook hook = { c, pfd[1] };
	daemon_build_hook_set(&hook, &o);
	if (n == 1)
		strbuf_addf(&text, "building '%s'", drvs[0]);
	else if (n)
		strbuf_addf(&text, "building %zu derivations", n);
	else
		strbuf_addf(&text, "substituting %zu paths", plain->nr);
	struct cix_wire_field fields[4] = {
		{ 1, 0, n ? drvs[0] : plain->v[0] }, { 1, 0, "" }, { 0, 1, NULL }, { 0, 1, NULL },
	};
	cix_wire_start_activity(&c->w, c->minor, p.activity, 3, 105, text.buf, fields, 4, 0);
	cix_wire_flush(&c->w, NULL);
	if (pthread_create(&th, NULL, pump, &p)) {
		close(pfd[0]);
		close(pfd[1]);
		strbuf_release(&text);
		return cix_error(err, -EAGAIN, "cannot create a thread");
	}
	int stop[2] = { -1, -1 };
	pthread_t wth;
	struct hangup_watch hw = { c->w.fd, -1 };
	int watching = pipe2(stop, O_CLOEXEC) == 0;
	if (watching) {
		hw.stop_fd = stop[0];
		watching = pthread_create(&wth, NULL, watch_hangup, &hw) == 0;
	}
	r = conn_substitute_paths(c, (const char *const *)plain->v, plain->nr, o.log_fd, err);
	if (r >= 0 && (r = conn_subst_setup(c, &cs, o.log_fd, err)) >= 0) {
		o.subst = &cs.so;
		o.fallback = c->fallback;
		r = basic ? cix_build_basic(c->s, drvs[0], basic, &o, err)
			  : n ? cix_build_derivations(c->s, drvs, n, &o, err) : 0;
	}
	cix_caches_close(&cs);
	if (watching) {
		close(stop[1]);
		stop[1] = -1;
		pthread_join(wth, NULL);
	}
	if (stop[0] >= 0)
		close(stop[0]);
	if (stop[1] >= 0)
		close(stop[1]);
	close(pfd[1]);
	pthread_join(th, NULL);
	close(pfd[0]);
	cix_wire_stop_activity(&c->w, c->minor, p.activity);
	cix_wire_flush(&c->w, NULL);
	strbuf_release(&text);
	return r;
}

/*
 * Does the target ask for a derivation's outputs? "DRV!OUT" does; a plain
 * DRV does too from clients older than 1.30 (and Guix's), which name
 * derivations to build that way; newer ones mean the file itself.
 */
static int wants_outputs(const struct conn *c, const char *target)
{
	return strchr(target, '!') || c->minor < 30;
}

/* Read the DerivedPaths and check them; derivations go to drvs. */
static int read_targets(struct conn *c, struct strvec *targets, struct strvec *drvs,
			struct strvec *plain, struct cix_err *err)
{
	struct strbuf p = STRBUF_INIT;
	int r = cix_wire_read_strings(&c->w, targets, CIX_WIRE_MAX_LIST, CIX_WIRE_MAX_PATH + 1024, err);
	for (size_t i = 0; !r && i < targets->nr; i++) {
		int is_drv;
		if ((r = derived_path(c, targets->v[i], &p, &is_drv, err)) < 0)
			break;
		if (is_drv && wants_outputs(c, targets->v[i]))
			strvec_push(drvs, p.buf);
		else if ((r = cix_db_is_valid(c->s->db, p.buf, err)) == 0)
			strvec_push(plain, p.buf);   /* substituted, if it can be */
		else if (r > 0)
			r = 0;
	}
	strbuf_release(&p);
	return r;
}

int daemon_read_build_mode(struct conn *c, struct cix_err *err)
{
	uint64_t mode = 0;
	int r = c->minor >= 15 ? cix_wire_read_u64(&c->w, &mode, err) : 0;
	if (r < 0)
		return r;
	if (mode == 1 && (r = conn_need_trust(c, "repair paths", err)) < 0)
		return r;
	c->build.repair = mode == 1;
	c->build.check = mode == 2;
	return 0;
}

static int op_build_paths(struct conn *c, struct cix_err *err)
{
	struct strvec targets = STRVEC_INIT, drvs = STRVEC_INIT, plain = STRVEC_INIT;
	int r = read_targets(c, &targets, &drvs, &plain, err);
	if (!r)
		r = daemon_read_build_mode(c, err);
	if (!r) {
		r = daemon_build(c, &plain, (const char *const *)drvs.v, drvs.nr, NULL, err);
		daemon_guix_build_failed(c, r);
	}
	c->build.check = c->build.repair = 0;
	if (!r) {
		conn_last(c);
		cix_wire_write_u64(&c->w, 1);
	}
	strvec_clear(&targets);
	strvec_clear(&drvs);
	strvec_clear(&plain);
	return r;
}

/*
 * The targets' derivations: their wanted outputs, and whether these are
 * all valid already (a check rebuilds them: never "already valid").
 */
static int load_targets(struct conn *c, const struct strvec *targets, struct daemon_target *ts,
			struct cix_err *err)
{
	struct cix_drv_hasher *h = cix_store_drv_hasher(c->s);
	struct strbuf p = STRBUF_INIT;
	int r = 0;
	for (size_t i = 0; !r && i < targets->nr; i++) {
		int is_drv;
		if ((r = derived_path(c, targets->v[i], &p, &is_drv, err)) < 0)
			break;
		if (!is_drv || !wants_outputs(c, targets->v[i]))
			continue;
		/* One not valid is the build's to refuse, in its result. */
		strbuf_addstr(&ts[i].drv_path, p.buf);
		if ((r = cix_db_is_valid(c->s->db, p.buf, err)) <= 0)
			continue;
		if ((r = daemon_target_load(c->s, h, &ts[i], p.buf, err)) < 0)
			break;
		if ((r = daemon_target_valid(c->s, &ts[i], err)) > 0 && !c->build.check)
			ts[i].status = DAEMON_BR_ALREADY_VALID;
		r = r < 0 ? r : 0;
	}
	strbuf_release(&p);
	cix_drv_hasher_free(h);
	return r;
}

/*
 * After the build: what became of each target. A derivation whose
 * outputs are valid now was built, unless it was being checked: then the
 * build's own result says.
 */
static void settle_targets(struct conn *c, const struct strvec *targets, struct daemon_target *ts,
			   int br, const struct cix_err *berr)
{
	struct strbuf p = STRBUF_INIT;
	for (size_t i = 0; i < targets->nr; i++) {
		struct daemon_target *t = &ts[i];
		int is_drv, ok;
		if (t->status == DAEMON_BR_ALREADY_VALID)
			continue;
		if (t->is_drv) {
			ok = c->build.check ? br >= 0 : daemon_target_valid(c->s, t, NULL) > 0;
			t->status = ok ? DAEMON_BR_BUILT : daemon_build_status(br < 0 ? br : -EIO);
		} else {
			ok = derived_path(c, t->target, &p, &is_drv, NULL) == 0 &&
			     cix_db_is_valid(c->s->db, p.buf, NULL) > 0;
			t->status = ok ? DAEMON_BR_ALREADY_VALID : DAEMON_BR_MISC_FAILURE;
		}
		if (!ok)
			t->msg = br < 0 ? berr->msg : "the path could not be made valid";
	}
	strbuf_release(&p);
}

/* BuildPathsWithResults: one BuildResult per target, failures included. */
static int op_build_paths_with_results(struct conn *c, struct cix_err *err)
{
	struct strvec targets = STRVEC_INIT, drvs = STRVEC_INIT, plain = STRVEC_INIT;
	struct daemon_build_times times = { 0, 0 };
	struct daemon_target *ts = NULL;
	struct cix_err berr = { 0 };
	int r = read_targets(c, &targets, &drvs, &plain, err), br = 0;
	if (!r)
		r = daemon_read_build_mode(c, err);
	ts = xcalloc(targets.nr ? targets.nr : 1, sizeof(*ts));
	for (size_t i = 0; i < targets.nr; i++)
		daemon_target_init(&ts[i], targets.v[i]);
	if (!r)
		r = load_targets(c, &targets, ts, err);
	if (!r) {
		/* Nothing to say of derivations whose outputs are all there. */
		strvec_clear(&drvs);
		for (size_t i = 0; i < targets.nr; i++)
			if (ts[i].drv_path.len && ts[i].status != DAEMON_BR_ALREADY_VALID)
				strvec_push(&drvs, ts[i].drv_path.buf);
		times.start = time(NULL);
		br = daemon_build(c, &plain, (const char *const *)drvs.v, drvs.nr, NULL, &berr);
		times.stop = time(NULL);
		settle_targets(c, &targets, ts, br, &berr);
	}
	c->build.check = c->build.repair = 0;
	if (!r) {
		conn_last(c);
		cix_wire_write_u64(&c->w, targets.nr);
		for (size_t i = 0; i < targets.nr; i++) {
			cix_wire_write_str(&c->w, targets.v[i]);
			daemon_write_build_result(c, &ts[i], &times);
		}
	}
	for (size_t i = 0; i < targets.nr; i++)
		daemon_target_release(&ts[i]);
	free(ts);
	strvec_clear(&targets);
	strvec_clear(&drvs);
	strvec_clear(&plain);
	return r;
}

static int op_ensure_path(struct conn *c, struct cix_err *err)
{
	struct strbuf p = STRBUF_INIT;
	int r = conn_read_path(c, &p, err);
	if (!r && (r = cix_db_is_valid(c->s->db, p.buf, err)) == 0) {
		const char *one = p.buf;
		if ((r = conn_substitute_paths(c, &one, 1, -1, err)) == 0)
			r = 1;   /* fetched */
	}
	if (r > 0) {
		r = 0;
		conn_last(c);
		cix_wire_write_u64(&c->w, 1);
	}
	strbuf_release(&p);
	return r;
}

/* What building the targets would build and fetch (cix_build_plan). */
static int op_query_missing(struct conn *c, struct cix_err *err)
{
	struct strvec targets = STRVEC_INIT, drvs = STRVEC_INIT, unknown = STRVEC_INIT;
	struct cix_build_missing m = { STRVEC_INIT, STRVEC_INIT, 0, 0 };
	struct cix_build_opts o = c->build;
	struct cix_caches cs = { 0 };
	struct strbuf p = STRBUF_INIT;
	int r = cix_wire_read_strings(&c->w, &targets, CIX_WIRE_MAX_LIST, CIX_WIRE_MAX_PATH + 1024, err);
	if (!r)
		r = conn_subst_setup(c, &cs, -1, err);
	o.subst = &cs.so;
	for (size_t i = 0; !r && i < targets.nr; i++) {
		int is_drv;
		if ((r = derived_path(c, targets.v[i], &p, &is_drv, err)) < 0)
			break;
		if ((r = cix_db_is_valid(c->s->db, p.buf, err)) < 0)
			break;
		if (!r) {
			strvec_push(&unknown, p.buf);
		} else if (is_drv && wants_outputs(c, targets.v[i])) {
			strvec_push(&drvs, p.buf);
		}
		r = 0;
	}
	if (!r)
		r = cix_build_plan(c->s, (const char *const *)drvs.v, drvs.nr, &o, &m, err);
	if (!r) {
		/* Plain paths: fetched, if a cache has them, or unknown. */
		struct cix_subst plan;
		struct strvec still = STRVEC_INIT;
		cix_subst_init(&plan, c->s, &cs.so);
		for (size_t i = 0; i < unknown.nr; i++) {
			size_t before = plan.nr;
			const char *one = unknown.v[i];
			if (cs.so.nr_subs && cix_subst_want(&plan, &one, 1, NULL) > 0) {
				for (size_t k = before; k < plan.nr; k++) {
					const struct cix_narinfo *ni = &plan.items[k].ni;
					strvec_push(&m.fetches, plan.items[k].path);
					m.download_size += ni->has_file_size ? ni->file_size : ni->nar_size;
					m.nar_size += ni->nar_size;
				}
			} else {
				strvec_push(&still, one);
			}
		}
		cix_subst_release(&plan);
		conn_last(c);
		cix_wire_write_strings(&c->w, (const char *const *)m.builds.v, m.builds.nr);
		cix_wire_write_strings(&c->w, (const char *const *)m.fetches.v, m.fetches.nr);
		cix_wire_write_strings(&c->w, (const char *const *)still.v, still.nr);
		cix_wire_write_u64(&c->w, m.download_size);
		cix_wire_write_u64(&c->w, m.nar_size);
		strvec_clear(&still);
	}
	cix_caches_close(&cs);
	strbuf_release(&p);
	strvec_clear(&targets);
	strvec_clear(&drvs);
	strvec_clear(&unknown);
	strvec_clear(&m.builds);
	strvec_clear(&m.fetches);
	return r;
}

/* Findings go to the client as messages, as the CLI prints them. */
static void report_to_client(void *opaque, int is_error, const char *msg)
{
	struct conn *c = opaque;
	struct strbuf m = STRBUF_INIT;
	strbuf_addf(&m, "%s\n", msg);
	cix_wire_stderr_next(&c->w, m.buf);
	strbuf_release(&m);
}

/*
 * Repair through the daemon: the modified path's deriver built again, its
 * output streamed to the client as any build's.
 */
static int repair_for_client(void *opaque, const char *path, struct cix_err *err)
{
	struct conn *c = opaque;
	struct strvec none = STRVEC_INIT;
	struct strbuf drv = STRBUF_INIT;
	int r = cix_build_repair_deriver(c->s, path, &drv, err);
	if (!r) {
		const char *one = drv.buf;
		c->build.repair = 1;
		r = daemon_build(c, &none, &one, 1, NULL, err);
		c->build.repair = 0;
	}
	strbuf_release(&drv);
	return r;
}

static int op_verify_store(struct conn *c, struct cix_err *err)
{
	struct cix_verify_repair fix = { repair_for_client, c };
	int check_contents, repair, r;
	if ((r = cix_wire_read_bool(&c->w, &check_contents, err)) < 0 ||
	    (r = cix_wire_read_bool(&c->w, &repair, err)) < 0)
		return r;
	if (repair && (r = conn_need_trust(c, "repair paths", err)) < 0)
		return r;
	if ((r = cix_store_verify_all(c->s, check_contents, repair ? &fix : NULL, report_to_client,
				      c, err)) < 0)
		return r;
	conn_last(c);
	cix_wire_write_u64(&c->w, (uint64_t)(r > 0));
	return 0;
}

static int op_optimise_store(struct conn *c, struct cix_err *err)
{
	struct cix_store_optimise_stats st = { 0 };
	int r = cix_store_optimise(c->s, &st, err);
	if (!r) {
		struct strbuf m = STRBUF_INIT;
		strbuf_addf(&m, "%.2f MiB freed by hard-linking %llu files\n",
			    (double)st.bytes_freed / (1024 * 1024), (unsigned long long)st.files_linked);
		cix_wire_stderr_next(&c->w, m.buf);
		strbuf_release(&m);
		conn_last(c);
		cix_wire_write_u64(&c->w, 1);
	}
	return r;
}

static int op_add_signatures(struct conn *c, struct cix_err *err)
{
	struct strbuf p = STRBUF_INIT;
	struct strvec sigs = STRVEC_INIT;
	int r = conn_read_path(c, &p, err);
	if (!r)
		r = cix_wire_read_strings(&c->w, &sigs, 64, 1024, err);
	if (!r)
		r = conn_need_trust(c, "add signatures", err);
	if (!r)
		r = daemon_add_signatures(c, p.buf, &sigs, err);
	if (!r) {
		conn_last(c);
		cix_wire_write_u64(&c->w, 1);
	}
	strbuf_release(&p);
	strvec_clear(&sigs);
	return r;
}

const struct op daemon_build_ops[] = {
	{ CIX_OP_BUILD_PATHS, op_build_paths },
	{ CIX_OP_ENSURE_PATH, op_ensure_path },
	{ CIX_OP_OPTIMISE_STORE, op_optimise_store },
	{ CIX_OP_VERIFY_STORE, op_verify_store },
	{ CIX_OP_ADD_SIGNATURES, op_add_signatures },
	{ CIX_OP_QUERY_MISSING, op_query_missing },
	{ CIX_OP_BUILD_PATHS_WITH_RESULTS, op_build_paths_with_results },
	{ 0, NULL },
};
