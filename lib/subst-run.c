/* subst-run.c - fetching a substitution plan: downloads in parallel, added in order */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "substitute.h"
#include "chan.h"
#include "compress.h"
#include "fetch.h"
#include "nar.h"
#include "narinfo.h"
#include "store.h"
#include "strbuf.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* How much of a download may wait for its restore. */
#define CHAN_SIZE (1 << 20)

static int comp_of(const char *name, enum cix_comp *c, struct cix_err *err)
{
	if (!strcmp(name, "none") || !*name)
		*c = CIX_COMP_NONE;
	else if (!strcmp(name, "xz"))
		*c = CIX_COMP_XZ;
	else if (!strcmp(name, "zstd"))
		*c = CIX_COMP_ZSTD;
	else
		return cix_error(err, -CIX_EUNSUPPORTED, "unsupported compression '%s'", name);
	return 0;
}

static void info_of(struct cix_store *s, const struct cix_narinfo *ni, struct cix_path_info *info)
{
	struct strbuf sigs = STRBUF_INIT;
	info->path = xstrdup(ni->store_path);
	info->nar_hash = ni->nar_hash;
	info->nar_size = ni->nar_size;
	info->refs = xcalloc(ni->refs.nr + 1, sizeof(*info->refs));
	for (size_t i = 0; i < ni->refs.nr; i++) {
		struct strbuf full = STRBUF_INIT;
		strbuf_addf(&full, "%s/%s", s->store_dir, ni->refs.v[i]);
		info->refs[info->nr_refs++] = strbuf_detach(&full, NULL);
	}
	if (ni->deriver) {
		struct strbuf full = STRBUF_INIT;
		strbuf_addf(&full, "%s/%s", s->store_dir, ni->deriver);
		info->deriver = strbuf_detach(&full, NULL);
	}
	for (size_t i = 0; i < ni->sigs.nr; i++)
		strbuf_addf(&sigs, "%s%s", i ? " " : "", ni->sigs.v[i]);
	if (sigs.len)
		info->sigs = strbuf_detach(&sigs, NULL);
	if (ni->ca)
		info->ca = xstrdup(ni->ca);
}

/*
 * An uncompressed file whose FileHash is its NarHash is the NAR itself:
 * the restore checks that hash (and the size) anyway, so the download
 * need not hash the same bytes a second time (a third of a substitution's
 * CPU without compression).
 */
static int file_is_nar(const struct cix_narinfo *ni, enum cix_comp c)
{
	return c == CIX_COMP_NONE && ni->file_hash.algo == ni->nar_hash.algo &&
	       ni->file_hash.len == ni->nar_hash.len &&
	       !memcmp(ni->file_hash.bytes, ni->nar_hash.bytes, ni->nar_hash.len) &&
	       (!ni->has_file_size || ni->file_size == ni->nar_size);
}

/* The download of one NAR, in its own thread, into a channel. */
struct producer {
	const char *url;
	const struct cix_hash *file_hash;
	struct cix_fetch_opts fo;
	struct cix_chan *chan;
	struct cix_err err;
	int r;
};

static void *produce(void *arg)
{
	struct producer *pr = arg;
	pr->r = cix_fetch_stream(pr->url, cix_chan_write, pr->chan, pr->file_hash, &pr->fo,
				 &pr->err);
	cix_chan_close_write(pr->chan, pr->r);
	return NULL;
}

/*
 * Download, decompress and restore (unlocked), then register (locked). The
 * NAR streams from the download into the restore, through a channel: the
 * restored tree is registered only once the whole compressed file came,
 * its hash checked, and nothing followed the compressed stream.
 */
static int fetch_item(struct cix_subst *p, struct cix_subst_item *it, struct cix_err *err)
{
	const struct cix_narinfo *ni = &it->ni;
	struct producer pr = { .fo = p->opts->subs[it->sub].fetch };
	struct strbuf url = STRBUF_INIT, tmp = STRBUF_INIT;
	struct cix_path_info info = { 0 };
	struct cix_zsource *z = NULL;
	enum cix_comp c = CIX_COMP_NONE;
	pthread_t th;
	int r;

	if ((r = comp_of(ni->compression, &c, err)) < 0)
		return r;
	cix_fd_printf(p->opts->log_fd, "substituting '%s' from '%s' (%llu KiB)...\n", it->path,
		      p->opts->subs[it->sub].url, (unsigned long long)(((ni->has_file_size ?
		      ni->file_size : ni->nar_size) + 1023) / 1024));
	strbuf_addf(&url, "%s/%s", p->opts->subs[it->sub].url, ni->url);
	/* Compressed, a NAR is rarely larger than itself and a little. */
	pr.fo.max_size = ni->has_file_size ? ni->file_size : ni->nar_size + ni->nar_size / 8 + 65536;
	pr.fo.progress_fd = (p->opts->jobs == 1) ? p->opts->log_fd : -1;
	pr.url = url.buf;
	pr.file_hash = ni->has_file_hash && !file_is_nar(ni, c) ? &ni->file_hash : NULL;
	pr.chan = cix_chan_new(CHAN_SIZE);
	if ((r = pthread_create(&th, NULL, produce, &pr)) != 0) {
		cix_chan_free(pr.chan);
		strbuf_release(&url);
		return cix_error_errno(err, -r, "cannot start a download thread");
	}
	z = cix_zsource_new(c, cix_chan_read, pr.chan, ni->nar_size, url.buf);
	info_of(p->s, ni, &info);
	r = cix_store_add_nar_prepare(p->s, &info, cix_zsource_read, z, &tmp, err);
	if (r < 0 && cix_zsource_error(z)->code)
		*err = *cix_zsource_error(z);
	/* The rest of the download: nothing more, and the file's hash right. */
	if (r == 0)
		r = cix_zsource_finish(z, err);
	cix_chan_close_read(pr.chan);
	pthread_join(th, NULL);
	/* The download's own error says more than what the restore made of it. */
	if (pr.r < 0 && pr.r != -EPIPE) {
		r = pr.r;
		*err = pr.err;
	}
	if (r == 0) {
		pthread_mutex_lock(&p->lock);
		r = cix_store_add_nar_commit(p->s, &info, 0, tmp.buf, err);
		pthread_mutex_unlock(&p->lock);
	} else if (tmp.len) {
		cix_store_add_nar_abort(p->s, tmp.buf);
	}
	if (r < 0) {
		struct cix_err e = *err;
		cix_error(err, e.code, "cannot substitute '%s' from '%s': %s", it->path,
			  p->opts->subs[it->sub].url, e.msg);
	}
	cix_zsource_free(z);
	cix_chan_free(pr.chan);
	cix_path_info_release(&info);
	strbuf_release(&url);
	strbuf_release(&tmp);
	return r;
}

/* The next item whose references are all fetched; those of a failed one fail. */
static long next_ready(struct cix_subst *p)
{
	for (size_t i = p->first_pending; i < p->nr; i++) {
		struct cix_subst_item *it = &p->items[i];
		int ready = it->state == CIX_SUBST_PENDING;
		for (size_t k = 0; ready && k < it->nr_deps; k++) {
			const struct cix_subst_item *d = &p->items[it->deps[k]];
			if (d->state == CIX_SUBST_FAILED) {
				it->state = CIX_SUBST_FAILED;
				cix_error(&it->err, d->err.code, "%s", d->err.msg);
				pthread_cond_broadcast(&p->cond);
			}
			ready = d->state == CIX_SUBST_DONE;
		}
		if (ready)
			return (long)i;
	}
	return -1;
}

static void *worker(void *arg)
{
	struct cix_subst *p = arg;
	pthread_mutex_lock(&p->lock);
	for (;;) {
		long i = next_ready(p);
		if (i < 0) {
			if (!p->running)
				break;
			pthread_cond_wait(&p->cond, &p->lock);
			continue;
		}
		struct cix_subst_item *it = &p->items[i];
		struct cix_err e = { 0 };
		it->state = CIX_SUBST_RUNNING;
		p->running++;
		pthread_mutex_unlock(&p->lock);
		int r = fetch_item(p, it, &e);
		pthread_mutex_lock(&p->lock);
		p->running--;
		it->state = r < 0 ? CIX_SUBST_FAILED : CIX_SUBST_DONE;
		if (r < 0) {
			it->err = e;
			p->failed = 1;
		}
		pthread_cond_broadcast(&p->cond);
	}
	pthread_cond_broadcast(&p->cond);
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

int cix_subst_run(struct cix_subst *p, struct cix_err *err)
{
	unsigned jobs = p->opts->jobs ? p->opts->jobs : CIX_SUBST_JOBS;
	size_t todo = p->nr - p->first_pending;
	pthread_t th[CIX_SUBST_MAX_JOBS];
	unsigned started = 0;
	int r = 0;

	if (jobs > CIX_SUBST_MAX_JOBS)
		jobs = CIX_SUBST_MAX_JOBS;
	if (jobs > todo)
		jobs = (unsigned)todo;
	for (unsigned j = 0; j < jobs; j++)
		if (!pthread_create(&th[j], NULL, worker, p))
			started++;
		else
			break;
	if (!started && todo)
		worker(p);
	for (unsigned j = 0; j < started; j++)
		pthread_join(th[j], NULL);
	for (size_t i = p->first_pending; i < p->nr; i++)
		if (p->items[i].state != CIX_SUBST_DONE && !r) {
			r = p->items[i].err.code ? p->items[i].err.code : -CIX_EMISMATCH;
			if (err)
				*err = p->items[i].err;
		}
	p->first_pending = p->nr;
	return r;
}

int cix_substitute(struct cix_store *s, const struct cix_subst_opts *opts, const char *path,
		   struct cix_err *err)
{
	struct cix_subst p;
	int r;
	cix_subst_init(&p, s, opts);
	if ((r = cix_subst_want(&p, &path, 1, err)) > 0 && (r = cix_subst_run(&p, err)) == 0)
		r = 1;
	cix_subst_release(&p);
	return r;
}

int cix_substitute_paths(struct cix_store *s, const struct cix_subst_opts *opts,
			 const char *const *paths, size_t n, struct cix_err *err)
{
	struct cix_subst p;
	int r = 0;
	if (!n)
		return 0;
	cix_subst_init(&p, s, opts);
	for (size_t i = 0; r >= 0 && i < n; i++)
		if ((r = cix_subst_want(&p, &paths[i], 1, err)) == 0)
			r = cix_error(err, -CIX_ENOTFOUND,
				      "path '%s' is not valid and has no substitute", paths[i]);
	if (r > 0)
		r = cix_subst_run(&p, err);
	cix_subst_release(&p);
	return r;
}
