/* subst-opts.h - --substitute-urls, --no-substitutes and --fallback, shared by the building commands */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef CIX_CLI_SUBST_OPTS_H
#define CIX_CLI_SUBST_OPTS_H

#include "build.h"
#include "conf.h"
#include "sign.h"
#include "store.h"
#include "substitute.h"

struct subst_cli {
	const char *urls;     /* --substitute-urls (NULL: cix.conf's, or the daemon's) */
	int no_subst;         /* --no-substitutes */
	int fallback;         /* --fallback */
	/* For a store used directly: the caches, trusting the ACL's keys. */
	int loaded;           /* read (once per command, by the first apply) */
	struct cix_conf conf;
	struct cix_acl acl;
	struct cix_substituter *subs;
	size_t n;
	struct cix_subst_opts so;
};

#define SUBST_CLI_HELP \
	"      --substitute-urls=URLS  fetch binaries from these caches (in order)\n" \
	"      --no-substitutes   build everything here, fetch nothing\n" \
	"      --fallback         build what cannot be fetched from a cache\n"

/*
 * Fill bo's substitution fields: for the daemon, what to ask it; for a
 * store used directly, the caches (URLs from the option, else cix.conf's
 * substitute-urls) with the keys of the ACL, read at the first call and
 * kept until subst_cli_release. Lines go to bo->log_fd.
 */
int subst_cli_apply(struct subst_cli *sc, struct cix_store *s, struct cix_build_opts *bo,
		    struct cix_err *err);
void subst_cli_release(struct subst_cli *sc);

/*
 * -n: print on standard error what building drvs with bo would build,
 * download (sources) and fetch from caches, asking the daemon when the
 * store is its.
 */
int print_missing(struct cix_store *s, const char *const *drvs, size_t n,
		  const struct cix_build_opts *bo, struct cix_err *err);

#endif
