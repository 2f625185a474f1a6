/* store-substitute.c - cix store --substitute: paths installed from a binary cache */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "cix.h"
#include "store-ops.h"
#include "sign.h"
#include "store.h"
#include "strbuf.h"
#include "substitute.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/*
 * --substitute URL PATH...: each PATH (and its closure) from the binary
 * cache at URL, signed by a key of the ACL; PATH printed once valid.
 */
int op_substitute(struct cix_store *s, const struct store_flags *f, char **args, int nargs)
{
	struct cix_acl acl = CIX_ACL_INIT;
	struct cix_substituter *subs = NULL;
	struct cix_subst_opts so = { .log_fd = -1 };
	struct cix_err err = { 0 };
	size_t nsubs = 0;
	int status = 0;
	(void)f;

	if (nargs < 2)
		return usage_error("--substitute needs a cache URL and store paths");
	/* The daemon fetches only from caches it trusts: --realise asks it. */
	if (!cix_store_has(s, CIX_STORE_OWNS_STATE))
		return error("--substitute writes to a store of one's own; through cix-daemon, use "
			     "--realise --substitute-urls=%s PATH...", args[0]);
	if (cix_acl_load(&acl, &err) < 0 ||
	    cix_substituters_make(args[0], &acl, &subs, &nsubs, &err) < 0) {
		status = error_err(&err);
		goto out;
	}
	if (nsubs != 1) {
		status = usage_error("--substitute needs one cache URL");
		goto out;
	}
	subs[0].fetch.progress_fd = isatty(2) ? 2 : -1;
	so.subs = subs;
	so.nr_subs = nsubs;
	so.log_fd = isatty(2) ? 2 : -1;
	for (int i = 1; i < nargs; i++) {
		int r = cix_store_check_path(s, args[i], &err);
		if (r >= 0)
			r = cix_substitute(s, &so, args[i], &err);
		if (r < 0)
			status = error_err(&err);
		else if (r == 0)
			status = error("'%s' is not in the cache '%s'", args[i], subs[0].url);
		else
			puts(args[i]);
	}
out:
	cix_substituters_free(subs, nsubs);
	cix_acl_release(&acl);
	return status;
}
