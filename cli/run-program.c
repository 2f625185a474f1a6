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

int run_program(const char *const argv[], struct strbuf *out, size_t max, struct cix_err *err)
{
	int p[2], status;
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
		int in = open("/dev/null", O_RDONLY);
		if (in < 0 || dup2(in, 0) < 0 || dup2(p[1], 1) < 0 || dup2(p[1], 2) < 0)
			_exit(126);
		execvp(argv[0], (char *const *)argv);
		dprintf(2, "cannot run '%s': %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	close(p[1]);
	read_bounded(p[0], out, max);
	close(p[0]);
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return cix_error_errno(err, -errno, "cannot wait for '%s'", argv[0]), -1;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 127 && strstr(out->buf, "cannot run '")) {
		strbuf_setlen(out, strcspn(out->buf, "\n"));
		cix_error(err, -CIX_ENOTFOUND, "%s (is %s installed?)", out->buf, argv[0]);
		return -1;
	}
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
