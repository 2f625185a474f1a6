/* httpd.c - tiny loopback HTTP(S) server for the download tests */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "util.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/*
 * httpd -d ROOT -p PORTFILE [-l LOG] [--cert CERT --key KEY]
 *
 * Serves the files below ROOT on 127.0.0.1 (a free port, written to
 * PORTFILE once listening), until SIGTERM or SIGINT. Each request is
 * appended to LOG as "METHOD URL", plus " authorization" when the client
 * sent credentials. Besides files:
 *   /redirect?to=URL   302 to URL
 *   /loop              302 to itself, forever
 *   /status/N          an empty response with status N (200..599)
 *   /slow              one byte a second, for a minute
 *   /pks/lookup?op=get&search=0xHEX
 *                      ROOT/pks/0xHEX (uppercase), as a key server's HKP answer
 * A directory is served as its index.html, when it has one.
 * Exit 77 when TLS is asked for and libmicrohttpd has none.
 */

static const char *root;
static int log_fd = -1;

static enum MHD_Result reply(struct MHD_Connection *c, unsigned status, const char *body,
			     const char *location)
{
	struct MHD_Response *r = MHD_create_response_from_buffer(strlen(body), (void *)body,
								 MHD_RESPMEM_MUST_COPY);
	enum MHD_Result ret;
	if (location)
		MHD_add_response_header(r, "Location", location);
	ret = MHD_queue_response(c, status, r);
	MHD_destroy_response(r);
	return ret;
}

static ssize_t slow_cb(void *cls, uint64_t pos, char *buf, size_t max)
{
	if (pos >= 60)
		return MHD_CONTENT_READER_END_OF_STREAM;
	if (pos)
		sleep(1);
	buf[0] = 'x';
	return 1;
}

static enum MHD_Result handler(void *cls, struct MHD_Connection *c, const char *url,
			       const char *method, const char *version,
			       const char *upload_data, size_t *upload_size, void **con_cls)
{
	struct MHD_Response *r;
	enum MHD_Result ret;
	char path[4096], lookup[80];
	struct stat st;
	int fd;

	if (log_fd >= 0)
		dprintf(log_fd, "%s %s%s\n", method, url,
			MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Authorization")
				? " authorization" : "");
	if (strcmp(method, "GET") && strcmp(method, "HEAD"))
		return reply(c, 405, "method not allowed\n", NULL);
	if (!strcmp(url, "/redirect")) {
		const char *to = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "to");
		return reply(c, 302, "redirect\n", to ? to : "/");
	}
	if (!strcmp(url, "/loop"))
		return reply(c, 302, "loop\n", "/loop");
	if (!strncmp(url, "/status/", 8)) {
		int s = atoi(url + 8);
		return reply(c, s >= 200 && s < 600 ? (unsigned)s : 500, "", NULL);
	}
	if (!strcmp(url, "/slow")) {
		r = MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 1, slow_cb, NULL, NULL);
		ret = MHD_queue_response(c, 200, r);
		MHD_destroy_response(r);
		return ret;
	}
	if (!strcmp(url, "/pks/lookup")) {
		const char *op = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "op");
		const char *q = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "search");
		char key[64];
		size_t n = q ? strlen(q) : 0;
		if (!op || strcmp(op, "get") || n < 10 || n > 42 || strncmp(q, "0x", 2) ||
		    strspn(q + 2, "0123456789ABCDEFabcdef") != n - 2)
			return reply(c, 400, "bad key lookup\n", NULL);
		for (size_t i = 0; i <= n; i++)
			key[i] = (char)(i < 2 ? q[i] : toupper((unsigned char)q[i]));
		snprintf(lookup, sizeof(lookup), "/pks/%s", key);
		url = lookup;
	}
	if (url[0] != '/' || strstr(url, "..") ||
	    (size_t)snprintf(path, sizeof(path), "%s%s", root, url) >= sizeof(path))
		return reply(c, 400, "bad request\n", NULL);
	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode) &&
	    (size_t)snprintf(path, sizeof(path), "%s%s/index.html", root, url) >= sizeof(path))
		return reply(c, 400, "bad request\n", NULL);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		if (fd >= 0)
			close(fd);
		return reply(c, 404, "not found\n", NULL);
	}
	r = MHD_create_response_from_fd((uint64_t)st.st_size, fd);
	ret = MHD_queue_response(c, 200, r);
	MHD_destroy_response(r);
	return ret;
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf;
	long n;
	if (!f || fseek(f, 0, SEEK_END) || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET)) {
		fprintf(stderr, "httpd: cannot read '%s'\n", path);
		exit(1);
	}
	buf = xcalloc(1, (size_t)n + 1);
	if (fread(buf, 1, (size_t)n, f) != (size_t)n)
		exit(1);
	fclose(f);
	return buf;
}

int main(int argc, char **argv)
{
	const char *portfile = NULL, *cert = NULL, *key = NULL;
	struct sockaddr_in sa;
	struct MHD_Daemon *d;
	unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_THREAD_PER_CONNECTION;
	const union MHD_DaemonInfo *info;
	char *certbuf = NULL, *keybuf = NULL, tmp[4200];
	sigset_t set;
	int sig;
	FILE *f;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-d") && i + 1 < argc)
			root = argv[++i];
		else if (!strcmp(argv[i], "-p") && i + 1 < argc)
			portfile = argv[++i];
		else if (!strcmp(argv[i], "-l") && i + 1 < argc)
			log_fd = open(argv[++i], O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
		else if (!strcmp(argv[i], "--cert") && i + 1 < argc)
			cert = argv[++i];
		else if (!strcmp(argv[i], "--key") && i + 1 < argc)
			key = argv[++i];
		else {
			fprintf(stderr, "usage: httpd -d ROOT -p PORTFILE [-l LOG] "
					"[--cert CERT --key KEY]\n");
			return 2;
		}
	}
	if (!root || !portfile || !cert != !key) {
		fprintf(stderr, "httpd: need -d and -p, and both or neither of --cert, --key\n");
		return 2;
	}
	if (cert) {
		if (MHD_is_feature_supported(MHD_FEATURE_TLS) != MHD_YES) {
			fprintf(stderr, "httpd: libmicrohttpd has no TLS\n");
			return 77;
		}
		flags |= MHD_USE_TLS;
		certbuf = slurp(cert);
		keybuf = slurp(key);
	}
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	signal(SIGPIPE, SIG_IGN);

	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	sa.sin_port = 0;
	if (cert)
		d = MHD_start_daemon(flags, 0, NULL, NULL, handler, NULL,
				     MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&sa,
				     MHD_OPTION_HTTPS_MEM_CERT, certbuf,
				     MHD_OPTION_HTTPS_MEM_KEY, keybuf, MHD_OPTION_END);
	else
		d = MHD_start_daemon(flags, 0, NULL, NULL, handler, NULL,
				     MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&sa, MHD_OPTION_END);
	if (!d) {
		fprintf(stderr, "httpd: cannot start the server\n");
		return 1;
	}
	info = MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT);
	if (!info || !info->port) {
		fprintf(stderr, "httpd: cannot tell the port\n");
		return 1;
	}
	snprintf(tmp, sizeof(tmp), "%s.tmp", portfile);
	f = fopen(tmp, "w");
	if (!f || fprintf(f, "%u\n", (unsigned)info->port) < 0 || fclose(f) ||
	    rename(tmp, portfile)) {
		fprintf(stderr, "httpd: cannot write '%s'\n", portfile);
		return 1;
	}
	while (sigwait(&set, &sig) == 0 && sig != SIGTERM && sig != SIGINT)
		;
	/* Connections may sit in /slow: do not wait for them. */
	_exit(0);
}
