/* build-int.h - between the builder (build.c) and the scheduler (build-sched.c) */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef CIX_BUILD_INT_H
#define CIX_BUILD_INT_H

#include <pthread.h>

#include "build.h"
#include "build-users.h"
#include "drv.h"
#include "strvec.h"

#define MAX_DEPTH 1024

/* One derivation being built. */
struct building {
	pthread_mutex_t *lock;   /* held except while the builder runs */
	int check;               /* rebuild valid outputs and compare */
	struct cix_store *s;
	const char *drv_path;
	struct cix_drv *drv;
	const struct cix_build_opts *opts;
	struct cix_path_lock *locks;
	size_t nr_locks;
	char *build_dir;
	struct cix_build_user user;  /* or none: a user namespace */
	/*
	 * Outputs valid before the build (some of them may be, when others
	 * were deleted): left exactly as they are, whatever the build does
	 * (security.md item 13); the build's copies of them are dropped.
	 */
	unsigned char *valid;
};

/*
 * What a sandbox runs: the derivation's builder with its arguments, or
 * cix-builtin for a builtin; the host paths it needs besides its inputs.
 */
struct cix_build_job {
	const char *builder;                /* inside the sandbox */
	struct strvec argv;
	struct strvec extra;                /* extra paths (at the same place) */
	struct strvec hosts, insides;       /* binds: host path -> inside path */
};

#define CIX_BUILD_JOB_INIT { NULL, STRVEC_INIT, STRVEC_INIT, STRVEC_INIT, STRVEC_INIT }

void cix_build_job_release(struct cix_build_job *j);

/*
 * build-builtin.c: the job of a builtin:fetchurl derivation: cix-builtin,
 * found beside the running program (or in ../libexec/cix), bound into the
 * sandbox with the libraries it loads, the mirror lists and the local
 * content-addressed mirrors ($CIX_MIRRORS_FILE or /etc/cix/mirrors,
 * $CIX_CAS_DIRS); file:// URLs refused when no_file_urls.
 */
int cix_build_fetchurl_job(struct cix_build_job *j, int no_file_urls, struct cix_err *err);

/* Build b->drv (its inputs valid), with b->lock held; 0 or an error. */
int cix_build_one(struct building *b, struct cix_err *err);
/* 1 when every output of drv is valid, 0 when not, or an error. */
int cix_build_outputs_valid(struct cix_store *s, const struct cix_drv *drv, struct cix_err *err);

#endif
