/* db-writer.c - unit tests for group commit: the writers' queue and the committer */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "tap.h"
#include "db-int.h"
#include "db-writer.h"
#include "strbuf.h"

#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static char file[300];

/* A store-path-like name, unique per (who, i). */
static char *name(int who, int i)
{
	char *p = xmalloc(64);
	snprintf(p, 64, "/s/%032d-p", who * 1000 + i);
	return p;
}

static struct cix_path_info info(const char *path, char **refs, size_t nr)
{
	struct cix_path_info i = { .path = (char *)path, .refs = refs, .nr_refs = nr,
				   .nar_size = 7 };
	cix_hash_buf(CIX_HASH_SHA256, path, strlen(path), &i.nar_hash);
	return i;
}

/*
 * In a child: register n paths, each referring to the one before; exit 0
 * when all went through, else 1.
 */
static int writer(int who, int n)
{
	struct cix_err err = { 0 };
	struct cix_db *db;
	if (cix_db_open(file, 0, &db, &err) < 0)
		return 1;
	char *prev = NULL;
	for (int i = 0; i < n; i++) {
		char *p = name(who, i);
		struct cix_path_info in = info(p, prev ? &prev : NULL, prev ? 1 : 0);
		if (cix_db_register(db, &in, 1, &err) < 0) {
			fprintf(stderr, "writer %d: %s\n", who, err.msg);
			return 1;
		}
		free(prev);
		prev = p;
	}
	free(prev);
	cix_db_close(db);
	return 0;
}

static pid_t spawn_writer(int who, int n)
{
	pid_t pid = fork();
	if (pid == 0)
		_exit(writer(who, n));
	return pid;
}

static volatile sig_atomic_t stop;

static void on_term(int sig)
{
	stop = 1;
	(void)sig;
}

static pid_t spawn_committer(void)
{
	int p[2];
	char c;
	if (pipe(p) < 0)
		return -1;
	pid_t pid = fork();
	if (pid == 0) {
		struct cix_err err = { 0 };
		struct cix_db *db;
		struct sigaction sa = { .sa_handler = on_term };
		sigaction(SIGTERM, &sa, NULL);
		if (cix_db_open(file, 0, &db, &err) < 0)
			_exit(1);
		/* Serving from its first round: the parent may go on. */
		close(p[0]);
		if (write(p[1], "x", 1) != 1)
			_exit(1);
		close(p[1]);
		_exit(cix_db_serve_commits(db, &stop, &err) < 0 ? 2 : 0);
	}
	close(p[1]);
	if (read(p[0], &c, 1) != 1)
		pid = -1;
	close(p[0]);
	usleep(20000);
	return pid;
}

static int wait_ok(pid_t pid)
{
	int st;
	return waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

/* writers x n paths, all valid afterwards with their references. */
static void many_writers(struct cix_db *db, int base, const char *how)
{
	enum { WRITERS = 8, N = 40 };
	pid_t pids[WRITERS];
	int good = 1, valid = 1;
	for (int w = 0; w < WRITERS; w++)
		pids[w] = spawn_writer(base + w, N);
	for (int w = 0; w < WRITERS; w++)
		good &= wait_ok(pids[w]);
	ok(good, "%d writers at once, %s: all registered", WRITERS, how);
	struct cix_err err = { 0 };
	struct cix_path_info q;
	for (int w = 0; w < WRITERS; w++)
		for (int i = 0; i < N; i++) {
			char *p = name(base + w, i);
			if (cix_db_query(db, p, &q, &err) < 0)
				valid = 0;
			else {
				char *prev = i ? name(base + w, i - 1) : NULL;
				valid &= i ? q.nr_refs == 1 && !strcmp(q.refs[0], prev) : !q.nr_refs;
				free(prev);
				cix_path_info_release(&q);
			}
			free(p);
		}
	ok(valid, "  every path valid, with its reference");
}

/* In a child: register a path whose reference is not valid; 0 if refused so. */
static int bad_writer(void)
{
	struct cix_err err = { 0 };
	struct cix_db *db;
	char *bad = name(99, 1), *p = name(99, 2);
	struct cix_path_info in = info(p, &bad, 1);
	if (cix_db_open(file, 0, &db, &err) < 0)
		return 2;
	int r = cix_db_register(db, &in, 1, &err);
	return r == -CIX_ENOTFOUND && strstr(err.msg, "is not valid") ? 0 : 1;
}

int main(void)
{
	char dir[256], wfile[320];
	struct cix_err err = { 0 };
	struct cix_db *db;
	struct strbuf b = STRBUF_INIT;

	if (tap_mkdtemp(dir, sizeof(dir), "db-writer") < 0)
		return 1;
	snprintf(file, sizeof(file), "%s/db.sqlite", dir);
	snprintf(wfile, sizeof(wfile), "%s.writer", file);
	ok(cix_db_open(file, 1, &db, &err) == 0, "create database");

	/* The requests' format. */
	char *r0 = name(0, 0), *r1 = name(0, 1);
	char *refs[] = { r0, r1 };
	struct cix_drv_output_row outs[] = { { "out", r1 } };
	struct cix_path_info in = info(r1, refs, 2);
	in.deriver = r0;
	in.ca = "text:sha256:x";
	in.outputs = outs;
	in.nr_outputs = 1;
	cix_db_request_serialise(&b, &in, 1, 12345);
	is_int(cix_db_request_check(b.buf, b.len), 0, "a request parses back");
	int cut = 0;
	for (size_t len = 0; len < b.len; len++)
		cut |= cix_db_request_check(b.buf, len) == 0;
	ok(!cut, "every truncated request is refused");
	strbuf_addch(&b, 0);
	is_int(cix_db_request_check(b.buf, b.len), -1, "trailing bytes are refused");
	memset(b.buf + 8, 0xff, 4);
	is_int(cix_db_request_check(b.buf, b.len - 1), -1, "a huge count is refused");
	strbuf_release(&b);
	free(r0);
	free(r1);

	/* Without a committer, the writers commit for each other. */
	many_writers(db, 0, "each committing what waits");

	/* A writer dying with the mutex: the next takes it (robust mutex). */
	pid_t pid = fork();
	if (pid == 0) {
		struct cix_writer *w = cix_writer_open(wfile);
		cix_writer_lock(w);
		_exit(0);
	}
	ok(wait_ok(pid), "a writer took the mutex and died");
	pid = spawn_writer(20, 3);
	ok(wait_ok(pid), "  the next one registers all the same");

	/* With a committer. */
	pid_t committer = spawn_committer();
	ok(committer > 0, "a committer serves the queue");
	{
		struct cix_db *other;
		ok(cix_db_open(file, 0, &other, &err) == 0 &&
		   cix_db_serve_commits(other, &(volatile sig_atomic_t){ 0 }, &err) == -CIX_EEXIST,
		   "  only one at a time: %s", err.msg);
		cix_db_close(other);
	}
	many_writers(db, 100, "through the committer");
	pid = fork();
	if (pid == 0)
		_exit(bad_writer());
	ok(wait_ok(pid), "  a request that fails gets its error back");

	/*
	 * A committer that does not answer (stopped): requests queued
	 * meanwhile are committed by their writers, in one transaction where
	 * one failing leaves the other.
	 */
	{
		/*
		 * Stopped while it does not hold the mutex (held here meanwhile):
		 * stopped while holding it, it would keep every writer waiting,
		 * as any holder of a lock does.
		 */
		struct cix_writer *w = cix_writer_open(wfile);
		cix_writer_lock(w);
		kill(committer, SIGSTOP);
		cix_writer_unlock(w);
		cix_writer_close(w);
	}
	pid_t bad = fork();
	if (bad == 0)
		_exit(bad_writer());
	pid = spawn_writer(200, 2);
	ok(wait_ok(bad), "committer stopped: a failing request fails");
	ok(wait_ok(pid), "  and one beside it is registered");
	kill(committer, SIGCONT);

	/* A committer killed: writers notice, and commit for themselves. */
	kill(committer, SIGKILL);
	waitpid(committer, NULL, 0);
	many_writers(db, 300, "after the committer was killed");
	committer = spawn_committer();
	ok(committer > 0, "a committer again");
	kill(committer, SIGTERM);
	ok(wait_ok(committer), "  it ends on SIGTERM");
	pid = spawn_writer(400, 2);
	ok(wait_ok(pid), "  and writers do without it");

	/* A file of another layout or boot (garbage here) is set up again. */
	cix_db_close(db);
	int fd = open(wfile, O_WRONLY);
	unsigned char junk[4096];
	memset(junk, 0xff, sizeof(junk));
	ok(fd >= 0 && write(fd, junk, sizeof(junk)) == (ssize_t)sizeof(junk), "garble the file");
	close(fd);
	ok(cix_db_open(file, 0, &db, &err) == 0, "  open again");
	pid = spawn_writer(500, 2);
	ok(wait_ok(pid), "  registering works");
	is_int(cix_db_is_valid(db, "/s/00000000000000000000000000500001-p", &err), 1,
	       "  and is seen");
	cix_db_close(db);
	char cmd[300];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd))
		diag("cannot remove %s", dir);
	return done_testing();
}
