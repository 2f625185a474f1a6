/* build-repair.c - a modified output put right by building its deriver again */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "build.h"
#include "store.h"
#include "strbuf.h"
#include "strvec.h"

#include <string.h>

/* Is path an output of the valid derivation drv_path? */
static int made_by(struct cix_store *s, const char *drv_path, const char *path,
		   struct cix_err *err)
{
	struct strvec outs = STRVEC_INIT;
	int r = cix_db_is_valid(s->db, drv_path, err), made = 0;
	if (r > 0 && cix_store_is_drv_path(drv_path))
		r = cix_db_drv_outputs(s->db, drv_path, strvec_push_fn, &outs, err);
	for (size_t i = 0; r >= 0 && i < outs.nr; i++)
		made |= !strcmp(outs.v[i], path);
	strvec_clear(&outs);
	return r < 0 ? r : made;
}

int cix_build_repair_deriver(struct cix_store *s, const char *path, struct strbuf *drv,
			     struct cix_err *err)
{
	struct cix_path_info info;
	int r = cix_db_query(s->db, path, &info, err);
	if (r < 0)
		return r;
	if (!info.deriver || (r = made_by(s, info.deriver, path, err)) == 0)
		r = cix_error(err, -CIX_ENOTFOUND, "it has no valid derivation to build it again");
	if (r > 0) {
		strbuf_addstr(drv, info.deriver);
		r = 0;
	}
	cix_path_info_release(&info);
	return r;
}

int cix_build_repair_path(struct cix_store *s, const char *path,
			  const struct cix_build_opts *opts, struct cix_err *err)
{
	struct strbuf drv = STRBUF_INIT;
	int r = cix_build_repair_deriver(s, path, &drv, err);
	if (!r) {
		struct cix_build_opts o = *opts;
		o.repair = 1;
		o.check = 0;
		o.subst = NULL;   /* the caches would give what is valid already */
		r = cix_build_derivation(s, drv.buf, &o, err);
	}
	strbuf_release(&drv);
	return r;
}
