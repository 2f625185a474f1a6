/* main.c - cix-daemon: listen on the socket, a worker process per client */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "hash.h"
#include "daemon.h"
#include "gc.h"
#include "substitute.h"
#include "strbuf.h"
#include "strvec.h"
#include "util.h"

#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/*
 * Refused clients are told why by a process of their own, for a few
 * seconds at most; beyond this many at once, they are just hung up on.
 */
#define MAX_REFUSERS 32

static const char *progname = "cix-daemon";
/* The signal mask of the daemon's start, restored in its children. */
static sigset_t start_mask;
/* The committer process (lib/db-writer.h), and whether it ended. */
static volatile pid_t committer;
static volatile sig_atomic_t committer_ended, committer_stop;

static void usage(FILE *f)
{
	fprintf(f, "Usage: %s [OPTION]...\n"
		   "Serve the store to clients over the Nix worker protocol.\n\n"
		   "      --listen=SOCKET            listen on SOCKET (default $CIX_STATE_DIR/daemon-socket/socket)\n"
		   "      --stdio                    serve one client on standard input and output\n"
		   "                                 (ssh HOST cix-daemon --stdio): as root itself,\n"
		   "                                 as another user through the daemon at SOCKET\n"
		   "      --build-users-group=GROUP  build as the members of GROUP (default cixbld)\n"
		   "  -M, --max-jobs=N               run up to N builds at once per client (default 1)\n"
		   "  -c, --cores=N                  NIX_BUILD_CORES of builds (default: all)\n"
		   "      --max-silent-time=S        kill a build silent for S seconds\n"
		   "      --timeout=S                kill a build after S seconds (default 86400)\n"
		   "      --max-build-log-size=BYTES kill a build that logs more than BYTES\n"
		   "                                 (default 64M; clients may lower these limits,\n"
		   "                                 not raise them; --max-log-size is the same)\n"
		   "      --build-memory-max=SIZE    memory of a build (default: half the RAM)\n"
		   "      --build-shm-size=SIZE      size of a build's /dev/shm (default: RAM/10)\n"
		   "      --build-tmp-size=SIZE      size of a build's /tmp (default: RAM/10)\n"
		   "      --build-pids-max=N         tasks of a build (default: builds-pids-max/2)\n"
		   "      --builds-pids-max=N        tasks of all builds (default: pid_max/4)\n"
		   "      --max-connections=N        serve up to N connections at once (1024)\n"
		   "      --max-connections-per-user=N  up to N of one user (64; 0: no cap;\n"
		   "                                 root and trusted users: no cap)\n"
		   "      --idle-timeout=S           close a connection idle for S seconds (600)\n"
		   "      --trusted-idle-timeout=S   the same for trusted users (86400)\n"
		   "      --max-request-memory=BYTES memory one request may take (64M)\n"
		   "      --max-crashes=N            exit after N workers crashed (64; 0: never)\n"
		   "      --disable-chroot           refused: builds always run in the sandbox\n"
		   "      --substitute-urls=URLS     binary caches to use, in this order (default:\n"
		   "                                 substitute-urls of cix.conf); clients may\n"
		   "                                 choose among them\n"
		   "      --no-substitutes           do not use substitutes\n"
		   "      --gc-keep-derivations[=yes|no]  keep the derivations of live paths (yes)\n"
		   "      --gc-keep-outputs[=yes|no]      keep the outputs of live derivations (no)\n"
		   "      --debug                    log connections on standard error\n"
		   "  -h, --help                     display this help and exit\n"
		   "  -V, --version                  display version information and exit\n",
		progname);
}

static int number(const char *s, unsigned long max, unsigned *out)
{
	unsigned long long v;
	if (cix_parse_decimal(s, max, &v) < 0) {
		fprintf(stderr, "%s: invalid number '%s'\n", progname, s);
		return -1;
	}
	*out = (unsigned)v;
	return 0;
}

static int yes_no(const char *opt, const char *arg, int *out)
{
	if (!arg || !strcmp(arg, "yes"))
		*out = 1;
	else if (!strcmp(arg, "no"))
		*out = 0;
	else {
		fprintf(stderr, "%s: --%s takes 'yes' or 'no', not '%s'\n", progname, opt, arg);
		return -1;
	}
	return 0;
}

static int bytes(const char *opt, const char *s, unsigned long long *out)
{
	uint64_t v;
	if (cix_parse_size(s, &v) < 0) {
		fprintf(stderr, "%s: --%s: invalid size '%s'\n", progname, opt, s);
		return -1;
	}
	*out = v;
	return 0;
}

static void on_child(int sig)
{
	int saved = errno, status;
	pid_t pid;
	while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
		if (pid == committer)
			committer_ended = 1;
		else
			daemon_workers_remove(pid, status);
	}
	errno = saved;
	(void)sig;
}

/* In a child of the daemon: the signals as they were at its start. */
static void child_signals(void)
{
	signal(SIGCHLD, SIG_DFL);
	sigprocmask(SIG_SETMASK, &start_mask, NULL);
}

static void on_term(int sig)
{
	committer_stop = 1;
	(void)sig;
}

/*
 * A process of its own commits what the workers register, in groups: one
 * connection writes, so its cache stays warm, and workers that register at
 * once share a transaction. It ends with the daemon; while it is missing,
 * workers commit for themselves.
 */
static void start_committer(int listen_fd)
{
	static time_t last;
	pid_t parent = getpid();
	time_t now = time(NULL);
	if (now == last)
		return;   /* (not in a loop when it cannot run: next time) */
	last = now;
	committer_ended = 0;
	pid_t pid = fork();
	if (pid < 0) {
		fprintf(stderr, "%s: cannot fork: %s\n", progname, strerror(errno));
		committer_ended = 1;
		return;
	}
	if (pid > 0) {
		committer = pid;
		return;
	}
	struct cix_store *s;
	struct cix_err err = { 0 };
	struct sigaction sa = { .sa_handler = on_term };
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	child_signals();
	close(listen_fd);
	prctl(PR_SET_NAME, "cix-committer");
	prctl(PR_SET_PDEATHSIG, SIGTERM);
	if (getppid() != parent)
		_exit(0);
	if (cix_store_open(NULL, NULL, &s, &err) < 0) {
		fprintf(stderr, "%s: committer: %s\n", progname, err.msg);
		_exit(1);
	}
	/* It makes no temporaries: the store's .cix-tmp need not last for it. */
	cix_store_close_tmp(s);
	if (cix_db_serve_commits(s->db, &committer_stop, &err) < 0) {
		fprintf(stderr, "%s: committer: %s\n", progname, err.msg);
		_exit(1);
	}
	cix_store_close(s);
	_exit(0);
}

/* Create the socket's directory and bind a fresh socket, world-connectable. */
static int listen_on(const char *path)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	char *dir = xstrdup(path), *slash = strrchr(dir, '/');
	int fd;

	if (strlen(path) >= sizeof(addr.sun_path)) {
		fprintf(stderr, "%s: socket path too long: %s\n", progname, path);
		free(dir);
		return -1;
	}
	if (slash && slash != dir) {
		*slash = '\0';
		if (mkdir(dir, 0755) < 0 && errno != EEXIST) {
			fprintf(stderr, "%s: cannot create '%s': %s\n", progname, dir, strerror(errno));
			free(dir);
			return -1;
		}
	}
	free(dir);
	strcpy(addr.sun_path, path);
	/* Non-blocking: a client gone between poll and accept stops nothing. */
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0) {
		fprintf(stderr, "%s: cannot create a socket: %s\n", progname, strerror(errno));
		return -1;
	}
	/* A socket left by an earlier daemon: replace it. */
	struct stat st;
	if (lstat(path, &st) == 0 && S_ISSOCK(st.st_mode))
		unlink(path);
	mode_t old = umask(0111);
	int r = bind(fd, (struct sockaddr *)&addr, sizeof(addr));
	umask(old);
	if (r < 0 || listen(fd, 128) < 0) {
		fprintf(stderr, "%s: cannot listen on '%s': %s\n", progname, path, strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

/* Root and the trusted users: no cap on their connections. */
static int privileged(const struct ucred *cred, const struct cix_conf *conf)
{
	return cred->uid == 0 || daemon_user_in(&conf->trusted_users, cred->uid, cred->gid);
}

/*
 * Why the connection of cred may not be served now ("": it may), with
 * all connections served and mine of its user.
 */
static void why_refused(const struct ucred *cred, unsigned all, unsigned mine,
			const struct daemon_settings *set, const struct cix_conf *conf,
			char *why, size_t size)
{
	*why = '\0';
	if (all >= set->max_conns)
		snprintf(why, size, "the cix daemon serves too many connections (%u); "
			 "try again later", all);
	/* (the trust of a user is only looked up when it matters) */
	else if (set->max_conns_per_user && mine >= set->max_conns_per_user &&
		 !privileged(cred, conf))
		snprintf(why, size, "user %u has too many connections to the cix daemon (%u); "
			 "close some and try again", (unsigned)cred->uid, mine);
}

/*
 * A worker for the connection cfd, or a refuser when its user (or
 * everyone) has too many: never wait for one to end, so that no user can
 * keep the others in the listen queue. Runs with SIGCHLD blocked.
 */
static void admit(int cfd, int listen_fd, const struct daemon_settings *set,
		  const struct cix_conf *conf)
{
	struct ucred cred;
	socklen_t len = sizeof(cred);
	unsigned all, mine, refusers;
	char why[256];

	if (getsockopt(cfd, SOL_SOCKET, SO_PEERCRED, &cred, &len) < 0) {
		fprintf(stderr, "%s: cannot get the peer's credentials: %s\n", progname,
			strerror(errno));
		return;
	}
	daemon_workers_count(cred.uid, &all, &mine, &refusers);
	why_refused(&cred, all, mine, set, conf, why, sizeof(why));
	if (*why && set->debug)
		fprintf(stderr, "%s: refused uid %u: %s\n", progname, (unsigned)cred.uid, why);
	if (*why && refusers >= MAX_REFUSERS)
		return;   /* refusals are flooding in: a hang-up without a word */
	/*
	 * The store was cleaned when the daemon started; after that, what a
	 * worker ended by a signal left is removed by the next one.
	 */
	static unsigned cleaned;
	int clean = !*why && daemon_workers_killed() != cleaned;
	pid_t pid = fork();
	if (pid == 0) {
		close(listen_fd);
		child_signals();
		_exit(*why ? daemon_refuse(cfd, why) : daemon_serve(cfd, set, conf, clean));
	}
	if (pid > 0 && clean)
		cleaned = daemon_workers_killed();
	if (pid > 0)
		daemon_workers_add(pid, cred.uid, *why != '\0');
	else
		fprintf(stderr, "%s: cannot fork: %s\n", progname, strerror(errno));
}

/*
 * Returns the exit status, or -1 to go on; the build limits given go to
 * limits as name, value, ... (applied over cix.conf's).
 */
static int parse_options(int argc, char **argv, struct daemon_settings *set,
			 struct strvec *limits)
{
	enum { OPT_LISTEN = 0x100, OPT_GROUP, OPT_SILENT, OPT_TIMEOUT, OPT_CHROOT, OPT_NOSUBST,
	       OPT_DEBUG, OPT_KEEP_DRV, OPT_KEEP_OUT, OPT_SUBST_URLS, OPT_MAX_LOG, OPT_MAX_CONNS,
	       OPT_MAX_USER_CONNS, OPT_IDLE, OPT_TRUSTED_IDLE, OPT_REQ_MEM, OPT_MAX_CRASHES,
	       OPT_LIMIT, OPT_STDIO };
	static const struct option opts[] = {
		{ "listen", required_argument, NULL, OPT_LISTEN },
		{ "stdio", no_argument, NULL, OPT_STDIO },
		{ "build-users-group", required_argument, NULL, OPT_GROUP },
		{ "max-jobs", required_argument, NULL, 'M' },
		{ "cores", required_argument, NULL, 'c' },
		{ "max-silent-time", required_argument, NULL, OPT_SILENT },
		{ "timeout", required_argument, NULL, OPT_TIMEOUT },
		{ "max-build-log-size", required_argument, NULL, OPT_MAX_LOG },
		{ "max-log-size", required_argument, NULL, OPT_MAX_LOG },
		{ "build-memory-max", required_argument, NULL, OPT_LIMIT },
		{ "build-shm-size", required_argument, NULL, OPT_LIMIT },
		{ "build-tmp-size", required_argument, NULL, OPT_LIMIT },
		{ "build-pids-max", required_argument, NULL, OPT_LIMIT },
		{ "builds-pids-max", required_argument, NULL, OPT_LIMIT },
		{ "max-connections", required_argument, NULL, OPT_MAX_CONNS },
		{ "max-connections-per-user", required_argument, NULL, OPT_MAX_USER_CONNS },
		{ "idle-timeout", required_argument, NULL, OPT_IDLE },
		{ "trusted-idle-timeout", required_argument, NULL, OPT_TRUSTED_IDLE },
		{ "max-request-memory", required_argument, NULL, OPT_REQ_MEM },
		{ "max-crashes", required_argument, NULL, OPT_MAX_CRASHES },
		{ "disable-chroot", no_argument, NULL, OPT_CHROOT },
		{ "no-substitutes", no_argument, NULL, OPT_NOSUBST },
		{ "substitute-urls", required_argument, NULL, OPT_SUBST_URLS },
		{ "debug", no_argument, NULL, OPT_DEBUG },
		{ "gc-keep-derivations", optional_argument, NULL, OPT_KEEP_DRV },
		{ "gc-keep-outputs", optional_argument, NULL, OPT_KEEP_OUT },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	/* Seconds: up to 10 years for builds, 23 days (in ms, an int) for idling. */
	const unsigned long secs = 315360000, idle_secs = 2000000;
	int c, bad = 0, idx;

	opterr = 0;
	while (!bad && (c = getopt_long(argc, argv, ":M:c:hV", opts, &idx)) != -1) {
		switch (c) {
		case OPT_LISTEN: set->socket_path = optarg; break;
		case OPT_STDIO: set->stdio = 1; break;
		case OPT_GROUP: setenv("CIX_BUILD_USERS_GROUP", optarg, 1); break;
		case 'M':
			bad = number(optarg, 1024, &set->max_jobs);
			set->max_jobs_set = 1;
			break;
		case 'c': bad = number(optarg, 1024, &set->cores); break;
		case OPT_SILENT: bad = number(optarg, secs, &set->max_silent); break;
		case OPT_TIMEOUT:
			bad = number(optarg, secs, &set->timeout);
			strvec_push(limits, "build-timeout");
			strvec_push(limits, optarg);
			break;
		case OPT_MAX_LOG:
			bad = bytes("max-build-log-size", optarg, &set->max_log);
			strvec_push(limits, "max-log-size");
			strvec_push(limits, optarg);
			break;
		case OPT_LIMIT:
			strvec_push(limits, opts[idx].name);
			strvec_push(limits, optarg);
			break;
		case OPT_MAX_CONNS:
			if (!(bad = number(optarg, 65536, &set->max_conns)) && !set->max_conns) {
				fprintf(stderr, "%s: --max-connections must be at least 1\n", progname);
				bad = 1;
			}
			break;
		case OPT_MAX_USER_CONNS: bad = number(optarg, 65536, &set->max_conns_per_user); break;
		case OPT_IDLE: bad = number(optarg, idle_secs, &set->idle_timeout); break;
		case OPT_TRUSTED_IDLE: bad = number(optarg, idle_secs, &set->trusted_idle_timeout); break;
		case OPT_REQ_MEM:
			bad = bytes("max-request-memory", optarg, &set->max_request_memory);
			break;
		case OPT_MAX_CRASHES: bad = number(optarg, 1000000, &set->max_crashes); break;
		case OPT_CHROOT:
			fprintf(stderr, "%s: --disable-chroot: builds always run in the sandbox\n",
				progname);
			return 2;
		case OPT_NOSUBST: set->no_substitutes = 1; break;
		case OPT_SUBST_URLS: set->substitute_urls = optarg; break;
		case OPT_DEBUG: set->debug = 1; break;
		case OPT_KEEP_DRV:
			bad = yes_no("gc-keep-derivations", optarg, &set->gc_keep_derivations);
			break;
		case OPT_KEEP_OUT:
			bad = yes_no("gc-keep-outputs", optarg, &set->gc_keep_outputs);
			break;
		case 'h': usage(stdout); return 0;
		case 'V': printf("%s (cix) %s\n", progname, CIX_VERSION); return 0;
		case ':':
			fprintf(stderr, "%s: option '%s' requires an argument\n", progname, argv[optind - 1]);
			fprintf(stderr, "Try '%s --help' for more information.\n", progname);
			return 2;
		default:
			fprintf(stderr, "%s: unrecognized option '%s'\n", progname, argv[optind - 1]);
			fprintf(stderr, "Try '%s --help' for more information.\n", progname);
			return 2;
		}
	}
	if (bad)
		return 2;
	if (optind < argc) {
		fprintf(stderr, "%s: unexpected argument '%s'\n", progname, argv[optind]);
		return 2;
	}
	return -1;
}

/* Accept clients for ever (the exit status when the daemon must stop). */
static int serve(int fd, const struct daemon_settings *set, const struct cix_conf *conf)
{
	sigset_t chld;
	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	/* SIGCHLD only comes while waiting: the table is never changed under us. */
	sigprocmask(SIG_BLOCK, &chld, &start_mask);
	struct sigaction sa = { .sa_handler = on_child, .sa_flags = SA_NOCLDSTOP };
	sigemptyset(&sa.sa_mask);
	sigaction(SIGCHLD, &sa, NULL);
	daemon_workers_init(set->max_conns + MAX_REFUSERS);
	start_committer(fd);
	for (;;) {
		unsigned crashed = daemon_workers_crashes();
		if (set->max_crashes && crashed >= set->max_crashes) {
			/* Crashes one after another: someone probing the workers' memory layout. */
			fprintf(stderr, "%s: %u workers crashed (--max-crashes=%u): exiting\n",
				progname, crashed, set->max_crashes);
			return 1;
		}
		if (committer_ended)
			start_committer(fd);
		struct pollfd p = { .fd = fd, .events = POLLIN };
		if (ppoll(&p, 1, NULL, &start_mask) < 0 && errno != EINTR) {
			fprintf(stderr, "%s: poll: %s\n", progname, strerror(errno));
			return 1;
		}
		int cfd = accept4(fd, NULL, NULL, SOCK_CLOEXEC);
		if (cfd < 0) {
			if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR ||
			    errno == ECONNABORTED)
				continue;
			if (errno == EMFILE || errno == ENFILE) {
				sleep(1);
				continue;
			}
			fprintf(stderr, "%s: accept: %s\n", progname, strerror(errno));
			return 1;
		}
		admit(cfd, fd, set, conf);
		close(cfd);
	}
}

/* cix.conf's build limits, then the options': 2 when one is bad, else -1. */
static int apply_limits(struct daemon_settings *set, const struct cix_conf *conf,
			const struct strvec *limits)
{
	set->limits = conf->limits;
	for (size_t i = 0; i + 1 < limits->nr; i += 2)
		if (cix_build_limit_set(&set->limits, limits->v[i], limits->v[i + 1]) <= 0) {
			fprintf(stderr, "%s: invalid value '%s' for --%s\n", progname,
				limits->v[i + 1], limits->v[i]);
			return 2;
		}
	return -1;
}

/* A builders setting (the machines file) that does not parse stops the daemon at once. */
static int check_builders(const char *spec)
{
	struct cix_machines ms = CIX_MACHINES_INIT;
	struct cix_err err = { 0 };
	int r = cix_machines_from_spec(&ms, spec, &err);
	if (r < 0)
		fprintf(stderr, "%s: %s\n", progname, err.msg);
	cix_machines_release(&ms);
	return r;
}

int main(int argc, char **argv)
{
	struct daemon_settings set = {
		.max_jobs = 1, .gc_keep_derivations = 1,
		.max_conns = 1024, .max_conns_per_user = 64,
		.idle_timeout = 600, .trusted_idle_timeout = 86400,
		.max_request_memory = 64 << 20, .max_crashes = 64,
	};
	struct cix_conf conf = { 0 };
	struct strbuf sock = STRBUF_INIT;
	struct cix_err err = { 0 };
	int fd, r;

	struct strvec limits = STRVEC_INIT;   /* name, value, ... (after cix.conf) */
	cix_hash_global_init();   /* (libgcrypt aborts if its first use finds no descriptor) */
	r = parse_options(argc, argv, &set, &limits);
	if (r < 0) {
		set.conf_file = cix_conf_file();
		r = cix_conf_load(set.conf_file, &conf, &err) < 0 ? 1 : -1;
		if (r > 0)
			fprintf(stderr, "%s: %s\n", progname, err.msg);
	}
	if (r < 0)
		r = apply_limits(&set, &conf, &limits);
	strvec_clear(&limits);
	if (r >= 0) {
		cix_conf_release(&conf);
		return r;
	}
	if (!set.substitute_urls)
		set.substitute_urls = conf.substitute_urls;
	if (set.substitute_urls) {
		struct cix_substituter *subs;
		size_t n;
		if (cix_substituters_make(set.substitute_urls, NULL, &subs, &n, &err) < 0) {
			fprintf(stderr, "%s: %s\n", progname, err.msg);
			return 2;
		}
		cix_substituters_free(subs, n);
	}
	struct strbuf machines = STRBUF_INIT;
	set.builders = cix_machines_default_spec(&conf, &machines);
	if (check_builders(set.builders) < 0) {
		cix_conf_release(&conf);
		strbuf_release(&machines);
		return 2;
	}
	if (!set.socket_path) {
		strbuf_addf(&sock, "%s/daemon-socket/socket", cix_state_dir());
		set.socket_path = sock.buf;
	}
	if (set.stdio) {
		r = daemon_stdio(&set, &conf);
		cix_conf_release(&conf);
		strbuf_release(&sock);
		strbuf_release(&machines);
		return r;
	}
	/* Open the store once: it is created, and its errors shown, here. */
	struct cix_store *s;
	r = cix_store_open(NULL, NULL, &s, &err);
	if (r == 0) {
		r = daemon_profile_dirs(s->state_dir, &err);
		cix_store_close(s);
	}
	if (r < 0 || (fd = listen_on(set.socket_path)) < 0) {
		if (r < 0)
			fprintf(stderr, "%s: %s\n", progname, err.msg);
		cix_conf_release(&conf);
		strbuf_release(&sock);
		strbuf_release(&machines);
		return 1;
	}
	signal(SIGPIPE, SIG_IGN);
	if (set.debug)
		fprintf(stderr, "%s: listening on '%s'\n", progname, set.socket_path);
	r = serve(fd, &set, &conf);
	close(fd);
	cix_conf_release(&conf);
	strbuf_release(&sock);
	strbuf_release(&machines);
	return r;
}
