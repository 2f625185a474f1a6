/* ops-log.c - build logs sent by a client: AddBuildLog (nix store copy-log) */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "daemon.h"
#include "buildlog.h"

#include <string.h>

/*
 * The derivation a log is for: Nix's clients send its base name; a full
 * path of this store is taken too. It must name a .drv of this store.
 */
static int read_drv(struct conn *c, struct strbuf *drv, struct cix_err *err)
{
	struct strbuf name = STRBUF_INIT;
	int r = cix_wire_read_string(&c->w, &name, CIX_WIRE_MAX_PATH, err);
	if (r < 0) {
		c->broken = 1;
		goto out;
	}
	if (memchr(name.buf, '\0', name.len) || (name.buf[0] != '/' && strchr(name.buf, '/'))) {
		r = cix_error(err, -CIX_EFORMAT, "'%s' is not a derivation's name", name.buf);
		goto out;
	}
	if (name.buf[0] != '/')
		strbuf_addf(drv, "%s/", c->s->store_dir);
	strbuf_addstr(drv, name.buf);
	if ((r = cix_store_check_path(c->s, drv->buf, err)) == 0 &&
	    (drv->len < 4 || strcmp(drv->buf + drv->len - 4, ".drv")))
		r = cix_error(err, -CIX_EINVAL, "'%s' is not a derivation", drv->buf);
out:
	strbuf_release(&name);
	return r;
}

/*
 * A derivation's base name, then the log as framed data. As Nix's daemon:
 * trusted clients only, and a log that is there already is kept.
 */
static int op_add_build_log(struct conn *c, struct cix_err *err)
{
	struct cix_wire_source src = CIX_WIRE_SOURCE_INIT(&c->w);
	struct strbuf drv = STRBUF_INIT;
	int r = read_drv(c, &drv, err);
	if (c->broken)
		goto out;
	if (r == 0 && (r = conn_need_trust(c, "add logs", err)) == 0) {
		/* No larger than a build of here may write (max-log-size). */
		uint64_t max = cix_limit_lesser(c->settings->max_log, c->settings->limits.max_log);
		r = cix_build_log_add(drv.buf, cix_wire_framed_read, &src, max, err);
		if (r < 0 && src.err.code)
			*err = src.err;
	}
	/* The log to its end, whatever became of the request. */
	struct cix_err e2 = { 0 };
	if (!src.done && cix_wire_framed_drain(&src, &e2) < 0) {
		*err = e2;
		c->broken = 1;
		r = e2.code;
	}
	if (r >= 0) {
		conn_last(c);
		cix_wire_write_u64(&c->w, 1);
		r = 0;
	}
out:
	strbuf_release(&drv);
	return r;
}

const struct op daemon_log_ops[] = {
	{ CIX_OP_ADD_BUILD_LOG, op_add_build_log },
	{ 0, NULL },
};
