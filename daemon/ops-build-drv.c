/* ops-build-drv.c - BuildDerivation: a derivation sent whole, built from inputs already here */
/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * What a remote builder is asked (Nix's build-remote, cix's offloading):
 * the client copied the inputs' closure here first, then sends the
 * derivation itself, its input derivations replaced by their outputs
 * among the input sources, so that nothing of its derivation graph need
 * be here. Its output paths cannot be checked without that graph: only a
 * trusted client may name them, as with Nix; anyone may send a
 * fixed-output derivation, whose paths its hashes give.
 */
#include "build-results.h"
#include "drv.h"
#include "store-path.h"
#include "util.h"

#include <errno.h>
#include <string.h>
#include <time.h>

#define MAX_OUTPUTS 1024
#define MAX_FIELD 4096

static int read_outputs(struct conn *c, struct cix_drv *drv, struct cix_err *err)
{
	struct strbuf name = STRBUF_INIT, path = STRBUF_INIT, algo = STRBUF_INIT,
		      hash = STRBUF_INIT;
	uint64_t n;
	int r = cix_wire_read_u64(&c->w, &n, err);
	if (!r && (n == 0 || n > MAX_OUTPUTS))
		r = cix_error(err, -CIX_ELIMIT, "a derivation sent with %llu outputs",
			      (unsigned long long)n);
	for (uint64_t i = 0; !r && i < n; i++)
		if ((r = cix_wire_read_string(&c->w, &name, 256, err)) == 0 &&
		    (r = cix_wire_read_string(&c->w, &path, CIX_WIRE_MAX_PATH, err)) == 0 &&
		    (r = cix_wire_read_string(&c->w, &algo, 64, err)) == 0 &&
		    (r = cix_wire_read_string(&c->w, &hash, 256, err)) == 0)
			cix_drv_add_output(drv, name.buf, path.buf, algo.buf, hash.buf);
	strbuf_release(&name);
	strbuf_release(&path);
	strbuf_release(&algo);
	strbuf_release(&hash);
	return r;
}

static int read_env(struct conn *c, struct cix_drv *drv, struct cix_err *err)
{
	struct strbuf k = STRBUF_INIT, v = STRBUF_INIT;
	uint64_t n;
	int r = cix_wire_read_u64(&c->w, &n, err);
	if (!r && n > CIX_WIRE_MAX_LIST)
		r = cix_error(err, -CIX_ELIMIT, "too many environment variables");
	for (uint64_t i = 0; !r && i < n; i++)
		if ((r = cix_wire_read_string(&c->w, &k, MAX_FIELD, err)) == 0 &&
		    (r = cix_wire_read_string(&c->w, &v, CIX_WIRE_MAX_STRING, err)) == 0)
			cix_drv_setenv(drv, k.buf, v.buf);
	strbuf_release(&k);
	strbuf_release(&v);
	return r;
}

/*
 * The BasicDerivation on the wire (outputs, input sources, platform,
 * builder, arguments, environment), then checked as a .drv file is: its
 * ATerm parsed back with this store's rules.
 */
static int read_basic_drv(struct conn *c, struct cix_drv **out, struct cix_err *err)
{
	struct cix_drv *drv = cix_drv_new();
	struct strvec srcs = STRVEC_INIT, args = STRVEC_INIT;
	struct strbuf platform = STRBUF_INIT, builder = STRBUF_INIT, text = STRBUF_INIT;
	int r;
	if ((r = read_outputs(c, drv, err)) == 0 &&
	    (r = conn_read_paths(c, &srcs, err)) == 0 &&
	    (r = cix_wire_read_string(&c->w, &platform, 256, err)) == 0 &&
	    (r = cix_wire_read_string(&c->w, &builder, MAX_FIELD, err)) == 0 &&
	    (r = cix_wire_read_strings(&c->w, &args, CIX_WIRE_MAX_LIST, CIX_WIRE_MAX_STRING,
				       err)) == 0 &&
	    (r = read_env(c, drv, err)) == 0) {
		for (size_t i = 0; i < srcs.nr; i++)
			cix_drv_add_input_src(drv, srcs.v[i]);
		for (size_t i = 0; i < args.nr; i++)
			cix_drv_add_arg(drv, args.v[i]);
		cix_drv_set_platform(drv, platform.buf);
		cix_drv_set_builder(drv, builder.buf);
		if ((r = cix_drv_canonicalize(drv, err)) == 0) {
			cix_drv_unparse(drv, &text);
			r = cix_drv_parse(text.buf, text.len, c->s->store_dir, out, err);
		}
	}
	cix_drv_free(drv);
	strvec_clear(&srcs);
	strvec_clear(&args);
	strbuf_release(&platform);
	strbuf_release(&builder);
	strbuf_release(&text);
	return r;
}

/* An untrusted client's derivation must be fixed-output, with the paths its hashes give. */
static int may_build(struct conn *c, const char *drv_path, const struct cix_drv *drv,
		     struct cix_err *err)
{
	struct strbuf name = STRBUF_INIT;
	struct cix_drv_hasher *h;
	int r;
	if (c->trusted)
		return 0;
	if (!cix_drv_is_fixed(drv))
		return cix_error(err, -EPERM, "you are not privileged to build input-addressed "
				 "derivations");
	h = cix_store_drv_hasher(c->s);
	if ((r = cix_drv_name_from_path(c->s->store_dir, drv_path, &name, err)) == 0)
		r = cix_drv_check_outputs(h, drv, name.buf, NULL, err);
	cix_drv_hasher_free(h);
	strbuf_release(&name);
	return r;
}

static int op_build_derivation(struct conn *c, struct cix_err *err)
{
	struct strbuf drv_path = STRBUF_INIT;
	struct cix_drv *drv = NULL;
	struct daemon_target t;
	struct daemon_build_times times = { 0, 0 };
	struct strvec none = STRVEC_INIT;
	struct cix_err berr = { 0 };
	int r;
	daemon_target_init(&t, "");
	if ((r = conn_read_path(c, &drv_path, err)) == 0 && !cix_store_is_drv_path(drv_path.buf))
		r = cix_error(err, -CIX_EINVAL, "'%s' does not name a derivation", drv_path.buf);
	if (!r)
		r = read_basic_drv(c, &drv, err);
	if (!r)
		r = daemon_read_build_mode(c, err);
	if (!r)
		r = may_build(c, drv_path.buf, drv, err);
	if (!r) {
		const char *p = drv_path.buf;
		times.start = time(NULL);
		int br = daemon_build(c, &none, &p, 1, drv, &berr);
		times.stop = time(NULL);
		t.status = daemon_build_status(br);
		t.msg = br < 0 ? berr.msg : NULL;
		conn_last(c);
		daemon_write_build_result(c, &t, &times);
	}
	c->build.check = c->build.repair = 0;
	daemon_target_release(&t);
	cix_drv_free(drv);
	strbuf_release(&drv_path);
	return r;
}

const struct op daemon_build_drv_ops[] = {
	{ CIX_OP_BUILD_DERIVATION, op_build_derivation },
	{ 0, NULL },
};
