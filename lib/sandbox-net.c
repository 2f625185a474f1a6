/* sandbox-net.c - a fixed-output build's network: slirp4netns in its namespace */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "sandbox-int.h"
#include "env.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "conf.h"

/* slirp4netns configures tap0 in milliseconds; a hang is abandoned. */
#define SLIRP_READY_TIMEOUT_MS 10000

extern char **environ;

static int yes(const char *v)
{
	return !strcmp(v, "yes") || !strcmp(v, "true") || !strcmp(v, "1");
}

int cix_sandbox_fod_network(void)
{
	const char *v = cix_env(CIX_ENV_FOD_HOST_LOOPBACK);
	int loopback = 0;
	if (v && *v)
		loopback = yes(v);
	else
		loopback = cix_conf_fod_host_loopback();
	return CIX_SANDBOX_NET | (loopback ? CIX_SANDBOX_NET_HOST_LOOPBACK : 0);
}

/* $CIX_SLIRP4NETNS, else slirp4netns in an absolute directory of $PATH, else /usr/bin's. */
static int find_slirp(char *path, size_t size)
{
	static const char name[] = "/slirp4netns";
	const char *v = cix_env(CIX_ENV_SLIRP4NETNS), *p = cix_env(CIX_ENV_PATH);
	if (v && *v) {
		if (strlen(v) >= size)
			return -ENAMETOOLONG;
		strcpy(path, v);
		return access(path, X_OK) == 0 ? 0 : -errno;
	}
	while (p && *p) {
		size_t n = strcspn(p, ":");
		if (p[0] == '/' && n + sizeof(name) <= size) {
			memcpy(path, p, n);
			memcpy(path + n, name, sizeof(name));
			if (access(path, X_OK) == 0)
				return 0;
		}
		p += n + (p[n] == ':');
	}
	snprintf(path, size, "/usr/bin%s", name);
	return access(path, X_OK) == 0 ? 0 : -ENOENT;
}

/*
 * The forked child, in a copy of a possibly multi-threaded caller: system
 * calls only. fds[i] becomes descriptor i; nothing else stays open, so
 * slirp4netns holds none of the sandbox's pipes.
 */
CIX_NORETURN static void exec_slirp(const char *exe, char *const *argv, const int *fds,
				    int nr, pid_t parent)
{
	int high[8];
	for (int i = 0; i < nr; i++)
		if ((high[i] = fcntl(fds[i], F_DUPFD_CLOEXEC, 10)) < 0)
			_exit(127);
	for (int i = 0; i < nr; i++)
		if (dup2(high[i], i) < 0)
			_exit(127);
	if (syscall(SYS_close_range, (unsigned)nr, ~0U, 0U) < 0)
		_exit(127);
	/* It dies with us, and we may be gone already. */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != parent)
		_exit(127);
	sigset_t none;
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	execve(exe, argv, environ);
	_exit(127);
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/* The first line of its standard error that is not a warning, made printable. */
static void slirp_said(int fd, char *out, size_t size)
{
	char buf[2048];
	ssize_t n = read(fd, buf, sizeof(buf) - 1);
	out[0] = '\0';
	if (n <= 0)
		return;
	buf[n] = '\0';
	for (char *line = buf, *end; *line; line = end + (*end != '\0')) {
		end = line + strcspn(line, "\n");
		if (end == line || !strncmp(line, "WARNING", 7))
			continue;
		size_t len = (size_t)(end - line) < size - 1 ? (size_t)(end - line) : size - 1;
		for (size_t i = 0; i < len; i++)
			out[i] = line[i] >= ' ' && line[i] < 127 ? line[i] : '?';
		out[len] = '\0';
		return;
	}
}

static int wait_ready(int fd)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	char c = 0;
	ssize_t n = 0;
	int pr;
	while ((pr = poll(&pfd, 1, SLIRP_READY_TIMEOUT_MS)) < 0 && errno == EINTR)
		;
	if (pr == 0)
		return -ETIMEDOUT;
	while (pr > 0 && (n = read(fd, &c, 1)) < 0 && errno == EINTR)
		;
	return n == 1 ? 0 : -EPIPE;
}

int cix_sandbox_slirp_start(struct sb_slirp *sl, pid_t target, int host_loopback,
			    char *why, size_t size)
{
	char exe[PATH_MAX], pidarg[16], said[200];
	int ready[2] = { -1, -1 }, exitp[2] = { -1, -1 }, errp[2] = { -1, -1 };
	int nullfd = -1, ret;

	sl->pid = -1;
	sl->pidfd = sl->exit_fd = sl->err_fd = -1;
	if ((ret = find_slirp(exe, sizeof(exe))) < 0) {
		snprintf(why, size, "slirp4netns not found (%s)", strerror(-ret));
		return -1;
	}
	snprintf(pidarg, sizeof(pidarg), "%d", (int)target);
	char *argv[12];
	int argc = 0;
	argv[argc++] = (char *)"slirp4netns";
	argv[argc++] = (char *)"--configure";
	argv[argc++] = (char *)"--mtu=65520";
	if (!host_loopback)
		argv[argc++] = (char *)"--disable-host-loopback";
	/*
	 * It parses the builder's packets: confine it. Its --enable-sandbox
	 * (an empty root, no capability but CAP_NET_BIND_SERVICE) needs root:
	 * unprivileged, it would become uid 0 of the build's user namespace,
	 * which maps only the build user; it then runs as the caller.
	 */
	if (geteuid() == 0)
		argv[argc++] = (char *)"--enable-sandbox";
	argv[argc++] = (char *)"--enable-seccomp";
	argv[argc++] = (char *)"--ready-fd=3";
	argv[argc++] = (char *)"--exit-fd=4";
	argv[argc++] = pidarg;
	argv[argc++] = (char *)"tap0";
	argv[argc] = NULL;

	/* Its standard error never blocks it: what does not fit is lost. */
	if (pipe2(ready, O_CLOEXEC) < 0 || pipe2(exitp, O_CLOEXEC) < 0 ||
	    pipe2(errp, O_CLOEXEC | O_NONBLOCK) < 0 ||
	    (nullfd = open("/dev/null", O_RDWR | O_CLOEXEC)) < 0) {
		snprintf(why, size, "cannot start slirp4netns: %s", strerror(errno));
		ret = -1;
		goto out;
	}
	pid_t me = getpid();
	sl->pid = fork();
	if (sl->pid == 0) {
		int fds[] = { nullfd, nullfd, errp[1], ready[1], exitp[0] };
		exec_slirp(exe, argv, fds, (int)ARRAY_SIZE(fds), me);
	}
	if (sl->pid < 0) {
		snprintf(why, size, "cannot start slirp4netns: %s", strerror(errno));
		ret = -1;
		goto out;
	}
	sl->pidfd = (int)syscall(SYS_pidfd_open, sl->pid, 0);
	sl->exit_fd = exitp[1];
	exitp[1] = -1;
	sl->err_fd = errp[0];
	errp[0] = -1;
	close_fd(&ready[1]);
	ret = wait_ready(ready[0]);
	if (ret < 0) {
		slirp_said(sl->err_fd, said, sizeof(said));
		if (ret == -ETIMEDOUT)
			snprintf(why, size, "slirp4netns did not set up the network in %d s",
				 SLIRP_READY_TIMEOUT_MS / 1000);
		else
			snprintf(why, size, "slirp4netns failed%s%s", said[0] ? ": " : "", said);
		cix_sandbox_slirp_stop(sl);
		ret = -1;
	}
out:
	close_fd(&ready[0]);
	close_fd(&ready[1]);
	close_fd(&exitp[0]);
	close_fd(&exitp[1]);
	close_fd(&errp[0]);
	close_fd(&errp[1]);
	close_fd(&nullfd);
	return ret;
}

void cix_sandbox_slirp_stop(struct sb_slirp *sl)
{
	/* Closing its exit descriptor would do, in time: do not wait. */
	close_fd(&sl->exit_fd);
	if (sl->pid > 0) {
		if (sl->pidfd < 0 || syscall(SYS_pidfd_send_signal, sl->pidfd, SIGKILL, NULL, 0) < 0)
			kill(sl->pid, SIGKILL);   /* not reaped yet: still ours */
		while (waitpid(sl->pid, NULL, 0) < 0 && errno == EINTR)
			;
	}
	sl->pid = -1;
	close_fd(&sl->pidfd);
	close_fd(&sl->err_fd);
}
