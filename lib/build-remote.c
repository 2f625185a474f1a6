/* build-remote.c - a derivation built on another machine: inputs sent, BuildDerivation, outputs fetched */
/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Every cix process that offloads shares what it knows of the machines
 * through STATE/offload: a machine's slot k is the lock of ID-k.lock,
 * held (flock) while a build runs there, so the daemon's workers and
 * local commands count the same jobs; ID.down's time is when the machine
 * last failed to answer, and it is passed over for DOWN_SECONDS after.
 * ID is a hash of the machine's URI.
 */
#include "build-int.h"
#include "encoding.h"
#include "hash.h"
#include "machines.h"
#include "remote.h"
#include "store-backend.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define DOWN_SECONDS 60

/* STATE/offload/ID (then the caller's suffix) into p. */
static void machine_file(struct cix_store *s, const struct cix_machine *m, struct strbuf *p)
{
	struct cix_hash h;
	cix_hash_buf(CIX_HASH_SHA256, m->uri, strlen(m->uri), &h);
	strbuf_reset(p);
	strbuf_addf(p, "%s/offload", s->state_dir);
	mkdir(p->buf, 0755);
	strbuf_addch(p, '/');
	cix_base16_encode(p, h.bytes, 8);
}

static int is_down(struct cix_store *s, const struct cix_machine *m)
{
	struct strbuf p = STRBUF_INIT;
	struct stat st;
	machine_file(s, m, &p);
	strbuf_addstr(&p, ".down");
	int down = stat(p.buf, &st) == 0 && time(NULL) - st.st_mtime < DOWN_SECONDS;
	strbuf_release(&p);
	return down;
}

void cix_offload_mark_down(struct cix_store *s, const struct cix_machine *m)
{
	struct strbuf p = STRBUF_INIT;
	machine_file(s, m, &p);
	strbuf_addstr(&p, ".down");
	int fd = open(p.buf, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd >= 0) {
		futimens(fd, NULL);
		close(fd);
	}
	strbuf_release(&p);
}

/*
 * m's slots: how many are taken, and the lock of a free one in *free_fd
 * (-1 if none).
 */
static unsigned probe_slots(struct cix_store *s, const struct cix_machine *m, int *free_fd)
{
	struct strbuf base = STRBUF_INIT, p = STRBUF_INIT;
	unsigned busy = 0;
	*free_fd = -1;
	machine_file(s, m, &base);
	for (unsigned k = 0; k < m->max_jobs; k++) {
		strbuf_reset(&p);
		strbuf_addf(&p, "%s-%u.lock", base.buf, k);
		int fd = open(p.buf, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
		if (fd < 0)
			continue;
		if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
			busy++;
			close(fd);
		} else if (*free_fd < 0) {
			*free_fd = fd;
		} else {
			close(fd);
		}
	}
	strbuf_release(&base);
	strbuf_release(&p);
	return busy;
}

int cix_offload_take(struct cix_store *s, const struct cix_machines *ms, const char *system,
		     const char *const *features, size_t nf, struct cix_offload_slot *slot)
{
	double best = 0;
	int fits = 0;
	slot->fd = -1;
	for (size_t i = 0; i < ms->nr; i++) {
		const struct cix_machine *m = &ms->v[i];
		int fd;
		if (!cix_machine_fits(m, system, features, nf) || is_down(s, m))
			continue;
		fits = 1;
		unsigned busy = probe_slots(s, m, &fd);
		double load = busy / m->speed;
		if (fd < 0)
			continue;
		if (slot->fd < 0 || load < best) {
			if (slot->fd >= 0)
				close(slot->fd);
			slot->fd = fd;
			slot->machine = i;
			best = load;
		} else {
			close(fd);
		}
	}
	return slot->fd >= 0 ? 1 : fits ? 0 : -1;
}

void cix_offload_release(struct cix_offload_slot *slot)
{
	if (slot->fd >= 0)
		close(slot->fd);
	slot->fd = -1;
}

/* drv's outputs not valid here. */
static int missing_outputs(struct cix_store *s, const struct cix_drv *drv, struct strvec *out,
			   struct cix_err *err)
{
	for (size_t i = 0; i < drv->nr_outputs; i++) {
		int r = cix_store_is_valid(s, drv->outputs[i].path, err);
		if (r < 0)
			return r;
		if (!r)
			strvec_push(out, drv->outputs[i].path);
	}
	return 0;
}

/*
 * The build itself, over there: inputs sent, the derivation built, outputs
 * fetched. The store is used with lock held (it is taken on entry); the
 * build itself is waited for without.
 */
static int build_there(struct cix_store *s, struct cix_store *there, const char *name,
		       const char *drv_path, const struct cix_drv *drv,
		       const struct cix_build_opts *opts, pthread_mutex_t *lock,
		       struct cix_err *err)
{
	struct strvec inputs = STRVEC_INIT, outs = STRVEC_INIT;
	struct cix_err e = { 0 };
	int r = cix_build_input_roots(s, drv, &inputs, err);
	if (!r && inputs.nr &&
	    (r = cix_store_copy_closure(s, there, (const char *const *)inputs.v, inputs.nr,
					NULL, NULL, &e)) < 0)
		r = cix_error(err, r, "cannot send the inputs of '%s' to '%s': %s", drv_path, name,
			      e.msg);
	if (!r) {
		/* It builds there, itself, from what it was sent (as Nix's builders). */
		struct cix_build_opts there_opts = *opts;
		there_opts.no_build = 0;
		there_opts.max_jobs = 1;
		there_opts.builders = "";
		there_opts.machines = NULL;
		there_opts.no_substitutes = 1;
		there_opts.substitute_urls = NULL;
		pthread_mutex_unlock(lock);
		r = cix_remote_build_derivation(cix_store_daemon_conn(there), drv_path, drv,
						(const char *const *)inputs.v, inputs.nr,
						&there_opts, &e);
		pthread_mutex_lock(lock);
		if (r < 0)
			r = cix_error(err, r, "build of '%s' on '%s' failed: %s", drv_path, name,
				      e.msg);
	}
	if (!r)
		r = missing_outputs(s, drv, &outs, err);
	if (!r && outs.nr && (r = cix_offload_fetch(s, there, name, drv, &inputs, &outs, &e)) < 0)
		r = cix_error(err, r, "cannot fetch the outputs of '%s' from '%s': %s", drv_path,
			      name, e.msg);
	strvec_clear(&inputs);
	strvec_clear(&outs);
	return r;
}

int cix_offload_build(struct cix_store *s, const struct cix_machine *m, const char *drv_path,
		      const struct cix_drv *drv, const struct cix_build_opts *opts,
		      pthread_mutex_t *lock, struct cix_err *err)
{
	char *uri = cix_machine_store_uri(m), *name = xstrndup(m->uri, strcspn(m->uri, "?"));
	struct cix_store *there = NULL;
	struct cix_err e = { 0 };
	int r;
	if (opts->log_fd >= 0)
		dprintf(opts->log_fd, "building '%s' on '%s'\n", drv_path, name);
	pthread_mutex_unlock(lock);
	r = cix_store_open_uri(uri, &there, &e);
	pthread_mutex_lock(lock);
	free(uri);
	if (r < 0) {
		cix_offload_mark_down(s, m);
		free(name);
		return cix_error(err, -EHOSTUNREACH, "%s", e.msg);
	}
	cix_store_daemon_conn(there)->log_fd = opts->log_fd;
	r = build_there(s, there, name, drv_path, drv, opts, lock, err);
	cix_store_close(there);
	free(name);
	return r;
}
