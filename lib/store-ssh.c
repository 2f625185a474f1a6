/* store-ssh.c - a store on another machine: OpenSSH runs its daemon with --stdio */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "store-backend.h"
#include "env.h"
#include "remote.h"
#include "ssh-uri.h"
#include "strvec.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

/* The ssh process behind a store: reaped when the store closes. */
struct ssh_child {
	pid_t pid;
	int err_fd;          /* ssh's standard error, an unnamed temporary file */
	int status;          /* its wait status, once reaped */
	int owned;           /* the store owns this (else the opener does) */
};

/* Wait for ssh, which ends once its input closes; kill it after 2 s. */
static void reap(struct ssh_child *c)
{
	for (int i = 0; c->pid > 0 && i < 200; i++) {
		pid_t w = waitpid(c->pid, &c->status, WNOHANG);
		if (w == c->pid || (w < 0 && errno != EINTR)) {
			c->pid = 0;
			return;
		}
		nanosleep(&(struct timespec){ 0, 10 * 1000 * 1000 }, NULL);
	}
	if (c->pid > 0) {
		kill(c->pid, SIGKILL);
		while (waitpid(c->pid, &c->status, 0) < 0 && errno == EINTR)
			;
		c->pid = 0;
	}
}

static void child_free(struct ssh_child *c)
{
	if (c->err_fd >= 0)
		close(c->err_fd);
	free(c);
}

static void after_close(void *opaque)
{
	struct ssh_child *c = opaque;
	reap(c);
	if (c->owned)
		child_free(c);
}

/* An unnamed temporary file for ssh's messages. */
static int temp_file(struct cix_err *err)
{
	const char *dir = cix_env(CIX_ENV_TMPDIR);
	int fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (fd < 0) {
		struct strbuf t = STRBUF_INIT;
		strbuf_addf(&t, "%s/cix-ssh-XXXXXX", dir);
		if ((fd = mkostemp(t.buf, O_CLOEXEC)) >= 0)
			unlink(t.buf);
		strbuf_release(&t);
	}
	if (fd < 0)
		return cix_error_errno(err, -errno, "cannot create a temporary file in '%s'", dir);
	return fd;
}

/* known_hosts holding only the URI's host key: its name into path. */
static int known_hosts(const struct cix_ssh_uri *u, struct strbuf *path, struct cix_err *err)
{
	struct strbuf line = STRBUF_INIT;
	int fd, r = 0;
	strbuf_addf(path, "%s/cix-known-hosts-XXXXXX", cix_env(CIX_ENV_TMPDIR));
	if ((fd = mkostemp(path->buf, O_CLOEXEC)) < 0)
		return cix_error_errno(err, -errno, "cannot create '%s'", path->buf);
	if (u->port)
		strbuf_addf(&line, "[%s]:%u %s\n", u->host, u->port, u->host_key);
	else
		strbuf_addf(&line, "%s %s\n", u->host, u->host_key);
	if (cix_write_full(fd, line.buf, line.len) < 0)
		r = cix_error_errno(err, -errno, "cannot write '%s'", path->buf);
	close(fd);
	strbuf_release(&line);
	return r;
}

/* ssh's arguments for u (host_keys: a known_hosts file, or ""). */
static void ssh_args(const struct cix_ssh_uri *u, const char *host_keys, struct strvec *a)
{
	const char *opts = cix_env(CIX_ENV_SSHOPTS);
	strvec_pushl(a, "ssh", "-x", "-a", "-T", "-oBatchMode=yes", NULL);
	strvec_pushf(a, "-oConnectTimeout=%u", u->connect_timeout);
	if (u->compress)
		strvec_push(a, "-C");
	if (u->port)
		strvec_pushf(a, "-p%u", u->port);
	if (u->ssh_key)
		strvec_pushl(a, "-i", u->ssh_key, NULL);
	if (*host_keys) {
		strvec_pushf(a, "-oUserKnownHostsFile=%s", host_keys);
		strvec_pushl(a, "-oGlobalKnownHostsFile=/dev/null", "-oStrictHostKeyChecking=yes",
			     NULL);
	}
	if (opts) {
		struct strvec o = STRVEC_INIT;
		strvec_split(&o, opts, " ");
		for (size_t i = 0; i < o.nr; i++)
			if (*o.v[i])
				strvec_push(a, o.v[i]);
		strvec_clear(&o);
	}
	if (u->user)
		strvec_pushl(a, "-l", u->user, NULL);
	strvec_pushl(a, "--", u->host, u->program, "--stdio", NULL);
}

/* Run ssh with the socket sock as its input and output, err_fd its messages. */
static int spawn_ssh(char *const *argv, int sock, int err_fd, pid_t *pid, struct cix_err *err)
{
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t at;
	sigset_t dflt;
	int r;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, sock, 0);
	posix_spawn_file_actions_adddup2(&fa, sock, 1);
	posix_spawn_file_actions_adddup2(&fa, err_fd, 2);
	posix_spawnattr_init(&at);
	sigemptyset(&dflt);
	sigaddset(&dflt, SIGPIPE);
	sigaddset(&dflt, SIGINT);
	sigaddset(&dflt, SIGTERM);
	posix_spawnattr_setsigdefault(&at, &dflt);
	posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSIGDEF);
	r = posix_spawnp(pid, argv[0], &fa, &at, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&at);
	if (r)
		return cix_error_errno(err, -r, "cannot run ssh");
	return 0;
}

/* The last line ssh wrote, into out (empty if none). */
static void last_line(int fd, struct strbuf *out)
{
	char buf[4096];
	off_t size = lseek(fd, 0, SEEK_END), from = size > (off_t)sizeof(buf) - 1 ? size - (off_t)sizeof(buf) + 1 : 0;
	ssize_t n = size > 0 ? pread(fd, buf, (size_t)(size - from), from) : 0;
	strbuf_reset(out);
	if (n <= 0)
		return;
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == '\r'))
		n--;
	buf[n] = '\0';
	char *start = strrchr(buf, '\n');
	start = start ? start + 1 : buf;
	for (char *p = start; *p; p++)
		if ((unsigned char)*p < 0x20)
			*p = ' ';
	strbuf_addstr(out, start);
}

/*
 * The connection failed (err says how): ssh is reaped, and what it said
 * last, when it failed itself, goes with the URI into err.
 */
static int reached_not(const char *uri, struct ssh_child *c, int r, struct cix_err *err)
{
	struct strbuf said = STRBUF_INIT;
	struct cix_err orig = *err;
	reap(c);
	last_line(c->err_fd, &said);
	if (said.len && WIFEXITED(c->status) && WEXITSTATUS(c->status))
		r = cix_error(err, r, "cannot use '%s': %s", uri, said.buf);
	else
		r = cix_error(err, r, "cannot use '%s': %s", uri, orig.msg);
	strbuf_release(&said);
	return r;
}

/*
 * The remote must have this store directory: a path of it is asked
 * about, which a daemon of another store refuses.
 */
static int same_store_dir(struct cix_store *s, const char *uri, struct cix_err *err)
{
	struct strbuf probe = STRBUF_INIT;
	struct cix_err e = { 0 };
	int r;
	strbuf_addf(&probe, "%s/00000000000000000000000000000000-cix-store-probe", s->store_dir);
	r = cix_store_is_valid(s, probe.buf, &e);
	strbuf_release(&probe);
	if (r == -CIX_EMISMATCH)
		return cix_error(err, -CIX_EMISMATCH, "'%s' has another store than '%s' (it says: %s)",
				 uri, s->store_dir, e.msg);
	if (r < 0)
		return cix_error(err, r, "'%s': %s", uri, e.msg);
	return 0;
}

static int open_ssh(const char *uri, const struct cix_ssh_uri *u, const char *host_keys,
		    struct cix_store **out, struct cix_err *err)
{
	struct strvec argv = STRVEC_INIT;
	struct ssh_child *c = xcalloc(1, sizeof(*c));
	int sv[2], r;
	c->err_fd = -1;
	if ((c->err_fd = temp_file(err)) < 0) {
		r = c->err_fd;
		goto fail;
	}
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0) {
		r = cix_error_errno(err, -errno, "cannot create a socket pair");
		goto fail;
	}
	ssh_args(u, host_keys, &argv);
	r = spawn_ssh(argv.v, sv[1], c->err_fd, &c->pid, err);
	close(sv[1]);
	strvec_clear(&argv);
	if (r < 0) {
		close(sv[0]);
		goto fail;
	}
	r = cix_store_open_connection(sv[0], uri, (int)u->connect_timeout * 1000, after_close, c,
				      out, err);
	if (r < 0) {
		r = reached_not(uri, c, r, err);
		goto fail;
	}
	c->owned = 1;
	/* A remote that stops answering is given up on (builds aside: remote.c). */
	cix_store_daemon_conn(*out)->w.timeout_ms = (int)u->silence_timeout * 1000;
	if ((r = same_store_dir(*out, uri, err)) < 0) {
		cix_store_close(*out);
		*out = NULL;
	}
	return r;
fail:
	child_free(c);
	return r;
}

int cix_store_open_ssh(const char *uri, struct cix_store **out, struct cix_err *err)
{
	struct cix_ssh_uri u;
	struct strbuf hosts = STRBUF_INIT, name = STRBUF_INIT;
	int r = cix_ssh_uri_parse(uri, &u, err);
	if (r < 0)
		return r;
	/* The machine, in messages: the URI without its parameters. */
	strbuf_add(&name, uri, strcspn(uri, "?"));
	if (!u.host_key || (r = known_hosts(&u, &hosts, err)) == 0)
		r = open_ssh(name.buf, &u, hosts.buf, out, err);
	strbuf_release(&name);
	/* ssh read it when it connected. */
	if (hosts.len)
		unlink(hosts.buf);
	strbuf_release(&hosts);
	cix_ssh_uri_release(&u);
	return r;
}
