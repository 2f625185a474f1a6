/* remote-gc.c - the garbage collector's operations of the worker protocol, client side */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "remote.h"
#include "strvec.h"
#include "util.h"

#include <stdint.h>

int cix_remote_collect_garbage(struct cix_remote *r, unsigned action, const char *const *paths,
			       size_t n, uint64_t max_freed, struct strvec *out,
			       uint64_t *freed, struct cix_err *err)
{
	uint64_t bytes, obsolete;
	int ret;
	cix_wire_write_u64(&r->w, CIX_OP_COLLECT_GARBAGE);
	cix_wire_write_u64(&r->w, action);
	cix_wire_write_strings(&r->w, paths, n);
	cix_wire_write_u64(&r->w, 0);          /* ignoreLiveness */
	cix_wire_write_u64(&r->w, max_freed);
	for (int i = 0; i < 3; i++)
		cix_wire_write_u64(&r->w, 0);  /* obsolete fields */
	if ((ret = cix_remote_call(r, err)) == 0 &&
	    (ret = cix_wire_read_strings(&r->w, out, CIX_WIRE_MAX_LIST, CIX_WIRE_MAX_PATH, err)) == 0 &&
	    (ret = cix_wire_read_u64(&r->w, &bytes, err)) == 0)
		ret = cix_wire_read_u64(&r->w, &obsolete, err);
	if (!ret && freed)
		*freed += bytes;
	return ret;
}

static int one_path_op(struct cix_remote *r, enum cix_worker_op op, const char *path, struct cix_err *err)
{
	uint64_t v;
	int ret;
	cix_wire_write_u64(&r->w, op);
	cix_wire_write_str(&r->w, path);
	if ((ret = cix_remote_call(r, err)) < 0)
		return ret;
	return cix_wire_read_u64(&r->w, &v, err);
}

int cix_remote_add_temp_root(struct cix_remote *r, const char *path, struct cix_err *err)
{
	return one_path_op(r, CIX_OP_ADD_TEMP_ROOT, path, err);
}

int cix_remote_ensure_path(struct cix_remote *r, const char *path, struct cix_err *err)
{
	return one_path_op(r, CIX_OP_ENSURE_PATH, path, err);
}

int cix_remote_add_indirect_root(struct cix_remote *r, const char *link, struct cix_err *err)
{
	return one_path_op(r, CIX_OP_ADD_INDIRECT_ROOT, link, err);
}

int cix_remote_find_roots(struct cix_remote *r, struct strvec *links, struct strvec *paths,
			  struct cix_err *err)
{
	struct strbuf s = STRBUF_INIT;
	uint64_t n;
	int ret;
	cix_wire_write_u64(&r->w, CIX_OP_FIND_ROOTS);
	if ((ret = cix_remote_call(r, err)) < 0 || (ret = cix_wire_read_u64(&r->w, &n, err)) < 0)
		return ret;
	if (n > CIX_WIRE_MAX_LIST) {
		r->broken = 1;
		return cix_error(err, -CIX_ELIMIT, "too many roots from the daemon");
	}
	for (uint64_t i = 0; i < n && !ret; i++) {
		if ((ret = cix_wire_read_string(&r->w, &s, CIX_WIRE_MAX_PATH, err)) < 0)
			break;
		strvec_push(links, s.buf);
		if ((ret = cix_wire_read_string(&r->w, &s, CIX_WIRE_MAX_PATH, err)) < 0)
			break;
		strvec_push(paths, s.buf);
	}
	if (ret < 0)
		r->broken = 1;
	strbuf_release(&s);
	return ret;
}
