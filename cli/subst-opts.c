/* subst-opts.c - --substitute-urls, --no-substitutes and --fallback, shared by the building commands */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "subst-opts.h"

#include "drv.h"
#include "remote.h"
#include "strvec.h"

#include <stdio.h>
#include <string.h>

/* cix.conf, the ACL and the caches, read once per command. */
static int load(struct subst_cli *sc, struct cix_err *err)
{
	const char *urls;
	int r;
	sc->loaded = 1;
	if ((r = cix_conf_load(cix_conf_file(), &sc->conf, err)) < 0)
		return r;
	urls = sc->urls ? sc->urls : sc->conf.substitute_urls;
	if (!urls || !*urls)
		return 0;
	if ((r = cix_acl_load(&sc->acl, err)) < 0 ||
	    (r = cix_substituters_make(urls, &sc->acl, &sc->subs, &sc->n, err)) < 0)
		return r;
	sc->so.subs = sc->subs;
	sc->so.nr_subs = sc->n;
	sc->so.positive_ttl = sc->conf.narinfo_positive_ttl;
	sc->so.negative_ttl = sc->conf.narinfo_negative_ttl;
	return 0;
}

int subst_cli_apply(struct subst_cli *sc, struct cix_store *s, struct cix_build_opts *bo,
		    struct cix_err *err)
{
	int r;
	bo->fallback = sc->fallback;
	if (s->remote) {
		bo->substitute_urls = sc->urls;
		bo->no_substitutes = sc->no_subst;
		return 0;
	}
	if (sc->no_subst)
		return 0;
	if (!sc->loaded && (r = load(sc, err)) < 0) {
		subst_cli_release(sc);
		return r;
	}
	if (!sc->n)
		return 0;
	sc->so.log_fd = bo->log_fd;
	bo->subst = &sc->so;
	return 0;
}

void subst_cli_release(struct subst_cli *sc)
{
	cix_substituters_free(sc->subs, sc->n);
	cix_acl_release(&sc->acl);
	cix_conf_release(&sc->conf);
	sc->subs = NULL;
	sc->n = 0;
	sc->loaded = 0;
}

/* A fixed-output download (builtin:fetchurl): listed apart, as a download. */
static int is_download(struct cix_store *s, const char *drv_path)
{
	struct cix_drv *drv;
	int yes;
	if (cix_drv_parse_file(drv_path, s->store_dir, &drv, NULL) < 0)
		return 0;
	yes = !strcmp(drv->builder, "builtin:fetchurl");
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
	int r = s->remote ? cix_remote_query_missing(s->remote, drvs, n, bo, &m, err)
			  : cix_build_plan(s, drvs, n, bo, &m, err);
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
