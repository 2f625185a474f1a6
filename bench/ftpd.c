/* ftpd.c - tiny loopback passive-mode FTP server for the download tests */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "util.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

/*
 * ftpd -d ROOT -p PORTFILE [-l LOG] [--no-epsv]
 *
 * Serves the files below ROOT, read-only, to anonymous clients on
 * 127.0.0.1 (a free port, written to PORTFILE once listening), one client
 * at a time, until killed. Each command is appended to LOG as one line
 * (PASS's argument hidden). Enough of RFC 959 and RFC 2428 for curl:
 * USER, PASS, SYST, PWD, CWD, CDUP, TYPE, EPSV and PASV (passive mode
 * only; --no-epsv refuses EPSV, so that clients fall back to PASV), SIZE,
 * MDTM (always 550), REST, RETR, NOOP, QUIT. A path naming '..' is
 * refused; an absolute path starts at ROOT.
 */

#define LINE_MAX_LEN 1024
#define IDLE_MS 30000

static int root_fd = -1, log_fd = -1, no_epsv;

struct session {
	int ctl;
	int pasv;           /* listening data socket, or -1 */
	char cwd[4096];     /* relative to the root, "" at the top */
	uint64_t rest;
	int user, logged_in;
	char buf[LINE_MAX_LEN];   /* received, not yet a line */
	size_t len;
	char line[LINE_MAX_LEN + 1];
};

static void reply(struct session *s, const char *fmt, ...) CIX_PRINTF(2, 3);
static void reply(struct session *s, const char *fmt, ...)
{
	char line[LINE_MAX_LEN + 8];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line) - 2, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n > sizeof(line) - 3)
		n = (int)sizeof(line) - 3;
	line[n++] = '\r';
	line[n++] = '\n';
	cix_write_full(s->ctl, line, (size_t)n);
}

/*
 * One command line into s->line (without CRLF); 1 on success, 0 at end
 * of connection or when idle too long. An overlong line is answered 500
 * and dropped.
 */
static int read_line(struct session *s)
{
	int overlong = 0;

	for (;;) {
		char *nl = memchr(s->buf, '\n', s->len);
		if (nl) {
			size_t l = (size_t)(nl - s->buf);
			if (!overlong) {
				memcpy(s->line, s->buf, l);
				if (l && s->line[l - 1] == '\r')
					l--;
				s->line[l] = '\0';
			}
			s->len -= (size_t)(nl + 1 - s->buf);
			memmove(s->buf, nl + 1, s->len);
			if (!overlong)
				return 1;
			overlong = 0;
			reply(s, "500 Line too long.");
			continue;
		}
		if (s->len == LINE_MAX_LEN) {
			overlong = 1;
			s->len = 0;
		}
		struct pollfd p = { .fd = s->ctl, .events = POLLIN };
		if (poll(&p, 1, IDLE_MS) <= 0)
			return 0;
		ssize_t n = read(s->ctl, s->buf + s->len, LINE_MAX_LEN - s->len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return 0;
		s->len += (size_t)n;
	}
}

/*
 * Resolve arg against the working directory into out (relative to the
 * root, "" for the root itself); -1 when it names '..' or is too long.
 */
static int resolve(const struct session *s, const char *arg, char *out, size_t size)
{
	char tmp[4096];
	size_t o = 0;
	int n;

	if (arg[0] == '/')
		n = snprintf(tmp, sizeof(tmp), "%s", arg);
	else
		n = snprintf(tmp, sizeof(tmp), "%s/%s", s->cwd, arg);
	if (n < 0 || (size_t)n >= sizeof(tmp))
		return -1;
	for (char *c = tmp, *end; *c; c = end) {
		size_t l;
		while (*c == '/')
			c++;
		end = c + strcspn(c, "/");
		l = (size_t)(end - c);
		if (!l || (l == 1 && c[0] == '.'))
			continue;
		if (l == 2 && c[0] == '.' && c[1] == '.')
			return -1;
		if (o + l + 2 > size)
			return -1;
		if (o)
			out[o++] = '/';
		memcpy(out + o, c, l);
		o += l;
	}
	out[o] = '\0';
	return 0;
}

/* Open a regular file or, if dir, a directory below the root; -1 if none. */
static int open_below(const char *rel, int dir, struct stat *st)
{
	int fd = openat(root_fd, *rel ? rel : ".",
			O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK | (dir ? O_DIRECTORY : 0));
	if (fd < 0)
		return -1;
	if (fstat(fd, st) < 0 || (dir ? !S_ISDIR(st->st_mode) : !S_ISREG(st->st_mode))) {
		close(fd);
		return -1;
	}
	return fd;
}

static void close_pasv(struct session *s)
{
	if (s->pasv >= 0)
		close(s->pasv);
	s->pasv = -1;
}

/* A fresh listening data socket on the loopback; its port, or 0. */
static unsigned open_pasv(struct session *s)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	socklen_t sl = sizeof(sa);

	close_pasv(s);
	s->pasv = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (s->pasv < 0)
		return 0;
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (bind(s->pasv, (struct sockaddr *)&sa, sizeof(sa)) < 0 || listen(s->pasv, 1) < 0 ||
	    getsockname(s->pasv, (struct sockaddr *)&sa, &sl) < 0) {
		close_pasv(s);
		return 0;
	}
	return ntohs(sa.sin_port);
}

static void do_retr(struct session *s, const char *arg)
{
	char rel[4096], buf[65536];
	struct stat st;
	struct pollfd p;
	int fd, data;
	uint64_t rest = s->rest;

	s->rest = 0;
	if (resolve(s, arg, rel, sizeof(rel)) < 0 || (fd = open_below(rel, 0, &st)) < 0) {
		reply(s, "550 No such file.");
		return;
	}
	if (s->pasv < 0) {
		close(fd);
		reply(s, "425 Use PASV or EPSV first.");
		return;
	}
	if (rest > (uint64_t)st.st_size || lseek(fd, (off_t)rest, SEEK_SET) < 0) {
		close(fd);
		reply(s, "554 Bad restart offset.");
		return;
	}
	reply(s, "150 Opening BINARY mode data connection (%llu bytes).",
	      (unsigned long long)(st.st_size - (off_t)rest));
	p = (struct pollfd){ .fd = s->pasv, .events = POLLIN };
	data = poll(&p, 1, IDLE_MS) == 1 ? accept4(s->pasv, NULL, NULL, SOCK_CLOEXEC) : -1;
	close_pasv(s);
	if (data < 0) {
		close(fd);
		reply(s, "425 Cannot open the data connection.");
		return;
	}
	for (;;) {
		ssize_t n = read(fd, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 || (n > 0 && cix_write_full(data, buf, (size_t)n) < 0)) {
			close(fd);
			close(data);
			reply(s, "426 Transfer aborted.");
			return;
		}
		if (n == 0)
			break;
	}
	close(fd);
	close(data);
	reply(s, "226 Transfer complete.");
}

static void do_pwd(struct session *s)
{
	char q[2 * sizeof(s->cwd) + 2];
	size_t o = 0;

	q[o++] = '/';
	/* RFC 959: a quote in the name is doubled. */
	for (const char *c = s->cwd; *c && o + 3 < sizeof(q); c++) {
		if (*c == '"')
			q[o++] = '"';
		q[o++] = *c;
	}
	q[o] = '\0';
	reply(s, "257 \"%s\" is the current directory.", q);
}

/* Serve one client; returns when it quits or goes away. */
static void session(int ctl)
{
	struct session *s = xcalloc(1, sizeof(*s));

	s->ctl = ctl;
	s->pasv = -1;
	reply(s, "220 cix test ftpd ready.");
	while (read_line(s)) {
		char *cmd = s->line, *arg = s->line + strcspn(s->line, " ");
		char rel[4096];
		struct stat st;
		int fd;

		if (*arg)
			*arg++ = '\0';
		if (log_fd >= 0)
			dprintf(log_fd, "%s%s%s\n", cmd, *arg ? " " : "",
				strcasecmp(cmd, "PASS") ? arg : "***");
		if (!strcasecmp(cmd, "QUIT")) {
			reply(s, "221 Goodbye.");
			break;
		} else if (!strcasecmp(cmd, "USER")) {
			s->user = 1;
			reply(s, "331 Anonymous login ok, send any password.");
		} else if (!strcasecmp(cmd, "PASS")) {
			if (!s->user) {
				reply(s, "503 Login with USER first.");
			} else {
				s->logged_in = 1;
				reply(s, "230 Logged in.");
			}
		} else if (!s->logged_in) {
			reply(s, "530 Please login with USER and PASS.");
		} else if (!strcasecmp(cmd, "SYST")) {
			reply(s, "215 UNIX Type: L8");
		} else if (!strcasecmp(cmd, "NOOP")) {
			reply(s, "200 OK.");
		} else if (!strcasecmp(cmd, "PWD")) {
			do_pwd(s);
		} else if (!strcasecmp(cmd, "CWD") || !strcasecmp(cmd, "CDUP")) {
			const char *to = !strcasecmp(cmd, "CDUP") ? NULL : arg;
			if (!to) {
				/* CDUP: drop the last component; the root stays. */
				char *slash = strrchr(s->cwd, '/');
				if (slash)
					*slash = '\0';
				else
					s->cwd[0] = '\0';
				reply(s, "250 Directory changed.");
			} else if (resolve(s, to, rel, sizeof(rel)) < 0 ||
				   (fd = open_below(rel, 1, &st)) < 0) {
				reply(s, "550 No such directory.");
			} else {
				close(fd);
				memcpy(s->cwd, rel, strlen(rel) + 1);
				reply(s, "250 Directory changed.");
			}
		} else if (!strcasecmp(cmd, "TYPE")) {
			if (!strcasecmp(arg, "I") || !strcasecmp(arg, "A"))
				reply(s, "200 Type set to %c.", arg[0] & ~0x20);
			else
				reply(s, "504 Type not supported.");
		} else if (!strcasecmp(cmd, "EPSV")) {
			unsigned port;
			if (no_epsv)
				reply(s, "502 EPSV not implemented.");
			else if (!strcasecmp(arg, "ALL"))
				reply(s, "200 EPSV ALL ok.");
			else if ((port = open_pasv(s)))
				reply(s, "229 Entering Extended Passive Mode (|||%u|)", port);
			else
				reply(s, "425 Cannot open a data port.");
		} else if (!strcasecmp(cmd, "PASV")) {
			unsigned port = open_pasv(s);
			if (port)
				reply(s, "227 Entering Passive Mode (127,0,0,1,%u,%u).", port >> 8,
				      port & 0xff);
			else
				reply(s, "425 Cannot open a data port.");
		} else if (!strcasecmp(cmd, "SIZE")) {
			if (resolve(s, arg, rel, sizeof(rel)) < 0 || (fd = open_below(rel, 0, &st)) < 0) {
				reply(s, "550 No such file.");
			} else {
				close(fd);
				reply(s, "213 %llu", (unsigned long long)st.st_size);
			}
		} else if (!strcasecmp(cmd, "MDTM")) {
			reply(s, "550 No modification times here.");
		} else if (!strcasecmp(cmd, "REST")) {
			char *end;
			errno = 0;
			unsigned long long v = strtoull(arg, &end, 10);
			if (!*arg || *end || errno || arg[0] == '-') {
				reply(s, "501 Bad offset.");
			} else {
				s->rest = v;
				reply(s, "350 Restarting at %llu.", v);
			}
		} else if (!strcasecmp(cmd, "RETR")) {
			do_retr(s, arg);
		} else if (!strcasecmp(cmd, "PORT") || !strcasecmp(cmd, "EPRT")) {
			reply(s, "502 Active mode is not supported.");
		} else {
			reply(s, "502 Command not implemented.");
		}
	}
	close_pasv(s);
	free(s);
}

int main(int argc, char **argv)
{
	const char *root = NULL, *portfile = NULL;
	struct sockaddr_in sa = { .sin_family = AF_INET };
	socklen_t sl = sizeof(sa);
	char tmp[4200];
	FILE *f;
	int lfd;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-d") && i + 1 < argc)
			root = argv[++i];
		else if (!strcmp(argv[i], "-p") && i + 1 < argc)
			portfile = argv[++i];
		else if (!strcmp(argv[i], "-l") && i + 1 < argc)
			log_fd = open(argv[++i], O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
		else if (!strcmp(argv[i], "--no-epsv"))
			no_epsv = 1;
		else {
			fprintf(stderr, "usage: ftpd -d ROOT -p PORTFILE [-l LOG] [--no-epsv]\n");
			return 2;
		}
	}
	if (!root || !portfile) {
		fprintf(stderr, "ftpd: need -d and -p\n");
		return 2;
	}
	root_fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (root_fd < 0) {
		fprintf(stderr, "ftpd: cannot open '%s': %s\n", root, strerror(errno));
		return 1;
	}
	signal(SIGPIPE, SIG_IGN);

	lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (lfd < 0 || bind(lfd, (struct sockaddr *)&sa, sizeof(sa)) < 0 || listen(lfd, 8) < 0 ||
	    getsockname(lfd, (struct sockaddr *)&sa, &sl) < 0) {
		fprintf(stderr, "ftpd: cannot listen: %s\n", strerror(errno));
		return 1;
	}
	snprintf(tmp, sizeof(tmp), "%s.tmp", portfile);
	f = fopen(tmp, "w");
	if (!f || fprintf(f, "%u\n", (unsigned)ntohs(sa.sin_port)) < 0 || fclose(f) ||
	    rename(tmp, portfile)) {
		fprintf(stderr, "ftpd: cannot write '%s'\n", portfile);
		return 1;
	}
	for (;;) {
		int c = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
		if (c < 0) {
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			fprintf(stderr, "ftpd: accept: %s\n", strerror(errno));
			return 1;
		}
		session(c);
		close(c);
	}
}
