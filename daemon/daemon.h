/* daemon.h - cix-daemon: one worker per connection, speaking the Nix worker protocol */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef CIX_DAEMON_H
#define CIX_DAEMON_H

#include <stdint.h>
#include <sys/types.h>

#include "build.h"
#include "conf.h"
#include "substitute.h"
#include "store.h"
#include "strvec.h"
#include "wire.h"
#include "worker-ops.h"
#include "machines.h"

/* The daemon's settings, from its command line. */
struct daemon_settings {
	const char *socket_path;
	const char *conf_file;       /* /etc/cix/cix.conf, or $CIX_CONF_FILE */
	unsigned max_jobs, cores;
	int max_jobs_set;            /* -M given: clients may only lower it */
	/*
	 * Limits of builds (0: none). A client may lower them for its own
	 * builds, never raise or remove them.
	 */
	unsigned max_silent, timeout;
	unsigned long long max_log;
	/* Connections: in all, of one user (root and trusted users: no cap). */
	unsigned max_conns, max_conns_per_user;
	/* Seconds a connection may idle between operations (0: for ever). */
	unsigned idle_timeout, trusted_idle_timeout;
	/* Bytes that one request's strings and lists may take (0: no limit). */
	unsigned long long max_request_memory;
	/* Workers that may crash before the daemon exits (0: no limit). */
	unsigned max_crashes;
	int disable_chroot;          /* accepted for guix-daemon's sake; refused */
	int no_substitutes;
	const char *substitute_urls; /* --substitute-urls, else cix.conf's (may be NULL) */
	/* The machines builds are offloaded to: cix.conf's builders, else @CONF_DIR/machines. */
	const char *builders;
	int debug;
	int stdio;                   /* --stdio: one client, on standard input and output */
	int gc_keep_outputs, gc_keep_derivations;
	struct cix_build_limits limits; /* cix.conf's, then the options' */
};

/* Is the user uid (primary group gid) in list? */
int daemon_user_in(const struct strvec *list, uid_t uid, gid_t gid);

/*
 * user-dirs.c: the profiles' directories. At start-up, STATE/profiles and
 * STATE/profiles/per-user, the daemon's, 0755 (fixed when not; refused
 * when not directories), and the root STATE/gcroots/profiles.
 */
int daemon_profile_dirs(const char *state_dir, struct cix_err *err);
/*
 * For a connecting user: STATE/profiles/per-user/NAME, theirs, 0755, made
 * when missing; one that is not their directory is left as it is, with a
 * warning on standard error (as are other failures).
 */
void daemon_user_profile_dir(const char *state_dir, uid_t uid, gid_t gid);

/*
 * workers.c: the parent's table of its workers (max of them), by uid.
 * remove is for the SIGCHLD handler (1: the pid was a worker), and counts
 * the workers that crashed (died of SIGSEGV, SIGABRT...).
 */
void daemon_workers_init(size_t max);
void daemon_workers_add(pid_t pid, uid_t uid, int refuser);
int daemon_workers_remove(pid_t pid, int status);
void daemon_workers_count(uid_t uid, unsigned *all, unsigned *of_uid, unsigned *refusers);
unsigned daemon_workers_crashes(void);
/* How many workers were ended by a signal (crashed or killed) so far. */
unsigned daemon_workers_killed(void);

/* One client's connection, in its worker process. */
struct conn {
	struct cix_wire w;
	struct cix_store *s;
	const struct daemon_settings *settings;
	unsigned minor;              /* the client's protocol minor version */
	uid_t uid;
	gid_t gid;
	pid_t pid;
	int trusted;
	int snapshot;                /* a read transaction is kept (cix_db_snapshot_hold) */
	const struct cix_conf *conf;
	/* The caches this client's builds use (NULL: none), and --fallback. */
	char *substitute_urls;
	int fallback;
	/* From SetOptions, as far as the client may set them. */
	struct cix_build_opts build;
	/* build.machines: the daemon's builders, or a trusted client's. */
	struct cix_machines machines;
	/* Restricted settings, which only a trusted client may set. */
	struct {
		int auto_optimise;
		char *post_build_hook, *secret_key_files;   /* NULL: none */
		int keep_outputs, keep_derivations;         /* -1: the daemon's */
	} trusted_set;
	uint64_t next_activity;
	/*
	 * An operation could not read all of its request (a NAR that failed
	 * half-way): the stream is out of step, the connection must end.
	 */
	int broken;
	/* The status sent with an operation's error (0: 1), for Guix's clients. */
	unsigned error_status;
	/* A client of Guix's (guix.c), and its print-build-trace. */
	int guix, guix_trace;
};

/*
 * Serve one connection (fd) to its end; returns the worker's exit status.
 * With clean, first remove what dead processes left in the store
 * (temporaries, temporary roots): the daemon asks it of the next worker
 * after one was killed, not of every worker.
 */
int daemon_serve(int fd, const struct daemon_settings *settings,
		 const struct cix_conf *conf, int clean);
struct ucred;
/*
 * The same for a client reading out_fd and writing in_fd (standard output
 * and input: cix-daemon --stdio, run by ssh), who is the user of peer.
 */
int daemon_serve_as(int in_fd, int out_fd, const struct ucred *peer,
		    const struct daemon_settings *settings, const struct cix_conf *conf,
		    int clean);
/*
 * stdio.c: cix-daemon --stdio. Root serves the client on standard input
 * and output itself; another user is relayed to the daemon's socket,
 * which judges them. Returns the exit status.
 */
int daemon_stdio(const struct daemon_settings *set, const struct cix_conf *conf);
/*
 * Refuse one connection: shake hands (waiting a few seconds at most), then
 * send why as the protocol's error; returns the worker's exit status.
 */
int daemon_refuse(int fd, const char *why);

/*
 * Operations. Each reads its arguments, does the work between
 * startWork (nothing to send) and stopWork (LAST), then writes its reply.
 * A negative return with err set is sent to the client as an error,
 * unless reply_started says the reply was begun (then the connection is
 * dropped).
 */
typedef int (*op_fn)(struct conn *c, struct cix_err *err);

/* An operation the daemon serves; its name is cix_worker_op_name(code). */
struct op {
	enum cix_worker_op code;
	op_fn fn;
};

/*
 * ops-query.c, ops-add.c, ops-add-nar.c, ops-build.c, ops-gc.c, ops-log.c.
 * daemon_read_ops only read the database: they are served in the read
 * transaction kept from the last of them while nothing was committed
 * since (cix_db_snapshot_hold); any other operation ends it first.
 */
extern const struct op daemon_read_ops[];
extern const struct op daemon_query_ops[];
extern const struct op daemon_add_ops[];
extern const struct op daemon_add_nar_ops[];
extern const struct op daemon_build_ops[];
extern const struct op daemon_build_drv_ops[];

/*
 * Substitute the plain paths, then build drvs[0..n) (or basic, sent
 * whole as drvs[0]: BuildDerivation) with the client's options and
 * caches, streaming the build output to it (daemon/ops-build.c).
 */
struct cix_drv;
int daemon_build(struct conn *c, const struct strvec *plain, const char *const *drvs, size_t n,
		 struct cix_drv *basic, struct cix_err *err);
/* The build mode that ends a build request (1: repair, trusted only; 2: check). */
int daemon_read_build_mode(struct conn *c, struct cix_err *err);
extern const struct op daemon_gc_ops[];
extern const struct op daemon_log_ops[];

/*
 * guix.c: Guix's dialect. The handshake recognises Guix's clients (and
 * serves them as protocol 1.15); the rest does nothing for other clients.
 */
void daemon_guix_handshake(struct conn *c, uint64_t client_version);
const char *daemon_guix_option(const struct conn *c, const char *name);
void daemon_guix_set_options(struct conn *c, uint64_t print_build_trace);
/* The error status of a failed build (r < 0): Guix's 100, 101 or 1. */
void daemon_guix_build_failed(struct conn *c, int r);
/* Did a Guix client ask for build traces? */
int daemon_guix_traces(const struct conn *c);
/* The trace of a build that starts (err NULL) or ends, as lines in its log. */
void daemon_guix_trace(int log_fd, const char *drv_path, const struct cix_drv *drv,
		       const struct cix_err *err);
extern const struct op daemon_guix_ops[];

/* The machines of a builders setting (spec) for c's builds; NULL: none. */
void conn_set_builders(struct conn *c, const char *spec);

/* subst.c: the client's caches (substitute_urls), with the ACL read now. */
int conn_subst_setup(struct conn *c, struct cix_caches *cs, int log_fd, struct cix_err *err);
/* Make paths valid from the client's caches (those valid already are left). */
int conn_substitute_paths(struct conn *c, const char *const *paths, size_t n, int log_fd,
			  struct cix_err *err);

/*
 * What the client's caches have of paths (those valid here included):
 * fn(opaque, path, its narinfo) for each path a cache has and can be
 * trusted for; fn may take the narinfo's fields (zeroing them). Only a
 * setup failure (the ACL, the URLs) is an error.
 */
typedef void (*conn_subst_found_fn)(void *opaque, const char *path, struct cix_narinfo *ni);
int conn_subst_query(struct conn *c, const char *const *paths, size_t n, conn_subst_found_fn fn,
		     void *opaque, struct cix_err *err);

/*
 * after-build.c: the cix_build_opts on_build hook of a client's builds
 * (opaque: a daemon_build_hook), when it needs one (daemon_build_hook_set):
 * Guix's traces; a trusted client's outputs optimised, signed with its
 * secret-key-files, its post-build-hook run.
 */
struct daemon_build_hook {
	struct conn *c;
	int log_fd;   /* the build's log, which the client sees */
};
void daemon_build_hook_set(struct daemon_build_hook *h, struct cix_build_opts *o);
/* Add sigs (each "NAME:BASE64") to the valid path's signatures. */
int daemon_add_signatures(struct conn *c, const char *path, const struct strvec *sigs,
			  struct cix_err *err);

/* Helpers for operations (conn.c). */
int conn_read_path(struct conn *c, struct strbuf *out, struct cix_err *err);
int conn_read_paths(struct conn *c, struct strvec *out, struct cix_err *err);
/* stopWork: LAST, then the reply follows. */
void conn_last(struct conn *c);
int conn_need_trust(struct conn *c, const char *what, struct cix_err *err);
/*
 * The older protocols' tunnel (a cix_source_fn): the daemon asks the
 * client for up to 64 KiB at a time with STDERR_READ; why a read failed
 * is left in err.
 */
struct conn_tunnel {
	struct conn *c;
	struct strbuf chunk;
	size_t pos;
	struct cix_err err;
};
ssize_t conn_tunnel_read(void *opaque, void *buf, size_t len);
/* Write a path's info as QueryPathInfo does (without the path itself). */
void conn_write_path_info(struct conn *c, const struct cix_path_info *info);

#endif
