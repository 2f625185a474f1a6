/* run-program.c - other programs (git, tar, gpgv...) run for cix's commands */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "cix.h"
#include "strbuf.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

void read_bounded(int fd, struct strbuf *out, size_t max)
{
	char buf[4096];
	ssize_t n;
	while ((n = read(fd, buf, sizeof(buf))) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			break;
		if (out->len < max)
			strbuf_add(out, buf, (size_t)n);
	}
}

int run_child(int (*child)(void *arg, int fd), void *arg, struct strbuf *out, size_t max,
	      int *status, struct cix_err *err)
{
	int p[2];
	pid_t pid;

	strbuf_reset(out);
	if (pipe2(p, O_CLOEXEC) < 0)
		return cix_error_errno(err, -errno, "cannot make a pipe"), -1;
	fflush(NULL);
	if ((pid = fork()) < 0) {
		close(p[0]);
		close(p[1]);
		return cix_error_errno(err, -errno, "cannot fork"), -1;
	}
	if (pid == 0) {
		close(p[0]);
		_exit(child(arg, p[1]));
	}
	close(p[1]);
	read_bounded(p[0], out, max);
	close(p[0]);
	while (waitpid(pid, status, 0) < 0)
		if (errno != EINTR)
			return cix_error_errno(err, -errno, "cannot wait for process %d", (int)pid), -1;
	return 0;
}

/* In the child: standard input /dev/null, output and errors into fd, argv run. */
static int exec_child(void *arg, int fd)
{
	const char *const *argv = arg;
	int in = open("/dev/null", O_RDONLY);
	if (in < 0 || dup2(in, 0) < 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0)
		return 126;
	execvp(argv[0], (char *const *)argv);
	dprintf(2, "cannot run '%s': %s\n", argv[0], strerror(errno));
	return 127;
}

int run_program(const char *const argv[], struct strbuf *out, size_t max, struct cix_err *err)
{
	int status;

	if (run_child(exec_child, (void *)argv, out, max, &status, err) < 0)
		return -1;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 127 && strstr(out->buf, "cannot run '")) {
		strbuf_setlen(out, strcspn(out->buf, "\n"));
		cix_error(err, -CIX_ENOTFOUND, "%s (is %s installed?)", out->buf, argv[0]);
		return -1;
	}
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
