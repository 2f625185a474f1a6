/* after-build.c - a client's builds told to it: Guix's traces, a trusted client's settings */
/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * auto-optimise-store, secret-key-files and post-build-hook are
 * restricted settings: only a trusted client may set them (Nix's daemon
 * draws the line there too), since the hook runs with the daemon's rights
 * and the keys are read with them.
 */
#include "daemon.h"
#include "drv.h"
#include "narinfo.h"
#include "sign.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

int daemon_add_signatures(struct conn *c, const char *path, const struct strvec *sigs,
			  struct cix_err *err)
{
	struct cix_path_info info = { 0 };
	struct strvec have = STRVEC_INIT;
	struct strbuf all = STRBUF_INIT;
	int r = cix_db_query(c->s->db, path, &info, err), added = 0;
	if (r < 0)
		return r;
	strvec_split(&have, info.sigs, " ");
	strbuf_addstr(&all, info.sigs ? info.sigs : "");
	for (size_t i = 0; i < sigs->nr; i++) {
		int known = !*sigs->v[i] || strpbrk(sigs->v[i], " \t\n") != NULL;
		for (size_t k = 0; !known && k < have.nr; k++)
			known = !strcmp(have.v[k], sigs->v[i]);
		if (known)
			continue;
		strvec_push(&have, sigs->v[i]);
		strbuf_addf(&all, "%s%s", all.len ? " " : "", sigs->v[i]);
		added = 1;
	}
	if (added) {
		free(info.sigs);
		info.sigs = strbuf_detach(&all, NULL);
		r = cix_store_register(c->s, &info, 1, err);
	}
	cix_path_info_release(&info);
	strvec_clear(&have);
	strbuf_release(&all);
	return r;
}

/* Add the signature of k over path to its registered signatures. */
static int sign_path(struct conn *c, const struct cix_secret_key *k, const char *path,
		     struct cix_err *err)
{
	struct cix_path_info info = { 0 };
	struct strbuf fp = STRBUF_INIT;
	struct strvec sig = STRVEC_INIT;
	int r = cix_db_query(c->s->db, path, &info, err);
	if (!r)
		r = cix_path_fingerprint(c->s->store_dir, path, &info.nar_hash, info.nar_size,
					 (const char *const *)info.refs, info.nr_refs, &fp, err);
	if (!r) {
		struct strbuf s = STRBUF_INIT;
		if ((r = cix_sign_detached(k, fp.buf, fp.len, &s, err)) == 0)
			strvec_push(&sig, s.buf);
		strbuf_release(&s);
	}
	if (!r)
		r = daemon_add_signatures(c, path, &sig, err);
	cix_path_info_release(&info);
	strbuf_release(&fp);
	strvec_clear(&sig);
	return r;
}

static int sign_outputs(struct conn *c, const struct strvec *outs, struct cix_err *err)
{
	struct strvec files = STRVEC_INIT;
	int r = 0;
	strvec_split(&files, c->trusted_set.secret_key_files, " \t\n");
	for (size_t i = 0; !r && i < files.nr; i++) {
		struct cix_secret_key k;
		if ((r = cix_secret_key_load(files.v[i], &k, err)) < 0)
			break;
		for (size_t j = 0; !r && j < outs->nr; j++)
			r = sign_path(c, &k, outs->v[j], err);
		explicit_bzero(&k, sizeof(k));   /* no copy of the key left behind */
	}
	strvec_clear(&files);
	return r;
}

/*
 * The hook, with DRV_PATH and OUT_PATHS in its environment; what it says
 * goes to the build's log, which the client sees.
 */
static int run_hook(const char *hook, const char *drv_path, const struct strvec *outs,
		    int log_fd, struct cix_err *err)
{
	struct strbuf var = STRBUF_INIT;
	struct strvec env = STRVEC_INIT;
	int status;
	/*
	 * The environment is made before the fork: other threads are building,
	 * and the child of a threaded process may call nothing that allocates.
	 */
	for (char **e = environ; *e; e++)
		if (strncmp(*e, "DRV_PATH=", 9) && strncmp(*e, "OUT_PATHS=", 10))
			strvec_push(&env, *e);
	strbuf_addf(&var, "DRV_PATH=%s", drv_path);
	strvec_push(&env, var.buf);
	strbuf_reset(&var);
	strbuf_addstr(&var, "OUT_PATHS=");
	for (size_t i = 0; i < outs->nr; i++)
		strbuf_addf(&var, "%s%s", i ? " " : "", outs->v[i]);
	strvec_push(&env, var.buf);
	strbuf_release(&var);
	pid_t pid = fork();
	if (pid < 0) {
		strvec_clear(&env);
		return cix_error_errno(err, -errno, "cannot fork for the post-build hook");
	}
	if (pid == 0) {
		int null = open("/dev/null", O_RDONLY);
		if (null >= 0)
			dup2(null, 0);
		if (log_fd >= 0) {
			dup2(log_fd, 1);
			dup2(log_fd, 2);
		}
		char *argv[] = { (char *)hook, NULL };
		execve(hook, argv, env.v);
		_exit(127);
	}
	strvec_clear(&env);
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return cix_error_errno(err, -errno, "cannot wait for the post-build hook");
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		return cix_error(err, -CIX_EINVAL, "post-build hook '%s' failed (%s %d)", hook,
				 WIFEXITED(status) ? "exit status" : "signal",
				 WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
	return 0;
}

static int after_build(struct daemon_build_hook *h, const char *drv_path,
		       const struct cix_drv *drv, struct cix_err *err)
{
	struct conn *c = h->c;
	struct strvec outs = STRVEC_INIT;
	int r = 0;
	for (size_t i = 0; i < drv->nr_outputs; i++)
		strvec_push(&outs, drv->outputs[i].path);
	if (c->trusted_set.auto_optimise) {
		struct cix_store_optimise_stats st;
		r = cix_store_optimise_paths(c->s, (const char *const *)outs.v, outs.nr, &st, err);
	}
	if (!r && c->trusted_set.secret_key_files)
		r = sign_outputs(c, &outs, err);
	if (!r && c->trusted_set.post_build_hook)
		r = run_hook(c->trusted_set.post_build_hook, drv_path, &outs, h->log_fd, err);
	strvec_clear(&outs);
	return r;
}

static int wants_after_build(const struct conn *c)
{
	return c->trusted_set.auto_optimise || c->trusted_set.post_build_hook ||
	       c->trusted_set.secret_key_files;
}

static int on_build(void *opaque, enum cix_build_event ev, const char *drv_path,
		    const struct cix_drv *drv, struct cix_err *err)
{
	struct daemon_build_hook *h = opaque;
	if (ev == CIX_BUILD_BUILT)
		return wants_after_build(h->c) ? after_build(h, drv_path, drv, err) : 0;
	if (daemon_guix_traces(h->c))
		daemon_guix_trace(h->log_fd, drv_path, drv, ev == CIX_BUILD_STARTED ? NULL : err);
	return 0;
}

void daemon_build_hook_set(struct daemon_build_hook *h, struct cix_build_opts *o)
{
	if (wants_after_build(h->c) || daemon_guix_traces(h->c)) {
		o->on_build = on_build;
		o->on_build_opaque = h;
	}
}
