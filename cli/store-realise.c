/* store-realise.c - cix store --realise */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "cix.h"
#include "store-ops.h"
#include "build.h"
#include "drv.h"

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

int op_realise(struct cix_store *s, const struct store_flags *f, char **args, int nargs)
{
	struct cix_build_opts opts = { .keep_failed = f->keep_failed, .log_fd = 2 };
	for (int i = 0; i < nargs; i++) {
		struct cix_err err = { 0 };
		char *path = xstrdup(args[i]), *bang = strchr(path, '!');
		int r;
		if (bang)
			*bang++ = '\0';
		if ((r = cix_store_check_path(s, path, &err)) == 0) {
			size_t len = strlen(path);
			if (len < 4 || strcmp(path + len - 4, ".drv")) {
				/* A plain store path: realised when valid. */
				if ((r = cix_db_is_valid(s->db, path, &err)) == 0)
					r = cix_error(&err, -CIX_ENOTFOUND,
						      "path '%s' is not valid and has no derivation here", path);
				if (r > 0) {
					puts(path);
					r = 0;
				}
			} else if ((r = cix_build_derivation(s, path, &opts, &err)) == 0) {
				r = print_outputs(s, path, bang, &err);
			}
		}
		free(path);
		if (r < 0)
			return error_err(&err);
	}
	return 0;
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
			if ((r = cix_db_query(s->db, drv, &info, &err)) == 0 && !info.deriver)
				r = cix_error(&err, -CIX_ENOTFOUND, "path '%s' has no deriver", drv);
			drv = info.deriver;
		}
		struct strbuf p = STRBUF_INIT, log = STRBUF_INIT;
		if (r == 0) {
			const char *base = strrchr(drv, '/') + 1;
			strbuf_addf(&p, "%s/drvs/%.2s/%s", cix_log_dir(), base, base + 2);
			if ((r = strbuf_read_file(&log, p.buf, 0)) < 0)
				r = cix_error(&err, r, "build log of '%s' is not available", drv);
			else
				fwrite(log.buf, 1, log.len, stdout);
		}
		strbuf_release(&p);
		strbuf_release(&log);
		cix_path_info_release(&info);
		if (r < 0)
			return error_err(&err);
	}
	return 0;
}
