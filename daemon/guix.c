/* guix.c - Guix's dialect of the worker protocol: what its clients differ in */
/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * guix-daemon grew out of the Nix daemon of the 1.x days; Guix's client,
 * (guix store), announces protocol 0x163 (a minor of 0x60 and above says
 * Guix) and, talking to us, follows the version we announce (1.34) for
 * what both dialects share: the handshake's CPU affinity and reserve-space
 * words, SetOptions' twelve words and its pairs, BuildPaths' mode,
 * CollectGarbage's obsolete words, the status after an error's message.
 * What it reads back is the Nix of protocol 1.15: no version string after
 * the handshake, an error as its message and a status, no activities
 * (the builder's output and the build traces as plain text), path infos
 * without the validity flag (a missing path is an error), AddToStore with
 * the NAR inline, QueryValidPaths without the substitution flag. So a
 * Guix connection is served as a 1.15 one, plus what is Guix's own, here:
 * SetOptions' names (build-timeout...), the build traces ("@ build-started
 * DRV - SYSTEM LOG PID"...), the statuses of failed builds (100: failed,
 * 101: timed out) and three operations (24, 25, 80).
 */
#include "daemon.h"
#include "buildlog.h"
#include "builtins.h"
#include "drv.h"
#include "util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The first minor version of Guix's clients, and the Nix minor it speaks to us. */
#define GUIX_MINOR_MIN 0x60
#define GUIX_AS_NIX_MINOR 15

void daemon_guix_handshake(struct conn *c, uint64_t client_version)
{
	if (CIX_PROTOCOL_MINOR(client_version) < GUIX_MINOR_MIN)
		return;
	c->guix = 1;
	c->minor = GUIX_AS_NIX_MINOR;
}

/* SetOptions' pairs: Guix's names for the settings cix knows by Nix's. */
const char *daemon_guix_option(const struct conn *c, const char *name)
{
	static const struct { const char *guix, *nix; } names[] = {
		{ "build-timeout", "timeout" },
		{ "build-max-silent-time", "max-silent-time" },
		{ "build-max-jobs", "max-jobs" },
		{ "build-cores", "cores" },
		{ "build-max-log-size", "max-build-log-size" },
	};
	if (!c->guix)
		return name;
	for (size_t i = 0; i < ARRAY_SIZE(names); i++)
		if (!strcmp(name, names[i].guix))
			return names[i].nix;
	/* build-repeat, user-name, locale, terminal-columns...: not cix's */
	return name;
}

void daemon_guix_set_options(struct conn *c, uint64_t print_build_trace)
{
	if (c->guix)
		c->guix_trace = print_build_trace != 0;
}

/* Guix's status of a build that returned r: 100 failed, 101 timed out, 1 other. */
static unsigned build_status(int r)
{
	switch (r) {
	case -ETIMEDOUT: case -CIX_ELIMIT: return 101;
	case -CIX_EMISMATCH: case -CIX_EBUILD: case -CIX_EUNSUPPORTED: return 100;
	default: return 1;
	}
}

void daemon_guix_build_failed(struct conn *c, int r)
{
	if (c->guix && r < 0)
		c->error_status = build_status(r);
}

int daemon_guix_traces(const struct conn *c)
{
	return c->guix && c->guix_trace;
}

void daemon_guix_trace(int log_fd, const char *drv_path, const struct cix_drv *drv,
		       const struct cix_err *err)
{
	struct strbuf log = STRBUF_INIT;
	if (!err) {
		cix_build_log_path(drv_path, &log);
		cix_fd_printf(log_fd, "@ build-started %s - %s %s %ld\n", drv_path,
			      drv->platform, log.buf, (long)getpid());
	} else if (!err->code) {
		cix_fd_printf(log_fd, "@ build-succeeded %s -\n", drv_path);
	} else {
		if (err->code == -CIX_EUNSUPPORTED && !cix_build_can_run(drv->platform))
			cix_fd_printf(log_fd, "@ unsupported-platform %s %s\n", drv_path,
				      drv->platform);
		cix_fd_printf(log_fd, "@ build-failed %s - %u %s\n", drv_path,
			      build_status(err->code), err->msg);
	}
	strbuf_release(&log);
}

/* QueryFailedPaths: cix caches no failures. */
static int op_query_failed_paths(struct conn *c, struct cix_err *err)
{
	conn_last(c);
	cix_wire_write_strings(&c->w, NULL, 0);
	return 0;
}

/* ClearFailedPaths: nothing to clear. */
static int op_clear_failed_paths(struct conn *c, struct cix_err *err)
{
	struct strvec paths = STRVEC_INIT;
	int r = conn_read_paths(c, &paths, err);
	if (!r) {
		conn_last(c);
		cix_wire_write_u64(&c->w, 1);
	}
	strvec_clear(&paths);
	return r;
}

/* BuiltinBuilders: the X of the "builtin:X" builders cix runs. */
static int op_builtin_builders(struct conn *c, struct cix_err *err)
{
	size_t nr;
	const struct cix_builtin *all = cix_builtins(&nr);
	const char **names = xcalloc(nr + 1, sizeof(*names));
	for (size_t i = 0; i < nr; i++)
		names[i] = all[i].name;
	conn_last(c);
	cix_wire_write_strings(&c->w, names, nr);
	free(names);
	return 0;
}

const struct op daemon_guix_ops[] = {
	{ CIX_OP_QUERY_FAILED_PATHS, op_query_failed_paths },
	{ CIX_OP_CLEAR_FAILED_PATHS, op_clear_failed_paths },
	{ CIX_OP_BUILTIN_BUILDERS, op_builtin_builders },
	{ 0, NULL },
};
