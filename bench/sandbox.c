/* sandbox.c - drive cix_sandbox_run from tests, and time the sandbox's set-up */
/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Usage: sandbox [OPTION]... -- BUILDER [ARG]...
 *   --root DIR        the new root (created if missing; must be empty)
 *   --store DIR       logical store directory (default /cix/store)
 *   --input PATH      an input store path (repeatable)
 *   --extra PATH      a host path bound read-only at the same place
 *   --build DIR       the build directory (/build inside)
 *   --uid N --gid N   a build user (default: a user namespace only)
 *   --network         a network through slirp4netns (fixed-output)
 *   --host-loopback   with it, 10.0.2.2 reaches the host's 127.0.0.1
 *   --timeout N --max-silent N --max-log BYTES --max-procs N
 *   --env NAME=VALUE  the builder's environment, exactly (repeatable)
 *   --repeat N        run N times, each in a fresh ROOT/run-I, and print
 *                     the mean, minimum and maximum set-up time
 * prints "exit N" or "signal N", then "timed_out", "silent_too_long",
 * "log_too_long" when so, "seccomp" when the filter was installed, "slirp"
 * when slirp4netns gave the network, and
 * "prepare_ms X" and "setup_ms X"; the builder's output goes to standard error. Exit status:
 * 0 when the sandbox ran, 1 when it could not be set up (message on
 * standard error), 2 on a usage error.
 *
 *        sandbox --listen PORTFILE
 * listens on 127.0.0.1 on a free port, writes the port to PORTFILE and
 * answers every connection with "hello\n" (the test's host service).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sandbox.h"

static int listen_mode(const char *portfile)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in sa;
	socklen_t len = sizeof(sa);
	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    listen(fd, 16) < 0 || getsockname(fd, (struct sockaddr *)&sa, &len) < 0) {
		perror("listen");
		return 1;
	}
	FILE *f = fopen(portfile, "w");
	if (!f || fprintf(f, "%d\n", ntohs(sa.sin_port)) < 0 || fclose(f)) {
		perror(portfile);
		return 1;
	}
	for (;;) {
		int c = accept(fd, NULL, NULL);
		if (c < 0)
			continue;
		if (write(c, "hello\n", 6) < 0)
			perror("write");
		close(c);
	}
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void print_status(int st)
{
	if (WIFEXITED(st))
		printf("exit %d\n", WEXITSTATUS(st));
	else if (WIFSIGNALED(st))
		printf("signal %d\n", WTERMSIG(st));
	else
		printf("status %d\n", st);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "root", 1, NULL, 'r' }, { "store", 1, NULL, 's' },
		{ "input", 1, NULL, 'i' }, { "extra", 1, NULL, 'x' },
		{ "build", 1, NULL, 'b' }, { "uid", 1, NULL, 'u' },
		{ "gid", 1, NULL, 'g' }, { "network", 0, NULL, 'n' },
		{ "timeout", 1, NULL, 't' }, { "max-silent", 1, NULL, 'S' },
		{ "max-log", 1, NULL, 'L' }, { "env", 1, NULL, 'e' },
		{ "max-procs", 1, NULL, 'P' },
		{ "repeat", 1, NULL, 'R' }, { "listen", 1, NULL, 'l' },
		{ "host-loopback", 0, NULL, 'H' },
		{ NULL, 0, NULL, 0 },
	};
	struct cix_sandbox_spec spec;
	const char **inputs = NULL, **extras = NULL;
	char **env = NULL;
	size_t nr_in = 0, al_in = 0, nr_x = 0, al_x = 0, nr_env = 0, al_env = 0;
	const char *root = NULL;
	unsigned repeat = 0;
	int c;

	memset(&spec, 0, sizeof(spec));
	spec.store_dir = "/cix/store";
	spec.uid = (uid_t)-1;
	spec.gid = (gid_t)-1;
	spec.log_fd = 2;
	while ((c = getopt_long(argc, argv, "+", opts, NULL)) != -1) {
		switch (c) {
		case 'r': root = optarg; break;
		case 's': spec.store_dir = optarg; break;
		case 'i':
			ALLOC_GROW(inputs, nr_in + 1, al_in);
			inputs[nr_in++] = optarg;
			break;
		case 'x':
			ALLOC_GROW(extras, nr_x + 1, al_x);
			extras[nr_x++] = optarg;
			break;
		case 'b': spec.build_dir = optarg; break;
		case 'u': spec.uid = (uid_t)strtoul(optarg, NULL, 10); break;
		case 'g': spec.gid = (gid_t)strtoul(optarg, NULL, 10); break;
		case 'n': spec.network |= CIX_SANDBOX_NET; break;
		case 'H': spec.network |= CIX_SANDBOX_NET | CIX_SANDBOX_NET_HOST_LOOPBACK; break;
		case 't': spec.timeout = (unsigned)strtoul(optarg, NULL, 10); break;
		case 'S': spec.max_silent = (unsigned)strtoul(optarg, NULL, 10); break;
		case 'L': spec.max_log = strtoull(optarg, NULL, 10); break;
		case 'P': spec.max_procs = strtoul(optarg, NULL, 10); break;
		case 'e':
			ALLOC_GROW(env, nr_env + 1, al_env);
			env[nr_env++] = optarg;
			break;
		case 'R': repeat = (unsigned)strtoul(optarg, NULL, 10); break;
		case 'l': return listen_mode(optarg);
		default: return 2;
		}
	}
	if (optind >= argc || !root || !spec.build_dir) {
		fprintf(stderr, "usage: sandbox --root DIR --build DIR [OPTION]... -- BUILDER [ARG]...\n");
		return 2;
	}
	ALLOC_GROW(env, nr_env + 1, al_env);
	env[nr_env] = NULL;
	spec.inputs = inputs;
	spec.nr_inputs = nr_in;
	spec.extra_paths = extras;
	spec.nr_extra_paths = nr_x;
	spec.builder = argv[optind];
	spec.argv = argv + optind;
	spec.envp = env;

	/* As a daemon would: the sandbox must not pass these on. */
	signal(SIGPIPE, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	sigset_t block;
	sigemptyset(&block);
	sigaddset(&block, SIGUSR1);
	sigprocmask(SIG_BLOCK, &block, NULL);

	struct cix_sandbox_result res;
	struct cix_err err;
	int ret = 0;
	if (!repeat) {
		mkdir(root, 0700);
		spec.root = root;
		if (cix_sandbox_run(&spec, &res, &err) < 0) {
			fprintf(stderr, "sandbox: %s\n", err.msg);
			return 1;
		}
		print_status(res.status);
		if (res.timed_out) puts("timed_out");
		if (res.silent_too_long) puts("silent_too_long");
		if (res.log_too_long) puts("log_too_long");
		if (res.seccomp) puts("seccomp");
		if (res.slirp) puts("slirp");
		if (res.proc_limit == CIX_SANDBOX_LIMIT_CGROUP) puts("proc_limit cgroup");
		if (res.proc_limit == CIX_SANDBOX_LIMIT_RLIMIT) puts("proc_limit rlimit");
		printf("prepare_ms %.3f\n", res.prepare_seconds * 1000);
		printf("setup_ms %.3f\n", res.setup_seconds * 1000);
	} else {
		double sum = 0, min = 1e9, max = 0, tot = 0, prep = 0, wall = 0;
		char dir[4096];
		mkdir(root, 0700);
		for (unsigned i = 0; i < repeat; i++) {
			snprintf(dir, sizeof(dir), "%s/run-%u", root, i);
			if (mkdir(dir, 0700) < 0) {
				perror(dir);
				return 1;
			}
			spec.root = dir;
			double t0 = now();
			if (cix_sandbox_run(&spec, &res, &err) < 0) {
				fprintf(stderr, "sandbox: %s\n", err.msg);
				return 1;
			}
			wall += now() - t0;
			if (!WIFEXITED(res.status) || WEXITSTATUS(res.status))
				ret = 1;
			sum += res.setup_seconds;
			prep += res.prepare_seconds;
			tot += res.total_seconds;
			if (res.setup_seconds < min) min = res.setup_seconds;
			if (res.setup_seconds > max) max = res.setup_seconds;
		}
		printf("runs %u setup_ms mean %.3f min %.3f max %.3f; prepare mean %.3f ms;"
		       " clone to end mean %.3f ms; whole run mean %.3f ms\n", repeat,
		       sum / repeat * 1000, min * 1000, max * 1000, prep / repeat * 1000,
		       tot / repeat * 1000, wall / repeat * 1000);
	}
	free(inputs);
	free(extras);
	free(env);
	return ret;
}
