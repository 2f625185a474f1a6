/* conf.h - cix.conf: the settings of the daemon and of root's direct use of the store */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef CIX_CONF_H
#define CIX_CONF_H

#include "build.h"
#include "err.h"
#include "strvec.h"

/*
 * cix.conf holds lines "NAME = VALUE", '#' starting a comment, as
 * nix.conf; unknown names are ignored (they may be for a later cix).
 */
struct cix_conf {
	struct strvec allowed_users;   /* default "*" */
	struct strvec trusted_users;   /* default "root" */
	char *substitute_urls;         /* space-separated; default none */
	char *builders;                /* machines to offload to (lib/machines.h); NULL: none set */
	long narinfo_positive_ttl;     /* narinfo-cache-positive-ttl (0: the default) */
	long narinfo_negative_ttl;     /* narinfo-cache-negative-ttl (0: the default) */
	int fod_host_loopback;         /* fod-host-loopback: yes or no (default) */
	struct cix_build_limits limits; /* build-timeout, max-log-size... (below) */
};

/* $CIX_CONF_FILE, else $CIX_CONF_DIR/cix.conf, else /etc/cix/cix.conf. */
const char *cix_conf_file(void);

/* Read file into c (defaults first); a missing file gives the defaults. */
int cix_conf_load(const char *file, struct cix_conf *c, struct cix_err *err);
void cix_conf_release(struct cix_conf *c);

/*
 * The limits without cix.conf: build-timeout 24 hours, max-log-size
 * 64 MiB, build-memory-max half the RAM, build-shm-size and build-tmp-size
 * a tenth of it each,
 * builds-pids-max a quarter of /proc/sys/kernel/pid_max, build-pids-max
 * CIX_LIMIT_AUTO.
 */
void cix_build_limits_default(struct cix_build_limits *l);

/*
 * Set the limit called name (cix.conf's key, as build-memory-max) to value:
 * a size (bytes, or a number with K, M, G or T: KiB...), seconds (or with
 * s, m, h or d), a count; "none" or 0 for no limit. Returns 1 when set, 0
 * when name is no limit's, -1 when value is invalid.
 */
int cix_build_limit_set(struct cix_build_limits *l, const char *name, const char *value);

/*
 * The tasks one build may have: build-pids-max, at most builds-pids-max;
 * when not given, half of builds-pids-max (a fork bomb leaves the other
 * half to the other builds), at most CIX_BUILD_MAX_PROCS.
 */
unsigned long cix_build_limits_pids(const struct cix_build_limits *l);

/*
 * The limits of cix_conf_file(), read once per process, for builds whose
 * options name none (local builds; the daemon passes its own).
 */
int cix_build_limits_of_conf(const struct cix_build_limits **out, struct cix_err *err);
/* The lesser of two limits, 0 being none. */
unsigned long long cix_limit_lesser(unsigned long long a, unsigned long long b);
/* fod-host-loopback of cix_conf_file(), read with the limits (no when it does not parse). */
int cix_conf_fod_host_loopback(void);

#endif
