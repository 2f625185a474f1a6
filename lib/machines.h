/* machines.h - the build machines builds are offloaded to (Nix's machines file) */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef CIX_MACHINES_H
#define CIX_MACHINES_H

#include "err.h"
#include "strvec.h"

/*
 * One line per machine, fields separated by blanks, '#' to the end of a
 * line a comment, "-" (or a missing field) the default:
 *
 *   URI SYSTEMS SSH-KEY MAX-JOBS SPEED-FACTOR SUPPORTED-FEATURES
 *       MANDATORY-FEATURES PUBLIC-HOST-KEY
 *
 * URI is ssh-ng://[USER@]HOST[:PORT][?PARAMS] (a bare [USER@]HOST means
 * ssh-ng://[USER@]HOST); SYSTEMS, the features: comma-separated lists
 * (default: this machine's system; none); MAX-JOBS the builds it runs at
 * once (default 1; 0: none), SPEED-FACTOR how fast it is (default 1, > 0);
 * PUBLIC-HOST-KEY the base64 of its host's public key line. The input is
 * hostile (it may come from a user): bounded, checked, one-line errors
 * naming the origin and line.
 */
struct cix_machine {
	char *uri;
	struct strvec systems;
	char *ssh_key;             /* or NULL */
	unsigned max_jobs;
	double speed;
	struct strvec supported;   /* features it has */
	struct strvec mandatory;   /* features a derivation must want to go there */
	char *host_key;            /* base64, or NULL */
};

struct cix_machines {
	struct cix_machine *v;
	size_t nr, alloc;
};
#define CIX_MACHINES_INIT { NULL, 0, 0 }

#define CIX_MACHINES_MAX 1024        /* machines in all */
#define CIX_MACHINES_MAX_LINE 8192   /* bytes of one line */
#define CIX_MACHINES_MAX_LIST 64     /* systems or features of one machine */

/* Append the machines of text (len bytes), named origin in errors. */
int cix_machines_parse(struct cix_machines *ms, const char *text, size_t len,
		       const char *origin, struct cix_err *err);
/*
 * Append those of a builders setting: machine lines separated by ';' or
 * newlines, or "@FILE" for the lines of FILE (a missing FILE: none), as
 * Nix's builders option.
 */
int cix_machines_from_spec(struct cix_machines *ms, const char *spec, struct cix_err *err);
/* conf's builders, else @$CIX_CONF_DIR/machines (written into buf). */
struct cix_conf;
struct strbuf;
const char *cix_machines_default_spec(const struct cix_conf *conf, struct strbuf *buf);
/* The machines of spec; NULL: cix.conf's builders, else @$CIX_CONF_DIR/machines. */
int cix_machines_load(struct cix_machines *ms, const char *spec, struct cix_err *err);
void cix_machines_release(struct cix_machines *ms);

/* Can m build for system a derivation that wants features[0..n)? */
int cix_machine_fits(const struct cix_machine *m, const char *system,
		     const char *const *features, size_t n);
/* m's store URI with its key and host key as parameters (allocated). */
char *cix_machine_store_uri(const struct cix_machine *m);

#endif
