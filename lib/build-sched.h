/* build-sched.h - the scheduler's state, between planning (build-sched.c) and running (build-run.c) */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef CIX_BUILD_SCHED_H
#define CIX_BUILD_SCHED_H

#include "build-int.h"
#include "str-index.h"
#include "substitute.h"

#include <pthread.h>

/* A derivation's state in one build request. */
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
	int chain;           /* the longest chain of builds waiting for this one */
	int subst;           /* its missing outputs are planned for substitution */
	int expanded;        /* its input derivations are collected */
};

struct sched {
	struct cix_store *s;
	const struct cix_build_opts *opts;
	struct node *nodes;
	size_t nr, alloc;
	const char **paths;  /* each node's drv_path, indexed by by_path */
	size_t paths_alloc;
	struct cix_str_index by_path;
	size_t *order;       /* the nodes, longest chain first: the order builds start in */
	/* While running (build-run.c): */
	size_t *rank;        /* each node's place in order */
	size_t *unmet;       /* each node's inputs not DONE yet */
	size_t *users, *users_at;   /* node i's users: users[users_at[i] .. users_at[i + 1]) */
	uint64_t *ready;     /* bits by rank: the PENDING nodes whose inputs are all DONE */
	size_t ready_from;   /* no word of ready before this one has a bit */
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

/*
 * Build every PENDING node once its dependencies are DONE, the first of
 * sc->order first: here while a local slot is free, else on a build
 * machine of sc->opts->machines (build-remote.c), with the threads the
 * slots need; the first failure, into sc->err, stops the rest unless
 * sc->opts->keep_going (build-run.c).
 */
void cix_sched_run(struct sched *sc);
/* Could some machine build n (busy or down as it may be now)? */
int cix_sched_can_offload(struct sched *sc, const struct node *n);

#endif
