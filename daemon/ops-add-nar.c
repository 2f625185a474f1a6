/* ops-add-nar.c - NARs with their path info: AddToStoreNar, AddMultipleToStore */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "daemon.h"
#include "encoding.h"
#include "nar.h"
#include "narinfo.h"
#include "store-path.h"
#include "util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* A path's info as the client claims it (ValidPathInfo), not yet checked. */
struct nar_claim {
	struct strbuf path, deriver, hash, ca;
	struct strvec refs, sigs;
	uint64_t reg_time, nar_size;
	int ultimate;
};
#define NAR_CLAIM_INIT { STRBUF_INIT, STRBUF_INIT, STRBUF_INIT, STRBUF_INIT, \
			 STRVEC_INIT, STRVEC_INIT, 0, 0, 0 }

static void claim_release(struct nar_claim *nc)
{
	strbuf_release(&nc->path);
	strbuf_release(&nc->deriver);
	strbuf_release(&nc->hash);
	strbuf_release(&nc->ca);
	strvec_clear(&nc->refs);
	strvec_clear(&nc->sigs);
}

/* The signatures of sigs that a key of the ACL made over info, into good. */
static void signed_by_acl(struct conn *c, const struct cix_path_info *info,
			  const struct strvec *sigs, struct strbuf *good)
{
	struct cix_acl acl = CIX_ACL_INIT;
	struct strbuf fp = STRBUF_INIT;
	if (!sigs->nr || cix_acl_load(&acl, NULL) < 0 ||
	    cix_path_fingerprint(c->s->store_dir, info->path, &info->nar_hash, info->nar_size,
				 (const char *const *)info->refs, info->nr_refs, &fp, NULL) < 0)
		goto out;
	for (size_t i = 0; i < sigs->nr; i++)
		if (cix_verify_detached(sigs->v[i], fp.buf, fp.len, acl.keys, acl.nr) == 1)
			strbuf_addf(good, "%s%s", good->len ? " " : "", sigs->v[i]);
out:
	cix_acl_release(&acl);
	strbuf_release(&fp);
}

/*
 * A NAR of a declared size, on a stream that goes on after it (or whose
 * client must not be asked for more): its end is the size.
 */
struct sized_source {
	cix_source_fn src;
	void *opaque;
	uint64_t left;
};

static ssize_t sized_read(void *opaque, void *buf, size_t len)
{
	struct sized_source *sz = opaque;
	ssize_t n;
	if (!sz->left)
		return 0;
	n = sz->src(sz->opaque, buf, len < sz->left ? len : (size_t)sz->left);
	if (n > 0)
		sz->left -= (uint64_t)n;
	return n;
}

/*
 * The deriver an untrusted client names must have made the path: a valid
 * derivation with an output there (derivations are checked as they come
 * in). Otherwise none is recorded: nobody may claim that another's
 * derivation made what they add.
 */
static int check_deriver(struct conn *c, struct cix_path_info *info, struct cix_err *err)
{
	struct strvec outs = STRVEC_INIT;
	int r, made = 0;
	if (!info->deriver)
		return 0;
	if ((r = cix_store_check_path(c->s, info->deriver, err)) < 0)
		return r;
	r = cix_db_is_valid(c->s->db, info->deriver, err);
	if (r > 0 && cix_store_is_drv_path(info->deriver))
		r = cix_db_drv_outputs(c->s->db, info->deriver, strvec_push_fn, &outs, err);
	for (size_t i = 0; r >= 0 && i < outs.nr; i++)
		made |= !strcmp(outs.v[i], info->path);
	strvec_clear(&outs);
	if (r < 0)
		return r;
	if (!made)
		info->deriver = NULL;
	return 0;
}

/*
 * Add the NAR that src gives as nc claims it. An untrusted client's path
 * must be content-addressed or signed by a key of the ACL (its NAR hash is
 * then checked against the NAR), and its deriver must have made it.
 */
static int add_claimed(struct conn *c, struct nar_claim *nc, int repair, cix_source_fn src,
		       void *opaque, struct cix_err *err)
{
	struct cix_path_info info = { 0 };
	struct strbuf good = STRBUF_INIT;
	const char *h = nc->hash.buf + (strncmp(nc->hash.buf, "sha256:", 7) ? 0 : 7);
	int r = 0;
	info.path = nc->path.buf;
	info.deriver = nc->deriver.len ? nc->deriver.buf : NULL;
	info.refs = nc->refs.v;
	info.nr_refs = nc->refs.nr;
	info.nar_size = nc->nar_size;
	info.ca = nc->ca.len ? nc->ca.buf : NULL;
	info.nar_hash.algo = CIX_HASH_SHA256;
	info.nar_hash.len = 32;
	if (cix_base16_decode(h, strlen(h), info.nar_hash.bytes, 32) != 32 &&
	    cix_nixbase32_decode(h, strlen(h), info.nar_hash.bytes, 32) < 0)
		r = cix_error(err, -CIX_EINVAL, "bad NAR hash '%s'", nc->hash.buf);
	if (!r && repair)
		r = conn_need_trust(c, "repair paths", err);
	if (!r)
		signed_by_acl(c, &info, &nc->sigs, &good);
	info.sigs = good.len ? good.buf : NULL;
	if (!r && !c->trusted)
		r = check_deriver(c, &info, err);
	if (!r)
		r = cix_store_add_nar(c->s, &info, !c->trusted && !good.len, src, opaque, err);
	cix_store_admit_drv_release(&info);   /* the rest is borrowed */
	strbuf_release(&good);
	return r;
}

/* AddToStoreNar's fields, from the connection. */
static int read_claim(struct conn *c, struct nar_claim *nc, struct cix_err *err)
{
	int r;
	if ((r = conn_read_path(c, &nc->path, err)) < 0 ||
	    (r = cix_wire_read_string(&c->w, &nc->deriver, CIX_WIRE_MAX_PATH, err)) < 0 ||
	    (r = cix_wire_read_string(&c->w, &nc->hash, 128, err)) < 0 ||
	    (r = conn_read_paths(c, &nc->refs, err)) < 0 ||
	    (r = cix_wire_read_u64(&c->w, &nc->reg_time, err)) < 0 ||
	    (r = cix_wire_read_u64(&c->w, &nc->nar_size, err)) < 0 ||
	    (r = cix_wire_read_bool(&c->w, &nc->ultimate, err)) < 0 ||
	    (r = cix_wire_read_strings(&c->w, &nc->sigs, 64, 1024, err)) < 0)
		return r;
	return cix_wire_read_string(&c->w, &nc->ca, 1024, err);
}

/*
 * Framed data to its end, whatever became of the request (r); a failure
 * there breaks the connection.
 */
static int finish_framed(struct conn *c, struct cix_wire_source *src, int r, struct cix_err *err)
{
	struct cix_err e2 = { 0 };
	if (!src->done && cix_wire_framed_drain(src, &e2) < 0) {
		*err = e2;
		c->broken = 1;
		return e2.code;
	}
	return r;
}

static int op_add_to_store_nar(struct conn *c, struct cix_err *err)
{
	struct nar_claim nc = NAR_CLAIM_INIT;
	int repair, dont_check, r;
	if ((r = read_claim(c, &nc, err)) < 0 ||
	    (r = cix_wire_read_bool(&c->w, &repair, err)) < 0 ||
	    (r = cix_wire_read_bool(&c->w, &dont_check, err)) < 0)
		goto out;
	if (c->minor >= 23) {
		struct cix_wire_source src = CIX_WIRE_SOURCE_INIT(&c->w);
		r = add_claimed(c, &nc, repair, cix_wire_framed_read, &src, err);
		if (r < 0 && src.err.code)
			*err = src.err;
		r = finish_framed(c, &src, r, err);
	} else if (c->minor >= 21) {
		/* The client sends what is asked for: no more than the NAR's size. */
		struct conn_tunnel t = { .c = c, .chunk = STRBUF_INIT };
		struct sized_source sz = { conn_tunnel_read, &t, nc.nar_size };
		r = add_claimed(c, &nc, repair, sized_read, &sz, err);
		if (r < 0 && t.err.code)
			*err = t.err;
		strbuf_release(&t.chunk);
		if (r < 0)
			c->broken = 1;   /* the tunnel cannot be resynchronised */
	} else {
		struct cix_wire_source src = CIX_WIRE_SOURCE_INIT(&c->w);
		struct sized_source sz = { cix_wire_source_read, &src, nc.nar_size };
		r = add_claimed(c, &nc, repair, sized_read, &sz, err);
		if (r < 0)
			c->broken = 1;   /* a raw NAR cannot be skipped */
	}
	if (!r)
		conn_last(c);
out:
	claim_release(&nc);
	return r;
}

/*
 * AddMultipleToStore's framed data: a count, then for each path its
 * ValidPathInfo and its NAR. The fields are read from the frames with the
 * bounds of the connection's own reads, and within the request's memory
 * budget.
 */
struct framed_fields {
	struct cix_wire_source *src;
	uint64_t used, budget;   /* bytes of fields kept; budget 0: none */
};

static int ff_bytes(struct framed_fields *ff, void *buf, size_t n, struct cix_err *err)
{
	for (size_t got = 0; got < n;) {
		ssize_t k = cix_wire_framed_read(ff->src, (char *)buf + got, n - got);
		if (k < 0)
			return ff->src->err.code ? (*err = ff->src->err, err->code)
						 : cix_error(err, (int)k, "cannot read the paths");
		if (!k)
			return cix_error(err, -CIX_EFORMAT, "the paths end too soon");
		got += (size_t)k;
	}
	return 0;
}

static int ff_u64(struct framed_fields *ff, uint64_t *v, struct cix_err *err)
{
	unsigned char b[8];
	int r = ff_bytes(ff, b, 8, err);
	if (!r)
		*v = cix_get_u64le(b);
	return r;
}

static int ff_string(struct framed_fields *ff, struct strbuf *out, size_t max, struct cix_err *err)
{
	static const char zeros[8];
	char pad[8];
	uint64_t len = 0;
	int r = ff_u64(ff, &len, err);
	if (r < 0)
		return r;
	if (len > max)
		return cix_error(err, -CIX_ELIMIT, "a string of the paths is too long");
	ff->used += len;
	if (ff->budget && ff->used > ff->budget)
		return cix_error(err, -CIX_ELIMIT, "the paths' fields exceed the request's memory budget");
	strbuf_reset(out);
	strbuf_grow(out, (size_t)len);
	if ((r = ff_bytes(ff, out->buf, (size_t)len, err)) < 0 ||
	    (r = ff_bytes(ff, pad, (8 - len % 8) % 8, err)) < 0)
		return r;
	strbuf_setlen(out, (size_t)len);
	if (memcmp(pad, zeros, (8 - len % 8) % 8))
		return cix_error(err, -CIX_EFORMAT, "bad padding in the paths");
	if (memchr(out->buf, '\0', out->len))
		return cix_error(err, -CIX_EFORMAT, "a string of the paths holds a NUL byte");
	return 0;
}

static int ff_strings(struct framed_fields *ff, struct strvec *out, size_t max_n, size_t max,
		      struct cix_err *err)
{
	struct strbuf s = STRBUF_INIT;
	uint64_t n = 0;
	int r = ff_u64(ff, &n, err);
	if (!r && n > max_n)
		r = cix_error(err, -CIX_ELIMIT, "too many strings in the paths");
	for (uint64_t i = 0; !r && i < n; i++)
		if ((r = ff_string(ff, &s, max, err)) == 0)
			strvec_push(out, s.buf);
	strbuf_release(&s);
	return r;
}

static int ff_claim(struct conn *c, struct framed_fields *ff, struct nar_claim *nc,
		    struct cix_err *err)
{
	uint64_t ultimate;
	int r;
	if ((r = ff_string(ff, &nc->path, CIX_WIRE_MAX_PATH, err)) < 0 ||
	    (r = cix_store_check_path(c->s, nc->path.buf, err)) < 0 ||
	    (r = ff_string(ff, &nc->deriver, CIX_WIRE_MAX_PATH, err)) < 0 ||
	    (r = ff_string(ff, &nc->hash, 128, err)) < 0 ||
	    (r = ff_strings(ff, &nc->refs, CIX_WIRE_MAX_LIST, CIX_WIRE_MAX_PATH, err)) < 0 ||
	    (r = ff_u64(ff, &nc->reg_time, err)) < 0 ||
	    (r = ff_u64(ff, &nc->nar_size, err)) < 0 ||
	    (r = ff_u64(ff, &ultimate, err)) < 0 ||
	    (r = ff_strings(ff, &nc->sigs, 64, 1024, err)) < 0 ||
	    (r = ff_string(ff, &nc->ca, 1024, err)) < 0)
		return r;
	for (size_t i = 0; i < nc->refs.nr; i++)
		if ((r = cix_store_check_path(c->s, nc->refs.v[i], err)) < 0)
			return r;
	return 0;
}

/* AddMultipleToStore: repair, dontCheckSigs, then the paths, framed. */
static int op_add_multiple_to_store(struct conn *c, struct cix_err *err)
{
	struct cix_wire_source src = CIX_WIRE_SOURCE_INIT(&c->w);
	struct framed_fields ff = { &src, 0, c->settings->max_request_memory };
	uint64_t n = 0;
	int repair, dont_check, r;
	if ((r = cix_wire_read_bool(&c->w, &repair, err)) < 0 ||
	    (r = cix_wire_read_bool(&c->w, &dont_check, err)) < 0)
		return r;
	r = ff_u64(&ff, &n, err);
	for (uint64_t i = 0; !r && i < n; i++) {
		struct nar_claim nc = NAR_CLAIM_INIT;
		ff.used = 0;
		if ((r = ff_claim(c, &ff, &nc, err)) == 0) {
			struct sized_source sz = { cix_wire_framed_read, &src, nc.nar_size };
			r = add_claimed(c, &nc, repair, sized_read, &sz, err);
			if (r < 0 && src.err.code)
				*err = src.err;
		}
		claim_release(&nc);
	}
	r = finish_framed(c, &src, r, err);
	if (!r)
		conn_last(c);
	return r;
}

const struct op daemon_add_nar_ops[] = {
	{ CIX_OP_ADD_TO_STORE_NAR, op_add_to_store_nar },
	{ CIX_OP_ADD_MULTIPLE_TO_STORE, op_add_multiple_to_store },
	{ 0, NULL },
};
