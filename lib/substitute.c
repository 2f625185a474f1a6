/* substitute.c - store paths installed from a binary cache instead of built */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "substitute.h"
#include "compress.h"
#include "db.h"
#include "nar.h"
#include "narinfo.h"
#include "store.h"
#include "strbuf.h"
#include "strvec.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_DEPTH 10000        /* references followed, deep */

/* A fresh name for a download in the store's temporary directory. */
static void temp_name(struct cix_store *s, const char *what, struct strbuf *out)
{
	static unsigned long counter;
	strbuf_addf(out, "%s/.cix-tmp/subst-%ld-%lu-%s", s->store_dir, (long)getpid(),
		    __atomic_fetch_add(&counter, 1, __ATOMIC_RELAXED), what);
}

/* url into memory (at most max bytes): 0, or -CIX_ENOTFOUND (404), or an error. */
static int fetch_text(struct cix_store *s, const struct cix_substituter *sub, const char *url,
		      uint64_t max, struct strbuf *out, struct cix_err *err)
{
	struct cix_fetch_opts fo = sub->fetch;
	struct strbuf tmp = STRBUF_INIT;
	int r;
	fo.max_size = max;
	fo.progress_fd = -1;
	temp_name(s, "narinfo", &tmp);
	r = cix_fetch_url(url, tmp.buf, NULL, 0, 0, &fo, err);
	if (r == 0 && strbuf_read_file(out, tmp.buf, max) < 0)
		r = cix_error_errno(err, -errno, "cannot read '%s'", tmp.buf);
	unlink(tmp.buf);
	strbuf_release(&tmp);
	return r;
}

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

/* Signed by a trusted key, or content-addressed (checked when added). */
static int trusted(const struct cix_narinfo *ni, const struct cix_substituter *sub,
		   const char *store_dir, struct cix_err *err)
{
	struct strbuf fp = STRBUF_INIT;
	int r, ok = 0;
	if ((r = cix_narinfo_fingerprint(ni, store_dir, &fp, err)) < 0)
		return r;
	for (size_t i = 0; !ok && i < ni->sigs.nr; i++)
		ok = cix_verify_detached(ni->sigs.v[i], fp.buf, fp.len, sub->keys, sub->nr_keys) == 1;
	strbuf_release(&fp);
	if (ok || ni->ca)
		return 0;
	return cix_error(err, -EPERM, "'%s' from '%s' is not signed by a trusted key",
			 ni->store_path, sub->url);
}

/* The NAR of ni, fetched, checked and added as ni->store_path. */
static int add_from_cache(struct cix_store *s, const struct cix_substituter *sub,
			  const struct cix_narinfo *ni, struct cix_err *err)
{
	struct cix_fetch_opts fo = sub->fetch;
	struct strbuf url = STRBUF_INIT, tmp = STRBUF_INIT, refs = STRBUF_INIT;
	struct cix_path_info info = { 0 };
	struct cix_buf_source *src = NULL;
	struct cix_zsource *z = NULL;
	enum cix_comp c = CIX_COMP_NONE;
	int r, fd = -1;

	if ((r = comp_of(ni->compression, &c, err)) < 0)
		return r;
	strbuf_addf(&url, "%s/%s", sub->url, ni->url);
	temp_name(s, "nar", &tmp);
	/* Compressed, a NAR is rarely larger than itself and a little. */
	fo.max_size = ni->has_file_size ? ni->file_size : ni->nar_size + ni->nar_size / 8 + 65536;
	r = cix_fetch_url(url.buf, tmp.buf, ni->has_file_hash ? &ni->file_hash : NULL, 0, 0, &fo,
			  err);
	if (r < 0)
		goto out;
	if ((fd = open(tmp.buf, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)) < 0) {
		r = cix_error_errno(err, -errno, "cannot open '%s'", tmp.buf);
		goto out;
	}
	src = xmalloc(sizeof(*src));
	*src = (struct cix_buf_source)CIX_BUF_SOURCE_INIT(fd);
	z = cix_zsource_new(c, cix_buf_source_read, src, ni->nar_size, url.buf);

	info.path = xstrdup(ni->store_path);
	info.nar_hash = ni->nar_hash;
	info.nar_size = ni->nar_size;
	info.refs = xcalloc(ni->refs.nr + 1, sizeof(*info.refs));
	for (size_t i = 0; i < ni->refs.nr; i++) {
		struct strbuf full = STRBUF_INIT;
		strbuf_addf(&full, "%s/%s", s->store_dir, ni->refs.v[i]);
		info.refs[info.nr_refs++] = strbuf_detach(&full, NULL);
	}
	if (ni->deriver) {
		struct strbuf full = STRBUF_INIT;
		strbuf_addf(&full, "%s/%s", s->store_dir, ni->deriver);
		info.deriver = strbuf_detach(&full, NULL);
	}
	for (size_t i = 0; i < ni->sigs.nr; i++)
		strbuf_addf(&refs, "%s%s", i ? " " : "", ni->sigs.v[i]);
	if (refs.len)
		info.sigs = strbuf_detach(&refs, NULL);
	if (ni->ca)
		info.ca = xstrdup(ni->ca);
	r = cix_store_add_nar(s, &info, 0, cix_zsource_read, z, err);
	if (r < 0 && cix_zsource_error(z)->code)
		*err = *cix_zsource_error(z);
	if (r == 0 && cix_zsource_finish(z, err) < 0)
		/* Registered, but the file went on: a cache that pads its NARs. */
		r = 0;
out:
	cix_zsource_free(z);
	free(src);
	if (fd >= 0)
		close(fd);
	unlink(tmp.buf);
	cix_path_info_release(&info);
	strbuf_release(&url);
	strbuf_release(&tmp);
	strbuf_release(&refs);
	return r;
}

static int substitute_one(struct cix_store *s, const struct cix_substituter *sub, const char *path,
			  int depth, struct cix_err *err)
{
	struct strbuf url = STRBUF_INIT, text = STRBUF_INIT;
	struct cix_narinfo ni = CIX_NARINFO_INIT;
	const char *base = strrchr(path, '/');
	int r;

	if ((r = cix_store_is_valid(s, path, err)) != 0)
		return r < 0 ? r : 1;
	if (depth > MAX_DEPTH)
		return cix_error(err, -CIX_ELIMIT, "references deeper than %d", MAX_DEPTH);
	if (!base || strlen(base + 1) < 32)
		return cix_error(err, -CIX_EINVAL, "'%s' is not a store path", path);
	strbuf_addf(&url, "%s/%.32s.narinfo", sub->url, base + 1);
	r = fetch_text(s, sub, url.buf, CIX_NARINFO_MAX_SIZE, &text, err);
	if (r == -CIX_ENOTFOUND) {
		cix_err_clear(err);
		r = 0;
		goto out;
	}
	if (r < 0 || (r = cix_narinfo_parse(text.buf, text.len, s->store_dir, &ni, err)) < 0)
		goto out;
	if (strcmp(ni.store_path, path)) {
		r = cix_error(err, -CIX_EMISMATCH, "'%s' gives the narinfo of '%s', not of '%s'",
			      url.buf, ni.store_path, path);
		goto out;
	}
	if ((r = trusted(&ni, sub, s->store_dir, err)) < 0)
		goto out;
	/* What it refers to, first: a path is valid only with its references. */
	for (size_t i = 0; i < ni.refs.nr; i++) {
		struct strbuf ref = STRBUF_INIT;
		strbuf_addf(&ref, "%s/%s", s->store_dir, ni.refs.v[i]);
		if (strcmp(ref.buf, path))
			r = substitute_one(s, sub, ref.buf, depth + 1, err);
		strbuf_release(&ref);
		if (r <= 0)
			goto out;
	}
	r = add_from_cache(s, sub, &ni, err);
	r = r < 0 ? r : 1;
out:
	cix_narinfo_release(&ni);
	strbuf_release(&url);
	strbuf_release(&text);
	return r;
}

int cix_substitute(struct cix_store *s, const struct cix_substituter *sub, const char *path,
		   struct cix_err *err)
{
	return substitute_one(s, sub, path, 0, err);
}
