/* store-realise.c - cix store --realise */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "cix.h"
#include "store-ops.h"
#include "build.h"
#include "buildlog.h"
#include "drv.h"
#include "subst-opts.h"
#include "strvec.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Print the outputs of drv named in the comma-separated list wanted (all if NULL). */
static int print_outputs(struct cix_store *s, const char *drv_path, const char *wanted,
			 struct cix_err *err)
{
	struct cix_drv *drv;
	int r = cix_drv_parse_file(drv_path, s->store_dir, &drv, err);
	if (r < 0)
		return r;
	for (size_t i = 0; i < drv->nr_outputs; i++) {
		const char *name = drv->outputs[i].name;
		if (wanted) {
			size_t len = strlen(name);
			const char *p = wanted;
			int hit = 0;
			while (*p && !hit) {
				const char *e = strchrnul(p, ',');
				hit = (size_t)(e - p) == len && !strncmp(p, name, len);
				p = *e ? e + 1 : e;
			}
			if (!hit)
				continue;
		}
		puts(drv->outputs[i].path);
	}
	cix_drv_free(drv);
	return 0;
}

static int is_drv(const char *path)
{
	size_t len = strlen(path);
	return len >= 4 && !strcmp(path + len - 4, ".drv");
}

int op_realise(struct cix_store *s, const struct store_flags *f, char **args, int nargs)
{
	struct cix_build_opts opts = { .max_jobs = f->max_jobs, .cores = f->cores,
				       .keep_failed = f->keep_failed, .log_fd = 2,
				       .keep_going = f->keep_going,
				       .timeout = f->timeout, .max_silent = f->max_silent,
				       .max_log = f->max_log,
				       .check = f->check, .no_build = f->no_build };
	struct cix_err err = { 0 };
	const char **drvs = xcalloc((size_t)nargs + 1, sizeof(*drvs));
	char **paths = xcalloc((size_t)nargs + 1, sizeof(*paths));
	struct subst_cli sc = { .urls = f->substitute_urls, .no_subst = f->no_subst,
				.builders = f->builders,
				.fallback = f->fallback };
	struct strvec missing = STRVEC_INIT;
	size_t nr = 0;
	int r = 0;

	subst_cli_apply(&sc, &opts);
	/* DRV!OUT,... names outputs; a plain path must simply be valid. */
	for (int i = 0; !r && i < nargs; i++) {
		char *bang;
		paths[i] = xstrdup(args[i]);
		if ((bang = strchr(paths[i], '!')))
			*bang = '\0';
		if ((r = cix_store_check_path(s, paths[i], &err)) < 0)
			break;
		if (is_drv(paths[i]))
			drvs[nr++] = paths[i];
		else if ((r = cix_store_is_valid(s, paths[i], &err)) == 0)
			strvec_push(&missing, paths[i]);
		else if (r > 0)
			r = 0;
	}
	/* A plain path that is not valid can only come from a cache. */
	if (!r && missing.nr)
		r = cix_store_ensure_paths(s, (const char *const *)missing.v, missing.nr, &opts,
					   &err);
	if (!r)
		r = cix_store_build(s, drvs, nr, &opts, &err);
	for (int i = 0; !r && i < nargs; i++) {
		const char *bang = strchr(args[i], '!');
		if (is_drv(paths[i]))
			r = print_outputs(s, paths[i], bang ? bang + 1 : NULL, &err);
		else
			puts(paths[i]);
	}
	for (int i = 0; i < nargs; i++)
		free(paths[i]);
	free(paths);
	free(drvs);
	strvec_clear(&missing);
	if (r == -CIX_ENONDET) {
		error_err(&err);
		return 104; /* as nix-store: a check found a difference */
	}
	return r < 0 ? error_err(&err) : 0;
}

/* The log of a derivation, or of the derivation an output path came from. */
int op_read_log(struct cix_store *s, const struct store_flags *f, char **args, int nargs)
{
	for (int i = 0; i < nargs; i++) {
		struct cix_err err = { 0 };
		struct cix_path_info info = { 0 };
		const char *drv = args[i];
		size_t len = strlen(drv);
		int r = cix_store_check_path(s, drv, &err);
		if (r == 0 && (len < 4 || strcmp(drv + len - 4, ".drv"))) {
			if ((r = cix_store_query(s, drv, &info, &err)) == 0 && !info.deriver)
				r = cix_error(&err, -CIX_ENOTFOUND, "path '%s' has no deriver", drv);
			drv = info.deriver;
		}
		struct strbuf log = STRBUF_INIT;
		if (r == 0 && (r = cix_build_log_read(drv, &log, &err)) == 0)
			fwrite(log.buf, 1, log.len, stdout);
		strbuf_release(&log);
		cix_path_info_release(&info);
		if (r < 0)
			return error_err(&err);
	}
	return 0;
}
