/* build-sched.c - which derivations to build or substitute, inputs first */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "build-sched.h"
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

/* ---- Scheduling: every derivation once, inputs first, jobs in parallel ---- */

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

	if ((self = cix_str_index_find(&sc->by_path, drv_path)) >= 0)
		return self;
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
	ALLOC_GROW(sc->paths, sc->nr, sc->paths_alloc);
	sc->paths[self] = sc->nodes[self].drv_path;
	cix_str_index_push(&sc->by_path, sc->paths, sc->nr);
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

static int by_chain(const void *a, const void *b, void *nodes)
{
	const struct node *v = nodes;
	size_t i = *(const size_t *)a, j = *(const size_t *)b;
	if (v[i].chain != v[j].chain)
		return v[i].chain > v[j].chain ? -1 : 1;
	return i < j ? -1 : i > j;
}

/*
 * The order builds start in: first what the longest chain of other builds
 * waits for (the critical path, as far as counting builds tells it), so
 * that a long chain of inputs (Perl, Autoconf, Automake...) does not start
 * last, after everything that was quicker to reach.
 */
static void order_by_chain(struct sched *sc)
{
	size_t *waiting = xcalloc(sc->nr + 1, sizeof(*waiting));   /* dependents not yet seen */
	size_t *todo = xcalloc(sc->nr + 1, sizeof(*todo)), nr_todo = 0;

	for (size_t i = 0; i < sc->nr; i++)
		for (size_t k = 0; k < sc->nodes[i].nr_deps; k++)
			waiting[sc->nodes[i].deps[k]]++;
	for (size_t i = 0; i < sc->nr; i++)
		if (!waiting[i])
			todo[nr_todo++] = i;
	/* Dependents before their inputs: each node's chain is final when taken. */
	while (nr_todo) {
		const struct node *n = &sc->nodes[todo[--nr_todo]];
		for (size_t k = 0; k < n->nr_deps; k++) {
			struct node *d = &sc->nodes[n->deps[k]];
			if (d->chain < n->chain + 1)
				d->chain = n->chain + 1;
			if (!--waiting[n->deps[k]])
				todo[nr_todo++] = n->deps[k];
		}
	}
	free(waiting);
	sc->order = todo;
	for (size_t i = 0; i < sc->nr; i++)
		sc->order[i] = i;
	qsort_r(sc->order, sc->nr, sizeof(*sc->order), by_chain, sc->nodes);
}

static void sched_release(struct sched *sc)
{
	for (size_t i = 0; i < sc->nr; i++) {
		free(sc->nodes[i].drv_path);
		cix_drv_free(sc->nodes[i].drv);
		free(sc->nodes[i].deps);
	}
	free(sc->nodes);
	free(sc->paths);
	cix_str_index_release(&sc->by_path);
	free(sc->order);
	strvec_clear(&sc->unreachable);
	cix_drv_hasher_free(sc->hasher);
	if (sc->use_subst)
		cix_subst_release(&sc->plan);
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
	sched_release(&sc);
	return r < 0 ? (int)r : 0;
}

int cix_build_derivations(struct cix_store *s, const char *const *drv_paths, size_t n,
			  const struct cix_build_opts *opts, struct cix_err *err)
{
	struct sched sc = { .s = s, .opts = opts };
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
		if (sc.nodes[i].state == PENDING && !cix_sched_can_offload(&sc, &sc.nodes[i]))
			r = cix_error(err, -EPERM, "'%s' would have to be built, but builds are "
				      "disabled here (--max-jobs=0)%s", sc.nodes[i].drv_path,
				      opts->machines && opts->machines->nr
				      ? " and no build machine is for its system" : "");
	if (r >= 0) {
		order_by_chain(&sc);
		cix_sched_run(&sc);
		r = 0;
		if (sc.failed) {
			if (err)
				*err = sc.err;
			r = sc.err.code ? sc.err.code : -CIX_EBUILD;
		}
	}
	sched_release(&sc);
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
