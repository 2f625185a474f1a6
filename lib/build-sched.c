/* build-sched.c - which derivations to build or substitute, and builds in parallel */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "build-int.h"
#include "gc.h"
#include "machines.h"
#include "store.h"
#include "strvec.h"
#include "util.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---- Scheduling: every derivation once, inputs first, jobs in parallel ---- */

enum { PENDING, RUNNING, DONE, FAILED };

struct node {
	int check;           /* --check this one even though it is valid */
	int repair;          /* --repair: build it again and replace its outputs */
	char *drv_path;
	struct cix_drv *drv;
	size_t *deps;        /* nodes that must be DONE first */
	size_t nr_deps;
	int state;
	int depth;
	int subst;           /* its missing outputs are planned for substitution */
	int expanded;        /* its input derivations are collected */
};

struct sched {
	struct cix_store *s;
	const struct cix_build_opts *opts;
	struct node *nodes;
	size_t nr, alloc;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	size_t running;
	unsigned local_slots, local_running;
	struct strvec unreachable;   /* machines that did not answer */
	int failed;
	struct cix_err err;   /* the first failure */
	int use_subst;
	struct cix_subst plan;
	struct cix_drv_hasher *hasher;   /* the hash modulo of each derivation, once */
};

static long collect(struct sched *sc, const char *drv_path, int depth, struct cix_err *err);

/* The outputs of n not valid yet, into out. */
static int missing_outputs(struct sched *sc, const struct node *n, struct strvec *out,
			   struct cix_err *err)
{
	for (size_t i = 0; i < n->drv->nr_outputs; i++) {
		int r = cix_db_is_valid(sc->s->db, n->drv->outputs[i].path, err);
		if (r < 0)
			return r;
		if (!r)
			strvec_push(out, n->drv->outputs[i].path);
	}
	return 0;
}


/*
 * Can the missing outputs of node self come from substitutes? 1: planned;
 * 0: build it; < 0: a cache has them but cannot be trusted, and there is
 * no --fallback.
 */
static int try_subst(struct sched *sc, long self, struct cix_err *err)
{
	struct strvec want = STRVEC_INIT;
	struct cix_err e = { 0 };
	int r = missing_outputs(sc, &sc->nodes[self], &want, err);
	if (r == 0 && want.nr) {
		r = cix_subst_want(&sc->plan, (const char *const *)want.v, want.nr, &e);
		if (r < 0 && sc->opts->fallback) {
			cix_fd_printf(sc->opts->log_fd, "warning: %s; building '%s' instead\n",
				      e.msg, sc->nodes[self].drv_path);
			r = 0;
		} else if (r < 0) {
			r = cix_error(err, e.code, "%s (--fallback builds instead)", e.msg);
		}
	}
	strvec_clear(&want);
	if (r > 0)
		sc->nodes[self].subst = 1;
	return r;
}

/* Collect the input derivations of node self, and check its input sources. */
static int expand(struct sched *sc, long self, struct cix_err *err)
{
	struct cix_store *s = sc->s;
	struct cix_drv *drv = sc->nodes[self].drv;
	const char *drv_path = sc->nodes[self].drv_path;
	int depth = sc->nodes[self].depth, r;
	size_t *deps = xcalloc(drv->nr_input_drvs + 1, sizeof(*deps)), nr = 0;

	sc->nodes[self].expanded = 1;
	for (size_t i = 0; i < drv->nr_input_drvs; i++) {
		long d = collect(sc, drv->input_drvs[i].path, depth + 1, err);
		if (d < 0) {
			free(deps);
			return (int)d;
		}
		deps[nr++] = (size_t)d;
	}
	for (size_t i = 0; i < drv->nr_input_srcs; i++)
		if ((r = cix_db_is_valid(s->db, drv->input_srcs[i], err)) <= 0) {
			free(deps);
			return r < 0 ? r : cix_error(err, -CIX_ENOTFOUND, "input '%s' of '%s' is not valid",
						     drv->input_srcs[i], drv_path);
		}
	/* collect() may have moved the array: index again. */
	sc->nodes[self].deps = deps;
	sc->nodes[self].nr_deps = nr;
	return 0;
}

/*
 * Add drv_path and, unless its outputs can be substituted, its input
 * derivations; returns the node's index.
 */
static long collect(struct sched *sc, const char *drv_path, int depth, struct cix_err *err)
{
	struct cix_store *s = sc->s;
	struct cix_drv *drv;
	long self;
	int r;

	for (size_t i = 0; i < sc->nr; i++)
		if (!strcmp(sc->nodes[i].drv_path, drv_path))
			return (long)i;
	if (depth > MAX_DEPTH)
		return cix_error(err, -CIX_ELIMIT, "derivations nested more than %d deep", MAX_DEPTH);
	/*
	 * What a build uses or makes is a temporary root from before it is
	 * checked to the end of the process: the collector leaves it alone.
	 */
	if ((r = cix_store_add_temp_root(s, drv_path, err)) < 0)
		return r;
	if ((r = cix_db_is_valid(s->db, drv_path, err)) <= 0)
		return r < 0 ? r : cix_error(err, -CIX_ENOTFOUND, "derivation '%s' is not valid",
					     drv_path);
	if ((r = cix_drv_parse_file(drv_path, s->store_dir, &drv, err)) < 0)
		return r;
	ALLOC_GROW(sc->nodes, sc->nr + 1, sc->alloc);
	self = (long)sc->nr++;
	sc->nodes[self] = (struct node){ .drv_path = xstrdup(drv_path), .drv = drv, .depth = depth };
	for (size_t i = 0; !r && i < drv->nr_outputs; i++)
		r = cix_store_add_temp_root(s, drv->outputs[i].path, err);
	if (!r)
		r = cix_store_add_temp_roots(s, (const char *const *)drv->input_srcs,
					     drv->nr_input_srcs, err);
	if (r < 0 || (r = cix_build_outputs_valid(s, drv, err)) < 0)
		return r;
	if (r > 0 && !((sc->opts->check || sc->opts->repair) && depth == 0)) {
		sc->nodes[self].state = DONE;
		return self;
	}
	/* What is built or fetched for it must be its own outputs. */
	if (!sc->hasher)
		sc->hasher = cix_store_drv_hasher(s);
	if ((r = cix_store_verify_drv(s, sc->hasher, drv_path, drv, err)) < 0)
		return r;
	sc->nodes[self].check = sc->opts->check && depth == 0;
	sc->nodes[self].repair = sc->opts->repair && !sc->opts->check && depth == 0;
	if (sc->use_subst && !sc->nodes[self].check && (r = try_subst(sc, self, err)) != 0)
		return r < 0 ? r : self;
	return (r = expand(sc, self, err)) < 0 ? r : self;
}

/*
 * Fetch what is planned. A derivation whose outputs did not all come is
 * then built (--fallback), its inputs collected (and maybe substituted in
 * turn), or its failure is the error.
 */
static int substitute(struct sched *sc, struct cix_err *err)
{
	while (sc->plan.first_pending < sc->plan.nr) {
		struct cix_err e = { 0 };
		int failed = cix_subst_run(&sc->plan, &e) < 0;
		for (size_t i = 0; i < sc->nr; i++) {
			struct node *n = &sc->nodes[i];
			int r;
			if (!n->subst || n->state != PENDING)
				continue;
			if ((r = cix_build_outputs_valid(sc->s, n->drv, err)) < 0)
				return r;
			n->subst = 0;
			if (r > 0) {
				n->state = DONE;
				continue;
			}
			if (!sc->opts->fallback)
				return cix_error(err, failed ? e.code : -CIX_ENOTFOUND,
						 "%s (--fallback builds instead)",
						 failed ? e.msg : "substitution failed");
			cix_fd_printf(sc->opts->log_fd, "warning: %s; building '%s' instead\n",
			    failed ? e.msg : "substitution failed", n->drv_path);
			if ((r = expand(sc, (long)i, err)) < 0)
				return r;
		}
	}
	return 0;
}

/* For dry runs and QueryMissing: what would be built and what fetched. */
int cix_build_plan(struct cix_store *s, const char *const *drv_paths, size_t n,
		   const struct cix_build_opts *opts, struct cix_build_missing *m,
		   struct cix_err *err)
{
	struct sched sc = { .s = s, .opts = opts };
	long r = 0;
	sc.use_subst = opts->subst && opts->subst->nr_subs && !opts->check && !opts->repair;
	if (sc.use_subst)
		cix_subst_init(&sc.plan, s, opts->subst);
	for (size_t i = 0; r >= 0 && i < n; i++)
		r = collect(&sc, drv_paths[i], 0, err);
	for (size_t i = 0; r >= 0 && i < sc.nr; i++)
		if (sc.nodes[i].state == PENDING && !sc.nodes[i].subst)
			strvec_push(&m->builds, sc.nodes[i].drv_path);
	for (size_t i = 0; r >= 0 && sc.use_subst && i < sc.plan.nr; i++) {
		const struct cix_narinfo *ni = &sc.plan.items[i].ni;
		strvec_push(&m->fetches, sc.plan.items[i].path);
		m->download_size += ni->has_file_size ? ni->file_size : ni->nar_size;
		m->nar_size += ni->nar_size;
	}
	for (size_t i = 0; i < sc.nr; i++) {
		free(sc.nodes[i].drv_path);
		cix_drv_free(sc.nodes[i].drv);
		free(sc.nodes[i].deps);
	}
	free(sc.nodes);
	strvec_clear(&sc.unreachable);
	cix_drv_hasher_free(sc.hasher);
	if (sc.use_subst)
		cix_subst_release(&sc.plan);
	return r < 0 ? (int)r : 0;
}

static int is_ready(const struct sched *sc, const struct node *n)
{
	int ready = n->state == PENDING;
	for (size_t k = 0; ready && k < n->nr_deps; k++)
		ready = sc->nodes[n->deps[k]].state == DONE;
	return ready;
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
	*waiting = 0;
	for (size_t i = 0; !sc->failed && i < sc->nr; i++) {
		struct node *n = &sc->nodes[i];
		if (!is_ready(sc, n))
			continue;
		*where = place(sc, n, slot);
		if (*where == PLACE_LOCAL || *where == PLACE_REMOTE)
			return (long)i;
		if (*where == PLACE_WAIT)
			*waiting = 1;
		else
			fail_nowhere(sc, n);
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
		long i = sc->failed ? -1 : pick(sc, &where, &slot, &waiting);
		if (i < 0) {
			if (!sc->running && (!waiting || sc->failed))
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
			pthread_cond_broadcast(&sc->cond);
			continue;
		}
		if (sc->opts->on_build)
			sc->opts->on_build(sc->opts->on_build_opaque, CIX_BUILD_ENDED, n->drv_path,
					   n->drv, &err);
		if (r < 0)
			fail(sc, n, &err);
		else
			n->state = DONE;
		pthread_cond_broadcast(&sc->cond);
	}
	pthread_cond_broadcast(&sc->cond);
	pthread_mutex_unlock(&sc->lock);
	return NULL;
}

/* Could some machine build n (busy or down as it may be now)? */
static int can_offload(struct sched *sc, const struct node *n)
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

int cix_build_derivations(struct cix_store *s, const char *const *drv_paths, size_t n,
			  const struct cix_build_opts *opts, struct cix_err *err)
{
	struct sched sc = { .s = s, .opts = opts };
	unsigned jobs = sc.local_slots = opts->no_build ? 0 : opts->max_jobs ? opts->max_jobs : 1;
	for (size_t i = 0; opts->machines && i < opts->machines->nr && jobs < 256; i++)
		jobs += opts->machines->v[i].max_jobs;
	jobs = jobs ? jobs : 1;
	pthread_t *th = xcalloc(jobs, sizeof(*th));
	long r = 0;

	pthread_mutex_init(&sc.lock, NULL);
	pthread_cond_init(&sc.cond, NULL);
	cix_build_dirs_clean(s);
	sc.use_subst = opts->subst && opts->subst->nr_subs && !opts->check && !opts->repair;
	if (sc.use_subst)
		cix_subst_init(&sc.plan, s, opts->subst);
	for (size_t i = 0; r >= 0 && i < n; i++)
		r = collect(&sc, drv_paths[i], 0, err);
	if (r >= 0 && sc.use_subst)
		r = substitute(&sc, err);
	for (size_t i = 0; r >= 0 && opts->no_build && i < sc.nr; i++)
		if (sc.nodes[i].state == PENDING && !can_offload(&sc, &sc.nodes[i]))
			r = cix_error(err, -EPERM, "'%s' would have to be built, but builds are "
				      "disabled here (--max-jobs=0)%s", sc.nodes[i].drv_path,
				      opts->machines && opts->machines->nr
				      ? " and no build machine is for its system" : "");
	if (r >= 0) {
		unsigned started = 0;
		for (unsigned j = 0; j < jobs; j++)
			if (!pthread_create(&th[j], NULL, worker, &sc))
				started++;
			else
				break;
		if (!started)
			worker(&sc);
		for (unsigned j = 0; j < started; j++)
			pthread_join(th[j], NULL);
		r = 0;
		if (sc.failed) {
			if (err)
				*err = sc.err;
			r = sc.err.code ? sc.err.code : -CIX_EBUILD;
		}
	}
	for (size_t i = 0; i < sc.nr; i++) {
		free(sc.nodes[i].drv_path);
		cix_drv_free(sc.nodes[i].drv);
		free(sc.nodes[i].deps);
	}
	free(sc.nodes);
	strvec_clear(&sc.unreachable);
	cix_drv_hasher_free(sc.hasher);
	free(th);
	if (sc.use_subst)
		cix_subst_release(&sc.plan);
	pthread_cond_destroy(&sc.cond);
	pthread_mutex_destroy(&sc.lock);
	return r < 0 ? (int)r : 0;
}

int cix_build_derivation(struct cix_store *s, const char *drv_path,
			 const struct cix_build_opts *opts, struct cix_err *err)
{
	return cix_build_derivations(s, &drv_path, 1, opts, err);
}

int cix_build_basic(struct cix_store *s, const char *drv_path, struct cix_drv *drv,
		    const struct cix_build_opts *opts, struct cix_err *err)
{
	pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
	struct building b = { .lock = &lock, .s = s, .drv_path = drv_path, .drv = drv,
			      .opts = opts, .check = opts->check, .repair = opts->repair,
			      .user = CIX_BUILD_USER_INIT };
	int r = 0;
	if (drv->nr_input_drvs)
		return cix_error(err, -CIX_EINVAL, "'%s' is sent with input derivations", drv_path);
	for (size_t i = 0; !r && i < drv->nr_input_srcs; i++)
		if ((r = cix_db_is_valid(s->db, drv->input_srcs[i], err)) == 0)
			r = cix_error(err, -CIX_ENOTFOUND, "cannot build '%s': its input '%s' is not "
				      "valid here", drv_path, drv->input_srcs[i]);
	if (r < 0)
		return r;
	if (opts->no_build)
		return cix_error(err, -EPERM, "'%s' would have to be built, but builds are "
				 "disabled here (--max-jobs=0)", drv_path);
	cix_build_dirs_clean(s);
	pthread_mutex_lock(&lock);
	if (opts->on_build)
		opts->on_build(opts->on_build_opaque, CIX_BUILD_STARTED, drv_path, drv, NULL);
	r = cix_build_one(&b, err);
	if (r > 0)
		r = 0;   /* valid already */
	else if (!r && !b.check && opts->on_build)
		r = opts->on_build(opts->on_build_opaque, CIX_BUILD_BUILT, drv_path, drv, err);
	if (opts->on_build)
		opts->on_build(opts->on_build_opaque, CIX_BUILD_ENDED, drv_path, drv,
			       r < 0 ? err : &(struct cix_err){ 0 });
	pthread_mutex_unlock(&lock);
	pthread_mutex_destroy(&lock);
	return r;
}
