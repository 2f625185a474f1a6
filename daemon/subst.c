/* subst.c - the caches a client's builds use, and paths fetched from them */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "daemon.h"
#include "util.h"

#include <string.h>

int conn_subst_setup(struct conn *c, struct cix_caches *cs, int log_fd, struct cix_err *err)
{
	return cix_caches_open(cs, c->substitute_urls, c->conf->narinfo_positive_ttl,
			       c->conf->narinfo_negative_ttl, log_fd, err);
}

int conn_substitute_paths(struct conn *c, const char *const *paths, size_t n, int log_fd,
			  struct cix_err *err)
{
	struct cix_caches cs;
	int r;
	if (!n)
		return 0;
	if ((r = conn_subst_setup(c, &cs, log_fd, err)) == 0)
		r = cix_substitute_paths(c->s, &cs.so, paths, n, err);
	cix_caches_close(&cs);
	return r;
}

int conn_subst_query(struct conn *c, const char *const *paths, size_t n, conn_subst_found_fn fn,
		     void *opaque, struct cix_err *err)
{
	struct cix_caches cs;
	struct cix_subst plan;
	int r;
	if ((r = conn_subst_setup(c, &cs, -1, err)) < 0) {
		cix_caches_close(&cs);
		return r;
	}
	cix_subst_init(&plan, c->s, &cs.so);
	for (size_t i = 0; i < n; i++) {
		struct cix_narinfo ni = { 0 };
		struct cix_err e = { 0 };
		size_t which;
		/* A cache that cannot be trusted for a path has no substitute for it. */
		if (cs.n && cix_subst_lookup(&plan, paths[i], &ni, &which, &e) > 0) {
			fn(opaque, paths[i], &ni);
			cix_narinfo_release(&ni);
		}
	}
	cix_subst_release(&plan);
	cix_caches_close(&cs);
	return 0;
}
