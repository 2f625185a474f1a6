/* main.c - cix-daemon: listen on the socket, a worker process per client */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "daemon.h"
#include "substitute.h"
#include "strbuf.h"
#include "util.h"

#include <errno.h>
#include <getopt.h>
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

/* Workers at once; more clients wait in the listen queue. */
#define MAX_WORKERS 1024

static const char *progname = "cix-daemon";
static volatile sig_atomic_t workers;
/* The committer process (lib/db-writer.h), and whether it ended. */
static volatile pid_t committer;
static volatile sig_atomic_t committer_ended, committer_stop;

static void usage(FILE *f)
{
	fprintf(f, "Usage: %s [OPTION]...\n"
		   "Serve the store to clients over the Nix worker protocol.\n\n"
		   "      --listen=SOCKET            listen on SOCKET (default $CIX_STATE_DIR/daemon-socket/socket)\n"
		   "      --build-users-group=GROUP  build as the members of GROUP (default cixbld)\n"
		   "  -M, --max-jobs=N               run up to N builds at once per client (default 1)\n"
		   "  -c, --cores=N                  NIX_BUILD_CORES of builds (default: all)\n"
		   "      --max-silent-time=S        kill a build silent for S seconds\n"
		   "      --timeout=S                kill a build after S seconds (default 86400;\n"
		   "                                 clients may ask for less)\n"
		   "      --max-log-size=SIZE        kill a build logging more (default 64M)\n"
		   "      --build-memory-max=SIZE    memory of a build (default: half the RAM)\n"
		   "      --build-shm-size=SIZE      size of a build's /dev/shm (default: RAM/10)\n"
		   "      --build-pids-max=N         tasks of a build (default: builds-pids-max/2)\n"
		   "      --builds-pids-max=N        tasks of all builds (default: pid_max/4)\n"
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

static void on_child(int sig)
{
	int saved = errno;
	pid_t pid;
	while ((pid = waitpid(-1, NULL, WNOHANG)) > 0) {
		if (pid == committer)
			committer_ended = 1;
		else
			workers--;
	}
	errno = saved;
	(void)sig;
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
	signal(SIGCHLD, SIG_DFL);
	close(listen_fd);
	prctl(PR_SET_NAME, "cix-committer");
	prctl(PR_SET_PDEATHSIG, SIGTERM);
	if (getppid() != parent)
		_exit(0);
	if (cix_store_open(NULL, NULL, &s, &err) < 0 ||
	    cix_db_serve_commits(s->db, &committer_stop, &err) < 0) {
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
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
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

int main(int argc, char **argv)
{
	enum { OPT_LISTEN = 0x100, OPT_GROUP, OPT_SILENT, OPT_TIMEOUT, OPT_CHROOT, OPT_NOSUBST,
	       OPT_DEBUG, OPT_KEEP_DRV, OPT_KEEP_OUT, OPT_SUBST_URLS, OPT_LIMIT };
	static const struct option opts[] = {
		{ "listen", required_argument, NULL, OPT_LISTEN },
		{ "build-users-group", required_argument, NULL, OPT_GROUP },
		{ "max-jobs", required_argument, NULL, 'M' },
		{ "cores", required_argument, NULL, 'c' },
		{ "max-silent-time", required_argument, NULL, OPT_SILENT },
		{ "timeout", required_argument, NULL, OPT_TIMEOUT },
		{ "max-log-size", required_argument, NULL, OPT_LIMIT },
		{ "build-memory-max", required_argument, NULL, OPT_LIMIT },
		{ "build-shm-size", required_argument, NULL, OPT_LIMIT },
		{ "build-pids-max", required_argument, NULL, OPT_LIMIT },
		{ "builds-pids-max", required_argument, NULL, OPT_LIMIT },
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
	struct daemon_settings set = { .max_jobs = 1, .gc_keep_derivations = 1 };
	struct cix_conf conf = { 0 };
	struct strbuf sock = STRBUF_INIT;
	struct strvec limits = STRVEC_INIT;   /* name, value, ... (after cix.conf) */
	struct cix_err err = { 0 };
	int c, fd, idx;

	opterr = 0;
	while ((c = getopt_long(argc, argv, ":M:c:hV", opts, &idx)) != -1) {
		switch (c) {
		case OPT_LISTEN: set.socket_path = optarg; break;
		case OPT_GROUP: setenv("CIX_BUILD_USERS_GROUP", optarg, 1); break;
		case 'M': if (number(optarg, 1024, &set.max_jobs)) return 2; break;
		case 'c': if (number(optarg, 1024, &set.cores)) return 2; break;
		case OPT_SILENT: if (number(optarg, 315360000, &set.max_silent)) return 2; break;
		case OPT_TIMEOUT: strvec_push(&limits, "build-timeout"); strvec_push(&limits, optarg); break;
		case OPT_LIMIT: strvec_push(&limits, opts[idx].name); strvec_push(&limits, optarg); break;
		case OPT_CHROOT:
			fprintf(stderr, "%s: --disable-chroot: builds always run in the sandbox\n",
				progname);
			return 2;
		case OPT_NOSUBST: set.no_substitutes = 1; break;
		case OPT_SUBST_URLS: set.substitute_urls = optarg; break;
		case OPT_DEBUG: set.debug = 1; break;
		case OPT_KEEP_DRV:
			if (yes_no("gc-keep-derivations", optarg, &set.gc_keep_derivations))
				return 2;
			break;
		case OPT_KEEP_OUT:
			if (yes_no("gc-keep-outputs", optarg, &set.gc_keep_outputs))
				return 2;
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
	if (optind < argc) {
		fprintf(stderr, "%s: unexpected argument '%s'\n", progname, argv[optind]);
		return 2;
	}
	set.conf_file = cix_conf_file();
	if (cix_conf_load(set.conf_file, &conf, &err) < 0) {
		fprintf(stderr, "%s: %s\n", progname, err.msg);
		return 1;
	}
	set.limits = conf.limits;
	for (size_t i = 0; i + 1 < limits.nr; i += 2)
		if (cix_build_limit_set(&set.limits, limits.v[i], limits.v[i + 1]) <= 0) {
			fprintf(stderr, "%s: invalid value '%s' for %s\n", progname, limits.v[i + 1],
				limits.v[i]);
			return 2;
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
	if (!set.socket_path) {
		strbuf_addf(&sock, "%s/daemon-socket/socket", cix_state_dir());
		set.socket_path = sock.buf;
	}
	/* Open the store once: it is created, and its errors shown, here. */
	struct cix_store *s;
	int r = cix_store_open(NULL, NULL, &s, &err);
	if (r == 0) {
		r = daemon_profile_dirs(s->state_dir, &err);
		cix_store_close(s);
	}
	if (r < 0 || (fd = listen_on(set.socket_path)) < 0) {
		if (r < 0)
			fprintf(stderr, "%s: %s\n", progname, err.msg);
		cix_conf_release(&conf);
		strbuf_release(&sock);
		return 1;
	}

	struct sigaction sa = { .sa_handler = on_child, .sa_flags = SA_RESTART | SA_NOCLDSTOP };
	sigemptyset(&sa.sa_mask);
	sigaction(SIGCHLD, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	if (set.debug)
		fprintf(stderr, "%s: listening on '%s'\n", progname, set.socket_path);
	start_committer(fd);
	for (;;) {
		int cfd = accept4(fd, NULL, NULL, SOCK_CLOEXEC);
		if (committer_ended)
			start_committer(fd);
		if (cfd < 0) {
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			if (errno == EMFILE || errno == ENFILE) {
				sleep(1);
				continue;
			}
			fprintf(stderr, "%s: accept: %s\n", progname, strerror(errno));
			return 1;
		}
		while (workers >= MAX_WORKERS)
			pause();
		pid_t pid = fork();
		if (pid == 0) {
			close(fd);
			signal(SIGCHLD, SIG_DFL);
			_exit(daemon_serve(cfd, &set, &conf));
		}
		if (pid > 0)
			workers++;
		else
			fprintf(stderr, "%s: cannot fork: %s\n", progname, strerror(errno));
		close(cfd);
	}
}
