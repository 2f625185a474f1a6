/* build-run.c - derivations built in parallel, here or on build machines */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "build-sched.h"
#include "machines.h"
#include "util.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---- The ready set: PENDING nodes whose inputs are all DONE, by place in sc->order ---- */

static void set_ready(struct sched *sc, size_t i, int ready)
{
	size_t k = sc->rank[i];
	if (!ready) {
		sc->ready[k / 64] &= ~(UINT64_C(1) << k % 64);
		return;
	}
	sc->ready[k / 64] |= UINT64_C(1) << k % 64;
	if (k / 64 < sc->ready_from)
		sc->ready_from = k / 64;
}

/*
 * Each node's inputs not yet DONE and the nodes that wait for it, so that
 * a build's end readies its users at once: scanning every node for one
 * that is ready, at each start, is quadratic in a request's derivations.
 */
static void ready_init(struct sched *sc)
{
	size_t nr = sc->nr;
	sc->rank = xcalloc(nr + 1, sizeof(*sc->rank));
	sc->unmet = xcalloc(nr + 1, sizeof(*sc->unmet));
	sc->users_at = xcalloc(nr + 2, sizeof(*sc->users_at));
	sc->ready = xcalloc(nr / 64 + 1, sizeof(*sc->ready));
	sc->ready_from = 0;
	for (size_t k = 0; k < nr; k++)
		sc->rank[sc->order[k]] = k;
	for (size_t i = 0; i < nr; i++)
		for (size_t k = 0; k < sc->nodes[i].nr_deps; k++)
			sc->users_at[sc->nodes[i].deps[k] + 2]++;
	for (size_t i = 2; i < nr + 2; i++)
		sc->users_at[i] += sc->users_at[i - 1];
	sc->users = xcalloc(sc->users_at[nr + 1] + 1, sizeof(*sc->users));
	/* users_at[d + 1]: where the next of d's users goes; at the end, d + 1's start. */
	for (size_t i = 0; i < nr; i++)
		for (size_t k = 0; k < sc->nodes[i].nr_deps; k++) {
			size_t d = sc->nodes[i].deps[k];
			sc->users[sc->users_at[d + 1]++] = i;
			sc->unmet[i] += sc->nodes[d].state != DONE;
		}
	for (size_t i = 0; i < nr; i++)
		if (sc->nodes[i].state == PENDING && !sc->unmet[i])
			set_ready(sc, i, 1);
}

static void ready_release(struct sched *sc)
{
	free(sc->rank);
	free(sc->unmet);
	free(sc->users_at);
	free(sc->users);
	free(sc->ready);
}

/* Node i is built: its users whose last input it was are ready. */
static void done(struct sched *sc, size_t i)
{
	sc->nodes[i].state = DONE;
	for (size_t k = sc->users_at[i]; k < sc->users_at[i + 1]; k++) {
		size_t u = sc->users[k];
		if (!--sc->unmet[u] && sc->nodes[u].state == PENDING)
			set_ready(sc, u, 1);
	}
}

enum place { PLACE_LOCAL, PLACE_REMOTE, PLACE_WAIT, PLACE_NONE };

/* The features a derivation wants of the machine that builds it. */
static void wanted_features(const struct node *n, struct strvec *out)
{
	const char *f = cix_drv_getenv(n->drv, "requiredSystemFeatures");
	if (f)
		strvec_split(out, f, " \t\n");
}

/*
 * Where n builds: here when a local slot is free (and it can), else on a
 * machine with a free slot (taken into slot), else it waits for one, or
 * can go nowhere.
 */
static enum place place(struct sched *sc, const struct node *n, struct cix_offload_slot *slot)
{
	const struct cix_machines *ms = sc->opts->machines;
	int here = sc->local_slots && cix_build_can_run(n->drv->platform);
	if (here && sc->local_running < sc->local_slots)
		return PLACE_LOCAL;
	if (ms && ms->nr && !n->check && !n->repair && strcmp(n->drv->platform, "builtin")) {
		struct strvec f = STRVEC_INIT;
		wanted_features(n, &f);
		int t = cix_offload_take(sc->s, ms, n->drv->platform, (const char *const *)f.v,
					 f.nr, slot);
		strvec_clear(&f);
		if (t > 0)
			return PLACE_REMOTE;
		if (t == 0)
			return PLACE_WAIT;
	}
	return here ? PLACE_WAIT : PLACE_NONE;
}

static void fail(struct sched *sc, struct node *n, const struct cix_err *err)
{
	n->state = FAILED;
	if (!sc->failed) {
		sc->failed = 1;
		sc->err = *err;
	}
}

/* A build failed, and without --keep-going nothing more starts. */
static int stopped(const struct sched *sc)
{
	return sc->failed && !sc->opts->keep_going;
}

/* Nowhere to build n: its error. */
static void fail_nowhere(struct sched *sc, struct node *n)
{
	struct cix_err err = { 0 };
	const struct cix_machines *ms = sc->opts->machines;
	if (!sc->local_slots && sc->unreachable.nr) {
		struct strbuf tried = STRBUF_INIT;
		for (size_t i = 0; i < sc->unreachable.nr; i++)
			strbuf_addf(&tried, "%s%s", i ? ", " : "", sc->unreachable.v[i]);
		cix_error(&err, -EHOSTUNREACH, "cannot build '%s': no build machine for '%s' "
			  "answers (tried %s), and builds are disabled here (--max-jobs=0)",
			  n->drv_path, n->drv->platform, tried.buf);
		strbuf_release(&tried);
	} else if (!sc->local_slots) {
		cix_error(&err, -EPERM, "'%s' would have to be built, but builds are disabled here "
			  "(--max-jobs=0) and none of the %zu build machines can build it for '%s' "
			  "now", n->drv_path, ms ? ms->nr : 0, n->drv->platform);
	} else
		cix_build_check_runnable(n->drv_path, n->drv, &err);
	/* Told as a build that failed at once (Guix's traces say why). */
	if (sc->opts->on_build) {
		sc->opts->on_build(sc->opts->on_build_opaque, CIX_BUILD_STARTED, n->drv_path,
				   n->drv, NULL);
		sc->opts->on_build(sc->opts->on_build_opaque, CIX_BUILD_ENDED, n->drv_path,
				   n->drv, &err);
	}
	fail(sc, n, &err);
}

/*
 * A ready derivation that can start now, where (and its slot); -1 when
 * none, *waiting set when some wait for a machine.
 */
static long pick(struct sched *sc, enum place *where, struct cix_offload_slot *slot,
		 int *waiting)
{
	size_t words = (sc->nr + 63) / 64;
	*waiting = 0;
	while (sc->ready_from < words && !sc->ready[sc->ready_from])
		sc->ready_from++;
	for (size_t w = sc->ready_from; !stopped(sc) && w < words; w++)
		for (uint64_t bits = sc->ready[w]; bits && !stopped(sc); bits &= bits - 1) {
			size_t i = sc->order[w * 64 + (size_t)__builtin_ctzll(bits)];
			*where = place(sc, &sc->nodes[i], slot);
			if (*where == PLACE_WAIT) {
				*waiting = 1;
				continue;
			}
			set_ready(sc, i, 0);
			if (*where == PLACE_LOCAL || *where == PLACE_REMOTE)
				return (long)i;
			fail_nowhere(sc, &sc->nodes[i]);
		}
	return -1;
}

/* Wait for a change, or (a machine's slot may free in another process) a while. */
static void wait_change(struct sched *sc, int waiting)
{
	if (!waiting) {
		pthread_cond_wait(&sc->cond, &sc->lock);
		return;
	}
	struct timespec t;
	clock_gettime(CLOCK_REALTIME, &t);
	t.tv_nsec += 200 * 1000 * 1000;
	if (t.tv_nsec >= 1000000000) {
		t.tv_sec++;
		t.tv_nsec -= 1000000000;
	}
	pthread_cond_timedwait(&sc->cond, &sc->lock, &t);
}

/*
 * A derivation just built: built again --repeat times and compared, then
 * handed to the caller's hook.
 */
static int after_build(struct sched *sc, const struct building *b, struct cix_err *err)
{
	int r = 0;
	for (unsigned k = 0; !r && k < sc->opts->repeat; k++) {
		struct building again = { .lock = b->lock, .s = b->s, .drv_path = b->drv_path,
					  .drv = b->drv, .opts = b->opts, .check = 1,
					  .user = CIX_BUILD_USER_INIT };
		r = cix_build_one(&again, err);
	}
	if (!r && sc->opts->on_build)
		r = sc->opts->on_build(sc->opts->on_build_opaque, CIX_BUILD_BUILT, b->drv_path,
				       b->drv, err);
	return r;
}

/* n on the machine of slot: 1 when that machine did not answer (n waits again). */
static int build_remote(struct sched *sc, struct node *n, struct cix_offload_slot *slot,
			struct cix_err *err)
{
	const struct cix_machine *m = &sc->opts->machines->v[slot->machine];
	int r = cix_offload_build(sc->s, m, n->drv_path, n->drv, sc->opts, &sc->lock, err);
	cix_offload_release(slot);
	if (r == -EHOSTUNREACH) {
		char *name = xstrndup(m->uri, strcspn(m->uri, "?"));
		strvec_push(&sc->unreachable, name);
		free(name);
		if (sc->opts->log_fd >= 0)
			dprintf(sc->opts->log_fd, "%s; trying elsewhere\n", err->msg);
		return 1;
	}
	if (!r && sc->opts->on_build)
		r = sc->opts->on_build(sc->opts->on_build_opaque, CIX_BUILD_BUILT, n->drv_path,
				       n->drv, err);
	return r;
}

static int build_local(struct sched *sc, struct node *n, struct cix_err *err)
{
	struct building b = { .lock = &sc->lock, .s = sc->s, .drv_path = n->drv_path,
			      .drv = n->drv, .opts = sc->opts, .check = n->check,
			      .repair = n->repair, .user = CIX_BUILD_USER_INIT };
	sc->local_running++;
	int r = cix_build_one(&b, err);
	if (!r && !b.check)
		r = after_build(sc, &b, err);
	sc->local_running--;
	return r;
}

static void *worker(void *arg)
{
	struct sched *sc = arg;
	pthread_mutex_lock(&sc->lock);
	for (;;) {
		struct cix_offload_slot slot = { -1, 0 };
		enum place where = PLACE_NONE;
		int waiting = 0;
		long i = stopped(sc) ? -1 : pick(sc, &where, &slot, &waiting);
		if (i < 0) {
			if (!sc->running && (!waiting || stopped(sc)))
				break;
			wait_change(sc, waiting);
			continue;
		}
		struct node *n = &sc->nodes[i];
		struct cix_err err = { 0 };
		int r;
		n->state = RUNNING;
		sc->running++;
		if (sc->opts->on_build)
			sc->opts->on_build(sc->opts->on_build_opaque, CIX_BUILD_STARTED, n->drv_path,
					   n->drv, NULL);
		r = where == PLACE_REMOTE ? build_remote(sc, n, &slot, &err) : build_local(sc, n, &err);
		sc->running--;
		if (r > 0) {
			n->state = PENDING;   /* its machine is down: elsewhere */
			set_ready(sc, (size_t)i, 1);
			pthread_cond_broadcast(&sc->cond);
			continue;
		}
		if (sc->opts->on_build)
			sc->opts->on_build(sc->opts->on_build_opaque, CIX_BUILD_ENDED, n->drv_path,
					   n->drv, &err);
		if (r < 0)
			fail(sc, n, &err);
		else
			done(sc, (size_t)i);
		pthread_cond_broadcast(&sc->cond);
	}
	pthread_cond_broadcast(&sc->cond);
	pthread_mutex_unlock(&sc->lock);
	return NULL;
}

int cix_sched_can_offload(struct sched *sc, const struct node *n)
{
	const struct cix_machines *ms = sc->opts->machines;
	struct strvec f = STRVEC_INIT;
	int fits = 0;
	if (!ms || n->check || n->repair)
		return 0;
	wanted_features(n, &f);
	for (size_t i = 0; !fits && i < ms->nr; i++)
		fits = cix_machine_fits(&ms->v[i], n->drv->platform, (const char *const *)f.v, f.nr);
	strvec_clear(&f);
	return fits;
}

void cix_sched_run(struct sched *sc)
{
	const struct cix_build_opts *opts = sc->opts;
	unsigned jobs = sc->local_slots = opts->no_build ? 0 : opts->max_jobs ? opts->max_jobs : 1;
	for (size_t i = 0; opts->machines && i < opts->machines->nr && jobs < 256; i++)
		jobs += opts->machines->v[i].max_jobs;
	jobs = jobs ? jobs : 1;
	pthread_t *th = xcalloc(jobs, sizeof(*th));
	ready_init(sc);
	unsigned started = 0;
	for (unsigned j = 0; j < jobs; j++)
		if (!pthread_create(&th[j], NULL, worker, sc))
			started++;
		else
			break;
	if (!started)
		worker(sc);
	for (unsigned j = 0; j < started; j++)
		pthread_join(th[j], NULL);
	free(th);
	ready_release(sc);
}
