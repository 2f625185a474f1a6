/* build-results.h - the BuildResult of each target of a build request */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef CIX_DAEMON_BUILD_RESULTS_H
#define CIX_DAEMON_BUILD_RESULTS_H

#include <time.h>

#include "daemon.h"

/* BuildResult's status codes (as Nix's). */
enum {
	DAEMON_BR_BUILT = 0, DAEMON_BR_ALREADY_VALID = 2, DAEMON_BR_PERMANENT_FAILURE = 3,
	DAEMON_BR_TIMED_OUT = 8, DAEMON_BR_MISC_FAILURE = 9, DAEMON_BR_LOG_LIMIT = 11,
	DAEMON_BR_NOT_DETERMINISTIC = 12,
};

/* One target as the client named it: "DRV!OUT,...", "DRV!*" or a path. */
struct daemon_target {
	const char *target;
	int is_drv;                  /* a derivation's outputs are wanted */
	struct strbuf drv_path;      /* a derivation's: its path */
	struct strvec names, paths;  /* the wanted outputs */
	struct strbuf drv_hash;      /* "sha256:" and the hash modulo, base16 */
	unsigned status;
	const char *msg;             /* the error, borrowed */
};

struct daemon_build_times {
	time_t start, stop;
};

void daemon_target_init(struct daemon_target *t, const char *target);
void daemon_target_release(struct daemon_target *t);
/* The wanted outputs of the derivation at drv_path, and its hash modulo. */
int daemon_target_load(struct cix_store *s, struct cix_drv_hasher *h, struct daemon_target *t,
		       const char *drv_path, struct cix_err *err);
/* 1 when every wanted output is valid, 0 when one is not. */
int daemon_target_valid(struct cix_store *s, const struct daemon_target *t, struct cix_err *err);
/* BuildResult (without the target), as for the client's version. */
void daemon_write_build_result(struct conn *c, const struct daemon_target *t,
			       const struct daemon_build_times *times);
/* The status of a build that returned r. */
unsigned daemon_build_status(int r);

#endif
