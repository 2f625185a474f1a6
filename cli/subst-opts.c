/* subst-opts.c - --substitute-urls, --no-substitutes and --fallback, shared by the building commands */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "subst-opts.h"

#include "builtins.h"
#include "drv.h"
#include "strvec.h"

#include <stdio.h>
#include <string.h>

void subst_cli_apply(const struct subst_cli *sc, struct cix_build_opts *bo)
{
	bo->fallback = sc->fallback;
	bo->substitute_urls = sc->urls;
	bo->no_substitutes = sc->no_subst;
	bo->builders = sc->builders;
}

/* A fixed-output download (builtin:fetchurl): listed apart, as a download. */
static int is_download(struct cix_store *s, const char *drv_path)
{
	struct cix_drv *drv;
	int yes;
	if (cix_drv_parse_file(drv_path, s->store_dir, &drv, NULL) < 0)
		return 0;
	const struct cix_builtin *bi = cix_builtin_find(drv->builder);
	yes = bi && bi->is_download;
	cix_drv_free(drv);
	return yes;
}

static void list(const char *what, const struct strvec *v)
{
	if (!v->nr)
		return;
	fprintf(stderr, "%s %zu %s:\n", v->nr == 1 ? "this" : "these", v->nr, what);
	for (size_t i = 0; i < v->nr; i++)
		fprintf(stderr, "   %s\n", v->v[i]);
}

/* -n: what would be built, downloaded (sources) and fetched (substitutes). */
int print_missing(struct cix_store *s, const char *const *drvs, size_t n,
		  const struct cix_build_opts *bo, struct cix_err *err)
{
	struct cix_build_missing m = { STRVEC_INIT, STRVEC_INIT, 0, 0 };
	struct strvec builds = STRVEC_INIT, downloads = STRVEC_INIT;
	int r = cix_store_plan(s, drvs, n, bo, &m, err);
	if (r == 0) {
		for (size_t i = 0; i < m.builds.nr; i++)
			strvec_push(is_download(s, m.builds.v[i]) ? &downloads : &builds, m.builds.v[i]);
		strvec_sort_unique(&builds);
		strvec_sort_unique(&downloads);
		strvec_sort_unique(&m.fetches);
		list(builds.nr == 1 ? "derivation would be built" : "derivations would be built",
		     &builds);
		list(downloads.nr == 1 ? "file would be downloaded" : "files would be downloaded",
		     &downloads);
		if (m.fetches.nr) {
			char what[128];
			snprintf(what, sizeof(what), "%s would be fetched (%.2f MiB download, "
				 "%.2f MiB unpacked)", m.fetches.nr == 1 ? "path" : "paths",
				 (double)m.download_size / (1 << 20), (double)m.nar_size / (1 << 20));
			list(what, &m.fetches);
		}
		if (!builds.nr && !downloads.nr && !m.fetches.nr)
			fprintf(stderr, "nothing to be built or downloaded\n");
	}
	strvec_clear(&builds);
	strvec_clear(&downloads);
	strvec_clear(&m.builds);
	strvec_clear(&m.fetches);
	return r;
}
