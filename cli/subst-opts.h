/* subst-opts.h - --substitute-urls, --no-substitutes and --fallback, shared by the building commands */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef CIX_CLI_SUBST_OPTS_H
#define CIX_CLI_SUBST_OPTS_H

#include "build.h"
#include "store.h"

struct subst_cli {
	const char *urls;     /* --substitute-urls (NULL: cix.conf's, or the daemon's) */
	int no_subst;         /* --no-substitutes */
	int fallback;         /* --fallback */
	const char *builders; /* --builders=SPEC (NULL: cix.conf's, or the daemon's) */
};

#define SUBST_CLI_HELP \
	"      --substitute-urls=URLS  fetch binaries from these caches (in order)\n" \
	"      --no-substitutes   build everything here, fetch nothing\n" \
	"      --fallback         build what cannot be fetched from a cache\n" \
	"      --builders=SPEC    offload builds to these machines (SPEC: @FILE, or\n" \
	"                         machines-file lines separated by ';'; '' for none)\n"

/*
 * Fill bo's substitution fields from the options: the store reads the
 * caches they name (or cix.conf's) when a build needs them.
 */
void subst_cli_apply(const struct subst_cli *sc, struct cix_build_opts *bo);

/*
 * -n: print on standard error what building drvs with bo would build,
 * download (sources) and fetch from caches.
 */
int print_missing(struct cix_store *s, const char *const *drvs, size_t n,
		  const struct cix_build_opts *bo, struct cix_err *err);

#endif
