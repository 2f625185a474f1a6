/* substitute.c - finding substitutes: narinfos, trusted or not, remembered, planned */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "substitute.h"
#include "env.h"
#include "conf.h"
#include "cache-file.h"
#include "db.h"
#include "hash.h"
#include "narinfo.h"
#include "store.h"
#include "strbuf.h"
#include "strvec.h"
#include "util.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define MAX_ITEMS 1000000      /* paths of one plan */

void cix_subst_init(struct cix_subst *p, struct cix_store *s, const struct cix_subst_opts *opts)
{
	memset(p, 0, sizeof(*p));
	p->s = s;
	p->opts = opts;
	p->checked = xcalloc(opts->nr_subs + 1, 1);
	p->down = xcalloc(opts->nr_subs + 1, 1);
	p->priority = xcalloc(opts->nr_subs + 1, sizeof(*p->priority));
	for (size_t i = 0; i < opts->nr_subs; i++)
		p->priority[i] = opts->subs[i].has_priority ? opts->subs[i].priority : 0;
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->cond, NULL);
}

void cix_subst_release(struct cix_subst *p)
{
	for (size_t i = 0; i < p->nr; i++) {
		free(p->items[i].path);
		cix_narinfo_release(&p->items[i].ni);
		free(p->items[i].deps);
	}
	free(p->items);
	free(p->checked);
	free(p->down);
	free(p->priority);
	free(p->order);
	pthread_cond_destroy(&p->cond);
	pthread_mutex_destroy(&p->lock);
	memset(p, 0, sizeof(*p));
}


/* ---- The narinfo cache: STATE/substitute-cache/URLHASH/HASHPART.{narinfo,miss} ---- */

static void cache_name(const struct cix_subst *p, size_t sub, const char *hash_part,
		       const char *ext, struct strbuf *out)
{
	const char *url = p->opts->subs[sub].url;
	struct cix_hash h;
	cix_hash_buf(CIX_HASH_SHA256, url, strlen(url), &h);
	strbuf_addf(out, "%s/substitute-cache/", p->s->state_dir);
	for (int i = 0; i < 8; i++)
		strbuf_addf(out, "%02x", h.bytes[i]);
	strbuf_addf(out, "/%.32s.%s", hash_part, ext);
}

static long ttl(long v, long dflt)
{
	return v == 0 ? dflt : v;
}

/* Is file there and younger than ttl seconds? */
static int fresh(const char *file, long seconds)
{
	struct stat st;
	if (seconds < 0 || lstat(file, &st) < 0 || !S_ISREG(st.st_mode))
		return 0;
	return time(NULL) - st.st_mtime < seconds && st.st_mtime <= time(NULL) + 60;
}

/* 1: text from the cache; 0: a remembered miss; -1: nothing remembered. */
static int cache_get(const struct cix_subst *p, size_t sub, const char *hash_part,
		     struct strbuf *text)
{
	struct strbuf f = STRBUF_INIT;
	int r = -1;
	cache_name(p, sub, hash_part, "miss", &f);
	if (fresh(f.buf, ttl(p->opts->negative_ttl, CIX_NARINFO_NEGATIVE_TTL))) {
		r = 0;
	} else {
		strbuf_setlen(&f, 0);
		cache_name(p, sub, hash_part, "narinfo", &f);
		if (fresh(f.buf, ttl(p->opts->positive_ttl, CIX_NARINFO_POSITIVE_TTL)) &&
		    strbuf_read_file(text, f.buf, CIX_NARINFO_MAX_SIZE) >= 0)
			r = 1;
	}
	strbuf_release(&f);
	return r;
}

/* Remember an answer (text NULL: a miss); failing to is no error. */
static void cache_put(const struct cix_subst *p, size_t sub, const char *hash_part,
		      const struct strbuf *text)
{
	struct strbuf f = STRBUF_INIT, other = STRBUF_INIT;
	if (ttl(text ? p->opts->positive_ttl : p->opts->negative_ttl, 1) < 0)
		return;
	cache_name(p, sub, hash_part, text ? "narinfo" : "miss", &f);
	cache_name(p, sub, hash_part, text ? "miss" : "narinfo", &other);
	unlink(other.buf);
	cix_cache_write(f.buf, text ? text->buf : "", text ? text->len : 0, NULL);
	strbuf_release(&f);
	strbuf_release(&other);
}

/* ---- Asking a cache ---- */

/* A fresh name in the store's temporary directory. */
void cix_subst_temp_name(struct cix_store *s, const char *what, struct strbuf *out)
{
	static unsigned long counter;
	strbuf_addf(out, "%s/.cix-tmp/subst-%ld-%lu-%s", s->store_dir, (long)getpid(),
		    __atomic_fetch_add(&counter, 1, __ATOMIC_RELAXED), what);
}

/* url into memory (at most max bytes): 0, or -CIX_ENOTFOUND (404), or an error. */
static int fetch_text(struct cix_subst *p, size_t sub, const char *url, uint64_t max,
		      struct strbuf *out, struct cix_err *err)
{
	struct cix_fetch_opts fo = p->opts->subs[sub].fetch;
	struct strbuf tmp = STRBUF_INIT;
	int r;
	fo.max_size = max;
	fo.progress_fd = -1;
	cix_subst_temp_name(p->s, "narinfo", &tmp);
	r = cix_fetch_url(url, tmp.buf, NULL, 0, 0, &fo, err);
	if (r == 0 && strbuf_read_file(out, tmp.buf, max) < 0)
		r = cix_error_errno(err, -errno, "cannot read '%s'", tmp.buf);
	unlink(tmp.buf);
	strbuf_release(&tmp);
	return r;
}

static int network_error(int r)
{
	return r == -ECONNREFUSED || r == -ETIMEDOUT || r == -EIO || r == -EHOSTUNREACH ||
	       r == -ENETUNREACH || r == -ECONNRESET;
}

static void mark_down(struct cix_subst *p, size_t sub, const char *why)
{
	if (!p->down[sub])
		cix_fd_printf(p->opts->log_fd, "warning: substitutes of '%s' are not used: %s\n",
			      p->opts->subs[sub].url, why);
	p->down[sub] = 1;
}

/*
 * Once per cache: it must be for our store (store= says which the URL
 * means, ours when absent; Nix skips a cache of another store too) and
 * reachable, and its StoreDir that store when it says one. Its Priority
 * counts unless the URL gave one.
 */
static void check_cache(struct cix_subst *p, size_t sub)
{
	const struct cix_substituter *sb = &p->opts->subs[sub];
	const char *store = sb->store_dir ? sb->store_dir : p->s->store_dir;
	struct strbuf url = STRBUF_INIT, text = STRBUF_INIT;
	struct cix_cache_info ci = { 0 };
	struct cix_err err = { 0 };
	int r = 0;
	if (p->checked[sub])
		return;
	p->checked[sub] = 1;
	if (strcmp(store, p->s->store_dir)) {
		r = cix_error(&err, -CIX_EMISMATCH, "it is a cache of the store '%s' (store=), not"
			      " of '%s'", store, p->s->store_dir);
		goto out;
	}
	strbuf_addf(&url, "%s/nix-cache-info", sb->url);
	r = fetch_text(p, sub, url.buf, CIX_CACHE_INFO_MAX_SIZE, &text, &err);
	if (r == -CIX_ENOTFOUND)
		r = 0;      /* a bare directory of narinfos will do */
	else if (r == 0 && (r = cix_cache_info_parse(text.buf, text.len, &ci, &err)) == 0 &&
		 ci.store_dir && strcmp(ci.store_dir, store))
		r = cix_error(&err, -CIX_EMISMATCH, "its store is '%s', not '%s'", ci.store_dir,
			      store);
	if (r == 0 && ci.has_priority && !sb->has_priority)
		p->priority[sub] = ci.priority;
out:
	if (r < 0)
		mark_down(p, sub, err.msg);
	cix_cache_info_release(&ci);
	strbuf_release(&url);
	strbuf_release(&text);
}

/*
 * The order the caches are asked in: by priority, lower first, then as
 * listed. Each cache is checked first, for its nix-cache-info's Priority
 * (as Nix opens every substituter before it orders them).
 */
static const size_t *cache_order(struct cix_subst *p)
{
	size_t n = p->opts->nr_subs;
	if (p->order)
		return p->order;
	p->order = xcalloc(n + 1, sizeof(*p->order));
	for (size_t i = 0; i < n; i++) {
		check_cache(p, i);
		/* insertion sort: stable, and there are at most 64 */
		size_t j = i;
		for (; j > 0 && p->priority[p->order[j - 1]] > p->priority[i]; j--)
			p->order[j] = p->order[j - 1];
		p->order[j] = i;
	}
	return p->order;
}

/*
 * The narinfo's URL is relative to the cache, without ".." or a scheme:
 * a narinfo never points at a file of this machine or another host.
 */
static int url_ok(const char *u)
{
	if (!*u || *u == '/' || strlen(u) > 1024)
		return 0;
	for (const char *c = u; *c; c++)
		if (!(isalnum((unsigned char)*c) || strchr("._-+/", *c)))
			return 0;
	for (const char *c = u; c; c = strchr(c, '/'), c = c ? c + 1 : c)
		if (!strncmp(c, "..", 2) && (c[2] == '/' || !c[2]))
			return 0;
	return 1;
}

int cix_subst_unsigned_max_size(uint64_t *max, struct cix_err *err)
{
	const char *v = cix_env(CIX_ENV_SUBSTITUTE_UNSIGNED_MAX_SIZE);
	const struct cix_build_limits *l;
	char *end;
	int r;
	*max = CIX_SUBST_UNSIGNED_MAX_SIZE;
	if (!v || !*v) {
		/* cix.conf's substitute-unsigned-max-size (none: no bound) */
		if ((r = cix_build_limits_of_conf(&l, err)) < 0)
			return r;
		*max = l->subst_unsigned_max ? l->subst_unsigned_max : UINT64_MAX;
		return 0;
	}
	errno = 0;
	unsigned long long n = strtoull(v, &end, 10);
	if (*v < '0' || *v > '9' || *end || errno)
		return cix_error(err, -CIX_EINVAL,
				 "CIX_SUBSTITUTE_UNSIGNED_MAX_SIZE is not a number of bytes: '%s'", v);
	*max = n;
	return 0;
}

/* An unsigned narinfo's NAR and file within the bound, before any download. */
static int unsigned_size_ok(const struct cix_narinfo *ni, const struct cix_substituter *sub,
			    struct cix_err *err)
{
	uint64_t max, size = ni->nar_size;
	int r = cix_subst_unsigned_max_size(&max, err);
	if (r < 0)
		return r;
	if (ni->has_file_size && ni->file_size > size)
		size = ni->file_size;
	if (size <= max)
		return 0;
	return cix_error(err, -CIX_ELIMIT,
			 "'%s' from '%s' is not signed and says its NAR has %llu bytes, more than"
			 " the %llu of an unsigned substitute (substitute-unsigned-max-size)",
			 ni->store_path, sub->url, (unsigned long long)size,
			 (unsigned long long)max);
}

/*
 * Signed by a trusted key, or from a cache whose URL says trusted=true
 * (only the daemon's own caches and a trusted user's can), or
 * content-addressed (checked when added) and of a bounded size.
 */
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
	if (ok || sub->trusted)
		return 0;
	if (ni->ca)
		return unsigned_size_ok(ni, sub, err);
	return cix_error(err, -EPERM, "'%s' from '%s' is not signed by a trusted key",
			 ni->store_path, sub->url);
}

/*
 * The narinfo of path from cache sub: 1 found and trusted; 0 not there
 * (or the cache is unreachable); < 0 there but not to be trusted.
 */
static int ask(struct cix_subst *p, size_t sub, const char *path, struct cix_narinfo *ni,
	       struct cix_err *err)
{
	const struct cix_substituter *sb = &p->opts->subs[sub];
	struct strbuf url = STRBUF_INIT, text = STRBUF_INIT;
	const char *base = strrchr(path, '/') + 1;
	int r;

	check_cache(p, sub);
	if (p->down[sub])
		return 0;
	if ((r = cache_get(p, sub, base, &text)) < 0) {
		strbuf_addf(&url, "%s/%.32s.narinfo", sb->url, base);
		r = fetch_text(p, sub, url.buf, CIX_NARINFO_MAX_SIZE, &text, err);
		if (r == -CIX_ENOTFOUND) {
			cix_err_clear(err);
			cache_put(p, sub, base, NULL);
			r = 0;
			goto out;
		}
		if (r < 0 && network_error(r)) {
			mark_down(p, sub, err->msg);
			cix_err_clear(err);
			r = 0;
			goto out;
		}
		if (r < 0)
			goto out;
		cache_put(p, sub, base, &text);
		r = 1;
	}
	if (r == 0)
		goto out;
	strbuf_setlen(&url, 0);
	strbuf_addf(&url, "%s/%.32s.narinfo", sb->url, base);
	if ((r = cix_narinfo_parse(text.buf, text.len, p->s->store_dir, ni, err)) < 0)
		goto out;
	if (strcmp(ni->store_path, path))
		r = cix_error(err, -CIX_EMISMATCH, "'%s' gives the narinfo of '%s', not of '%s'",
			      url.buf, ni->store_path, path);
	else if (!url_ok(ni->url))
		r = cix_error(err, -CIX_EFORMAT, "'%s' points at '%s', not at a file of the cache",
			      url.buf, ni->url);
	else if ((r = trusted(ni, sb, p->s->store_dir, err)) == 0)
		r = 1;
	if (r < 0)
		cix_narinfo_release(ni);
out:
	strbuf_release(&url);
	strbuf_release(&text);
	return r;
}

/* Ask each cache in turn; the first trusted answer wins, else the first refusal. */
static int lookup(struct cix_subst *p, const char *path, struct cix_narinfo *ni, size_t *which,
		  struct cix_err *err)
{
	struct cix_err first = { 0 };
	const size_t *order = cache_order(p);
	for (size_t k = 0; k < p->opts->nr_subs; k++) {
		struct cix_err e = { 0 };
		size_t i = order[k];
		int r = ask(p, i, path, ni, &e);
		if (r > 0) {
			*which = i;
			return 1;
		}
		if (r < 0 && !first.code)
			first = e;
	}
	if (first.code && err)
		*err = first;
	return first.code;
}

int cix_subst_lookup(struct cix_subst *p, const char *path, struct cix_narinfo *ni, size_t *which,
		     struct cix_err *err)
{
	if (cix_store_check_path(p->s, path, err) < 0)
		return -CIX_EINVAL;
	return lookup(p, path, ni, which, err);
}

/* ---- Planning ---- */

static long find_item(const struct cix_subst *p, const char *path)
{
	for (size_t i = p->nr; i-- > 0;)
		if (!strcmp(p->items[i].path, path))
			return (long)i;
	return -1;
}

/*
 * Add path (not valid) after what it refers to; returns its index, or
 * -1 with *res 0 (a miss) or < 0 (an error).
 */
static long plan(struct cix_subst *p, const char *path, int depth, int *res, struct cix_err *err)
{
	struct cix_narinfo ni = CIX_NARINFO_INIT;
	size_t which = 0, *deps = NULL, nr = 0;
	long self = find_item(p, path);
	int r;

	if (self >= 0)
		return self;
	if (depth > 10000 || p->nr >= MAX_ITEMS) {
		*res = cix_error(err, -CIX_ELIMIT, "a closure deeper or larger than cix takes");
		return -1;
	}
	if ((r = lookup(p, path, &ni, &which, err)) <= 0) {
		*res = r;
		return -1;
	}
	deps = xcalloc(ni.refs.nr + 1, sizeof(*deps));
	for (size_t i = 0; i < ni.refs.nr; i++) {
		struct strbuf ref = STRBUF_INIT;
		long d = 0;
		strbuf_addf(&ref, "%s/%s", p->s->store_dir, ni.refs.v[i]);
		d = -2;   /* valid, or itself: nothing to wait for */
		if (strcmp(ref.buf, path)) {
			r = cix_store_is_valid(p->s, ref.buf, err);
			if (r < 0)
				*res = r, d = -1;
			else if (r == 0)
				d = plan(p, ref.buf, depth + 1, res, err);
		}
		strbuf_release(&ref);
		if (d == -1) {
			free(deps);
			cix_narinfo_release(&ni);
			return -1;
		}
		if (d >= 0)
			deps[nr++] = (size_t)d;
	}
	ALLOC_GROW(p->items, p->nr + 1, p->alloc);
	p->items[p->nr] = (struct cix_subst_item){ .path = xstrdup(path), .ni = ni, .sub = which,
						   .deps = deps, .nr_deps = nr };
	return (long)p->nr++;
}

static void truncate_plan(struct cix_subst *p, size_t nr)
{
	while (p->nr > nr) {
		struct cix_subst_item *it = &p->items[--p->nr];
		free(it->path);
		cix_narinfo_release(&it->ni);
		free(it->deps);
	}
}

int cix_subst_want(struct cix_subst *p, const char *const *paths, size_t n, struct cix_err *err)
{
	size_t before = p->nr;
	for (size_t i = 0; i < n; i++) {
		int r = cix_store_check_path(p->s, paths[i], err), res = 0;
		if (r == 0 && (r = cix_store_is_valid(p->s, paths[i], err)) == 0 &&
		    plan(p, paths[i], 0, &res, err) < 0)
			r = res;
		if (r < 0 || (r == 0 && find_item(p, paths[i]) < 0)) {
			truncate_plan(p, before);
			return r;
		}
	}
	return 1;
}

int cix_acl_load(struct cix_acl *acl, struct cix_err *err)
{
	const char *conf = cix_env(CIX_ENV_CONF_DIR);
	struct strbuf file = STRBUF_INIT, text = STRBUF_INIT;
	int r = 0;
	strbuf_addf(&file, "%s/acl", conf);
	if (strbuf_read_file(&text, file.buf, 1 << 20) < 0) {
		if (errno != ENOENT)
			r = cix_error_errno(err, -errno, "cannot read '%s'", file.buf);
	} else if ((r = cix_acl_parse(text.buf, text.len, acl, err)) < 0) {
		struct cix_err e = *err;
		r = cix_error(err, e.code, "%s: %s", file.buf, e.msg);
	}
	strbuf_release(&file);
	strbuf_release(&text);
	return r;
}

int cix_caches_open(struct cix_caches *c, const char *urls, long positive_ttl,
		    long negative_ttl, int log_fd, struct cix_err *err)
{
	int r;
	memset(c, 0, sizeof(*c));
	c->so.log_fd = log_fd;
	if (!urls || !*urls)
		return 0;
	if ((r = cix_acl_load(&c->acl, err)) < 0 ||
	    (r = cix_substituters_make(urls, &c->acl, &c->subs, &c->n, err)) < 0) {
		cix_caches_close(c);
		return r;
	}
	c->so.subs = c->subs;
	c->so.nr_subs = c->n;
	c->so.positive_ttl = positive_ttl;
	c->so.negative_ttl = negative_ttl;
	return 0;
}

void cix_caches_close(struct cix_caches *c)
{
	cix_substituters_free(c->subs, c->n);
	cix_acl_release(&c->acl);
	memset(c, 0, sizeof(*c));
}
