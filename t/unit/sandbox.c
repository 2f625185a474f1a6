/* sandbox.c - unit tests for cix_sandbox_run: specification checks, results */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "tap.h"
#include "sandbox.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static char tmp[256], store[300], build[300];
static const char *const extras[] = { "/bin", "/usr", "/lib", "/lib64" };

static void spec_init(struct cix_sandbox_spec *s, const char *root,
		      const char *builder, char *const *argv, char *const *envp)
{
	memset(s, 0, sizeof(*s));
	s->root = root;
	s->store_dir = store;
	s->build_dir = build;
	s->builder = builder;
	s->argv = argv;
	s->envp = envp;
	s->log_fd = -1;
	s->uid = (uid_t)-1;
	s->gid = (gid_t)-1;
	size_t n = 0;
	static const char *present[ARRAY_SIZE(extras)];
	for (size_t i = 0; i < ARRAY_SIZE(extras); i++)
		if (access(extras[i], F_OK) == 0)
			present[n++] = extras[i];
	s->extra_paths = present;
	s->nr_extra_paths = n;
}

static void *blocker(void *arg)
{
	char c;
	ssize_t n = read(*(int *)arg, &c, 1);
	(void)n;
	return NULL;
}

static char *fresh_root(int i)
{
	static char root[320];
	snprintf(root, sizeof(root), "%s/root%d", tmp, i);
	mkdir(root, 0700);
	return root;
}

int main(void)
{
	struct cix_sandbox_spec s;
	struct cix_sandbox_result res;
	struct cix_err err;
	char *sh_argv[] = { "/bin/sh", "-c", "echo out; echo err >&2; exit 7", NULL };
	char *envp[] = { "A=1", NULL };

	if (tap_mkdtemp(tmp, sizeof(tmp), "sandbox") < 0)
		return 1;
	snprintf(store, sizeof(store), "%s/store", tmp);
	snprintf(build, sizeof(build), "%s/build", tmp);
	mkdir(store, 0755);
	mkdir(build, 0755);
	chmod(tmp, 0755);

	spec_init(&s, fresh_root(0), "/bin/sh", sh_argv, envp);
	s.builder = NULL;
	is_int(cix_sandbox_run(&s, &res, &err), -CIX_EINVAL, "incomplete spec refused");
	ok(strstr(err.msg, "incomplete") != NULL, "message: %s", err.msg);

	spec_init(&s, fresh_root(0), "sh", sh_argv, envp);
	is_int(cix_sandbox_run(&s, &res, &err), -CIX_EINVAL, "relative builder refused");

	const char *bad_in[] = { "/etc/passwd" };
	spec_init(&s, fresh_root(0), "/bin/sh", sh_argv, envp);
	s.inputs = bad_in;
	s.nr_inputs = 1;
	is_int(cix_sandbox_run(&s, &res, &err), -CIX_EINVAL, "input outside the store refused");

	char nested[400];
	snprintf(nested, sizeof(nested), "%s/a/b", store);
	const char *nested_in[] = { nested };
	spec_init(&s, fresh_root(0), "/bin/sh", sh_argv, envp);
	s.inputs = nested_in;
	s.nr_inputs = 1;
	is_int(cix_sandbox_run(&s, &res, &err), -CIX_EINVAL, "input below a store path refused");

	char *root = fresh_root(1);
	char junk[400];
	snprintf(junk, sizeof(junk), "%s/junk", root);
	mkdir(junk, 0700);
	spec_init(&s, root, "/bin/sh", sh_argv, envp);
	is_int(cix_sandbox_run(&s, &res, &err), -CIX_EEXIST, "non-empty root refused");

	if (system("unshare -Ur true 2>/dev/null") != 0) {
		diag("no user namespaces: skipping the runs");
		goto done;
	}

	char logpath[300];
	snprintf(logpath, sizeof(logpath), "%s/log", tmp);
	int logfd = open(logpath, O_RDWR | O_CREAT | O_TRUNC, 0600);
	spec_init(&s, fresh_root(2), "/bin/sh", sh_argv, envp);
	s.log_fd = logfd;
	is_int(cix_sandbox_run(&s, &res, &err), 0, "builder ran");
	ok(WIFEXITED(res.status) && WEXITSTATUS(res.status) == 7, "exit status 7 (%d)", res.status);
	ok(!res.timed_out && !res.silent_too_long && !res.log_too_long, "no limit hit");
	ok(res.setup_seconds > 0 && res.setup_seconds < 5, "set-up took %.3f ms",
	   res.setup_seconds * 1000);
	ok(res.total_seconds >= res.setup_seconds, "total time covers set-up");
	char logbuf[64] = { 0 };
	ssize_t n = pread(logfd, logbuf, sizeof(logbuf) - 1, 0);
	is_int(n, 8, "log length");
	is_str(logbuf, "out\nerr\n", "stdout and stderr both logged, in order");
	close(logfd);

	spec_init(&s, fresh_root(3), "/no/such/builder", sh_argv, envp);
	is_int(cix_sandbox_run(&s, &res, &err), -ENOENT, "missing builder: ENOENT");
	ok(strstr(err.msg, "cannot execute") != NULL, "message: %s", err.msg);

	char *quiet_argv[] = { "/bin/sh", "-c", "exec 1>&- 2>&-; sleep 30", NULL };
	spec_init(&s, fresh_root(4), "/bin/sh", quiet_argv, envp);
	s.max_silent = 1;
	is_int(cix_sandbox_run(&s, &res, &err), 0, "builder closing its output ran");
	/* The end of its output ends the builder, as Nix's: no waiting for silence. */
	ok(!res.silent_too_long && WIFSIGNALED(res.status) && WTERMSIG(res.status) == SIGKILL,
	   "closed output: killed at its end, not for silence");
	ok(res.total_seconds < 10, "killed in %.1f s", res.total_seconds);

	/*
	 * Output closed half a second in, silence limit 1 s: the end of the
	 * output came first and rules; the silence limit, which would fall
	 * within the end's grace, is not what ends it.
	 */
	char *late_argv[] = { "/bin/sh", "-c", "sleep 0.5; exec 1>&- 2>&-; sleep 30", NULL };
	spec_init(&s, fresh_root(6), "/bin/sh", late_argv, envp);
	s.max_silent = 1;
	is_int(cix_sandbox_run(&s, &res, &err), 0, "builder closing its output late ran");
	ok(!res.silent_too_long && WIFSIGNALED(res.status) && WTERMSIG(res.status) == SIGKILL,
	   "output closed within the silence limit: ended by its end, not for silence");

	/*
	 * A multi-threaded caller: the child, a copy of one thread, must not
	 * wait for the others (glibc's setxid broadcast would).
	 */
	if (geteuid() == 0) {
		int pfd[2];
		pthread_t th;
		char *true_argv[] = { "/bin/true", NULL };
		if (pipe(pfd) == 0 && pthread_create(&th, NULL, blocker, &pfd[0]) == 0) {
			spec_init(&s, fresh_root(5), "/bin/true", true_argv, envp);
			cix_err_clear(&err);
			s.uid = 30001;
			s.gid = 30001;
			int r = cix_sandbox_run(&s, &res, &err);
			is_int(r, 0, "threaded caller, build user: ran (%s)", err.msg);
			ok(!r && WIFEXITED(res.status) && WEXITSTATUS(res.status) == 0, "and succeeded");
			close(pfd[1]);
			pthread_join(th, NULL);
			close(pfd[0]);
		}
	}

done:;
	char cmd[400];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmp);
	if (system(cmd) != 0)
		diag("cannot remove %s", tmp);
	return done_testing();
}
