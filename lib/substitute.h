/* substitute.h - store paths installed from binary caches instead of built */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef CIX_SUBSTITUTE_H
#define CIX_SUBSTITUTE_H

#include <pthread.h>

#include "err.h"
#include "fetch.h"
#include "narinfo.h"
#include "sign.h"
#include "strbuf.h"

struct cix_store;

/*
 * A binary cache (http://, https:// or file://, as `cix publish` serves and
 * `nix copy --to file://` writes) and the keys trusted to sign for it.
 */
struct cix_substituter {
	const char *url;                    /* without the query nor a trailing slash */
	const struct cix_public_key *keys;  /* trusted keys (the ACL) */
	size_t nr_keys;
	struct cix_fetch_opts fetch;        /* timeouts, progress, size bounds */
	/* The URL's parameters (subst-url.c), as Nix reads them. */
	char *store_dir;       /* store=: the cache's logical store (NULL: ours) */
	int has_priority, priority;  /* priority=: lower is asked first */
	int want_mass_query;   /* want-mass-query= (kept, unused) */
	int trusted;           /* trusted=: its narinfos need no trusted signature */
};

/* Nix's defaults: a narinfo found is remembered 30 days, a miss an hour. */
#define CIX_NARINFO_POSITIVE_TTL (30L * 86400)
#define CIX_NARINFO_NEGATIVE_TTL 3600L
/*
 * A narinfo that no trusted key signed is used only for a content-addressed
 * path, whose content the store checks once it came: until then its NAR
 * is as large as the cache says. Such a NAR (and its compressed file) may
 * be at most this large ($CIX_SUBSTITUTE_UNSIGNED_MAX_SIZE bytes when
 * set): a narinfo claiming more is refused before anything is downloaded,
 * and the download is cut past the NarSize it claims.
 */
#define CIX_SUBST_UNSIGNED_MAX_SIZE (4ULL << 30)
int cix_subst_unsigned_max_size(uint64_t *max, struct cix_err *err);

/* Downloads at once by default, and the most a caller may ask for. */
#define CIX_SUBST_JOBS 4
#define CIX_SUBST_MAX_JOBS 64

/* How substitutes are looked for: the caches, in order of preference. */
struct cix_subst_opts {
	const struct cix_substituter *subs;
	size_t nr_subs;
	unsigned jobs;       /* downloads at once (0: CIX_SUBST_JOBS) */
	int log_fd;          /* a line per download and per cache found unusable, or -1 */
	/*
	 * Seconds the answers of a cache are remembered in
	 * STATE/substitute-cache (0: the defaults above; < 0: not at all).
	 * Every answer is checked again when used: a remembered narinfo must
	 * still be signed by a key trusted now.
	 */
	long positive_ttl, negative_ttl;
};

enum { CIX_SUBST_PENDING, CIX_SUBST_RUNNING, CIX_SUBST_DONE, CIX_SUBST_FAILED };

/* One path to fetch: its narinfo, from which cache, and what it waits for. */
struct cix_subst_item {
	char *path;
	struct cix_narinfo ni;
	size_t sub;          /* index in opts->subs */
	size_t *deps;        /* items (its references) fetched first */
	size_t nr_deps;
	int state;
	struct cix_err err;  /* why it failed */
};

/*
 * A substitution plan: the paths to fetch with their missing closure, in
 * an order where references come before their referrers.
 */
struct cix_subst {
	struct cix_store *s;
	const struct cix_subst_opts *opts;
	struct cix_subst_item *items;
	size_t nr, alloc;
	size_t first_pending;       /* items before it were run already */
	unsigned char *checked;     /* per cache: its nix-cache-info was read */
	unsigned char *down;        /* per cache: unreachable or unusable */
	int *priority;              /* per cache: the URL's, else its nix-cache-info's, else 0 */
	size_t *order;              /* the caches by priority, once all were checked */
	pthread_mutex_t lock;
	pthread_cond_t cond;
	size_t running;
	int failed;
};

void cix_subst_init(struct cix_subst *p, struct cix_store *s, const struct cix_subst_opts *opts);
void cix_subst_release(struct cix_subst *p);

/*
 * Plan to fetch paths (those not valid yet) and the part of their closure
 * that is not valid. 1: a trusted cache has every one of them, and they
 * are in the plan; 0: some path is in no cache (an unreachable cache counts
 * as having nothing); < 0: a cache has one but cannot be trusted for it (a
 * bad signature, an unknown key, a narinfo for another path, a malformed
 * one). On 0 or < 0 the plan is as it was.
 */
int cix_subst_want(struct cix_subst *p, const char *const *paths, size_t n,
		   struct cix_err *err);

/*
 * What the caches say of path, without planning or fetching: 1 the first
 * cache that has it and can be trusted for it gave ni (released with
 * cix_narinfo_release; *which is that cache); 0 none has it; < 0 a cache
 * has it but cannot be trusted for it, or path is not a store path.
 */
int cix_subst_lookup(struct cix_subst *p, const char *path, struct cix_narinfo *ni,
		     size_t *which, struct cix_err *err);

/*
 * Fetch what was planned and not run yet, opts->jobs at once, each path
 * after its references: its NAR downloaded (FileHash checked when given),
 * decompressed (none, xz, zstd; at most NarSize bytes), restored and added
 * with its NarHash and NarSize checked and the narinfo's references,
 * deriver and signatures registered. After a failure no new download
 * starts; the first failure is returned and the items say which failed.
 */
int cix_subst_run(struct cix_subst *p, struct cix_err *err);

/*
 * Install path and its closure from the caches of opts (cix store
 * --substitute gives one):
 * 1: done; 0: no cache has path (or one it needs); < 0: a
 * cache has it but it cannot be trusted or fetched (nothing of that path
 * is registered).
 */
int cix_substitute(struct cix_store *s, const struct cix_subst_opts *opts, const char *path,
		   struct cix_err *err);
/*
 * The same for several paths, fetched together: 0 done; < 0 a path no cache
 * has ("path '...' is not valid and has no substitute", -CIX_ENOTFOUND),
 * or one that cannot be trusted or fetched.
 */
int cix_substitute_paths(struct cix_store *s, const struct cix_subst_opts *opts,
			 const char *const *paths, size_t n, struct cix_err *err);

/*
 * subst-url.c: the substituters for urls (a space-separated list), each
 * trusting the keys of acl. *subs is an array of *n, freed by
 * cix_substituters_free. URLs must be http://, https:// or file://;
 * trailing slashes are dropped. A URL may end with Nix's parameters,
 * ?KEY=VALUE&... (values %-decoded): store, priority, want-mass-query and
 * trusted are read; those that only matter when writing a cache
 * (compression...) are ignored; any other is refused.
 */
int cix_substituters_make(const char *urls, const struct cix_acl *acl,
			  struct cix_substituter **subs, size_t *n, struct cix_err *err);
void cix_substituters_free(struct cix_substituter *subs, size_t n);

/* A fresh name in the store's temporary directory (internal). */
void cix_subst_temp_name(struct cix_store *s, const char *what, struct strbuf *out);

/*
 * The ACL of this machine: CONF/acl, where CONF is $CIX_CONF_DIR or
 * /etc/cix; a missing file is an empty ACL.
 */
int cix_acl_load(struct cix_acl *acl, struct cix_err *err);

/*
 * The caches of urls (NULL or empty: none) trusting the keys of the ACL
 * as it is now (a key revoked since a daemon started is not trusted),
 * with narinfo TTLs positive_ttl and negative_ttl (0: the defaults), the
 * options that substituting with them takes in so. What the local store
 * and the daemon both make before they substitute.
 */
struct cix_caches {
	struct cix_acl acl;
	struct cix_substituter *subs;
	size_t n;
	struct cix_subst_opts so;
};
int cix_caches_open(struct cix_caches *c, const char *urls, long positive_ttl,
		    long negative_ttl, int log_fd, struct cix_err *err);
void cix_caches_close(struct cix_caches *c);

#endif
