/* stdio.c - cix-daemon --stdio: one client on standard input and output, as `ssh HOST cix-daemon --stdio` */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "daemon.h"
#include "remote.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/*
 * Root serves the client itself, as the daemon's worker would, the client
 * being root; anyone else has the daemon serve it, through its socket,
 * which then sees that user (as Nix's `nix-daemon --stdio`): either way the
 * client has the rights of the user ssh logged in, no more.
 */

/* Copy what from has to to: 1, 0 at the end of from, -1 on error. */
static int pass(int from, int to)
{
	char buf[65536];
	ssize_t n = read(from, buf, sizeof(buf));

	if (n < 0)
		return errno == EINTR || errno == EAGAIN ? 1 : -1;
	if (n == 0)
		return 0;
	return cix_write_full(to, buf, (size_t)n) < 0 ? -1 : 1;
}

/* Bytes both ways between standard input/output and the daemon, until it hangs up. */
static int relay(int sock)
{
	struct pollfd p[2] = { { .fd = sock, .events = POLLIN }, { .fd = 0, .events = POLLIN } };
	int r;

	for (;;) {
		if (poll(p, p[1].fd < 0 ? 1 : 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			return 1;
		}
		if (p[0].revents) {
			if ((r = pass(sock, 1)) <= 0)
				return r < 0;
		}
		if (p[1].fd >= 0 && p[1].revents) {
			if ((r = pass(0, sock)) < 0)
				return 1;
			if (r == 0) {
				/* The client is done: the daemon sees the end, and ends too. */
				shutdown(sock, SHUT_WR);
				p[1].fd = -1;
			}
		}
	}
}

int daemon_stdio(const struct daemon_settings *set, const struct cix_conf *conf)
{
	struct cix_err err = { 0 };
	int sock, r;

	signal(SIGPIPE, SIG_IGN);
	if (geteuid() == 0) {
		struct ucred me = { .pid = getpid(), .uid = getuid(), .gid = getgid() };
		/* A daemon may be running: what its workers are doing is left alone. */
		return daemon_serve_as(0, 1, &me, set, conf, 0);
	}
	if ((sock = cix_remote_connect(set->socket_path, &err)) < 0) {
		fprintf(stderr, "cix-daemon: --stdio: %s (only root serves the store itself)\n",
			err.msg);
		return 1;
	}
	r = relay(sock);
	close(sock);
	return r;
}
