/* subst.c - the caches a client's builds use, and paths fetched from them */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "daemon.h"
#include "util.h"

#include <string.h>

int conn_subst_setup(struct conn *c, struct conn_subst *cs, int log_fd, struct cix_err *err)
{
	int r;
	memset(cs, 0, sizeof(*cs));
	cs->so.log_fd = log_fd;
	if (!c->substitute_urls)
		return 0;
	/* The ACL as it is now: a key revoked since start-up is not trusted. */
	if ((r = cix_acl_load(&cs->acl, err)) < 0 ||
	    (r = cix_substituters_make(c->substitute_urls, &cs->acl, &cs->subs, &cs->n, err)) < 0)
		return r;
	cs->so.subs = cs->subs;
	cs->so.nr_subs = cs->n;
	cs->so.positive_ttl = c->conf->narinfo_positive_ttl;
	cs->so.negative_ttl = c->conf->narinfo_negative_ttl;
	return 0;
}

void conn_subst_release(struct conn_subst *cs)
{
	cix_substituters_free(cs->subs, cs->n);
	cix_acl_release(&cs->acl);
	memset(cs, 0, sizeof(*cs));
}

int conn_substitute_paths(struct conn *c, const char *const *paths, size_t n, int log_fd,
			  struct cix_err *err)
{
	struct conn_subst cs;
	int r;
	if (!n)
		return 0;
	if ((r = conn_subst_setup(c, &cs, log_fd, err)) == 0)
		r = cix_substitute_paths(c->s, &cs.so, paths, n, err);
	conn_subst_release(&cs);
	return r;
}

int conn_subst_query(struct conn *c, const char *const *paths, size_t n, conn_subst_found_fn fn,
		     void *opaque, struct cix_err *err)
{
	struct conn_subst cs;
	struct cix_subst plan;
	int r;
	if ((r = conn_subst_setup(c, &cs, -1, err)) < 0) {
		conn_subst_release(&cs);
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
	conn_subst_release(&cs);
	return 0;
}
