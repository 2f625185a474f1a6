/* ops-add.c - the daemon's operations that move store content in and out */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "daemon.h"
#include "env.h"
#include "narinfo.h"
#include "encoding.h"
#include "export.h"
#include "nar.h"
#include "remove.h"
#include "quote.h"
#include "store-path.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>

/* Parse "text:sha256", "fixed:r:sha256", "fixed:sha1"... */
static int parse_method(const char *s, enum cix_add_method *m, enum cix_hash_algo *algo,
			struct cix_err *err)
{
	if (!strncmp(s, "text:", 5)) {
		*m = CIX_ADD_TEXT;
		s += 5;
	} else if (!strncmp(s, "fixed:r:", 8)) {
		*m = CIX_ADD_RECURSIVE;
		s += 8;
	} else if (!strncmp(s, "fixed:", 6)) {
		*m = CIX_ADD_FLAT;
		s += 6;
	} else {
		return cix_error(err, -CIX_EUNSUPPORTED, "unsupported content-address method");
	}
	if (cix_hash_algo_parse(s, algo) < 0)
		return cix_error(err, -CIX_EUNSUPPORTED, "unsupported hash algorithm");
	return 0;
}

/*
 * Reply with path and its info, as ValidPathInfo is written: what the add
 * registered, or (when the path was valid already) what the store has.
 */
static int reply_path_info(struct conn *c, const char *path, struct cix_path_info *known,
			   struct cix_err *err)
{
	struct cix_path_info info = { 0 };
	int r = known->path ? 0 : cix_db_query(c->s->db, path, &info, err);
	if (r < 0)
		return r;
	conn_last(c);
	cix_wire_write_str(&c->w, path);
	conn_write_path_info(c, known->path ? known : &info);
	cix_path_info_release(&info);
	return 0;
}

/*
 * AddToStore before 1.25: name, an obsolete "fixed" flag, recursive, the
 * hash algorithm, then the NAR of the file or tree inline (a flat add
 * sends the NAR of one regular file); the reply is the path.
 */
static int add_to_store_legacy(struct conn *c, struct cix_err *err)
{
	struct strbuf name = STRBUF_INIT, algo_name = STRBUF_INIT, out = STRBUF_INIT,
		      dir = STRBUF_INIT, file = STRBUF_INIT;
	struct cix_wire_source src = CIX_WIRE_SOURCE_INIT(&c->w);
	enum cix_hash_algo algo = CIX_HASH_SHA256;
	uint64_t fixed, recursive;
	int r;
	if ((r = cix_wire_read_string(&c->w, &name, CIX_WIRE_MAX_PATH, err)) < 0 ||
	    (r = cix_wire_read_u64(&c->w, &fixed, err)) < 0 ||
	    (r = cix_wire_read_u64(&c->w, &recursive, err)) < 0 ||
	    (r = cix_wire_read_string(&c->w, &algo_name, 64, err)) < 0)
		goto out;
	/*
	 * The NAR, restored aside (it ends where its own structure says, on a
	 * stream that goes on), then added under its name. A request refused
	 * (its hash, such as Guix's sha3-256 or blake2s-256, or its name) has
	 * its NAR read all the same: the connection goes on.
	 */
	struct cix_err refusal = { 0 };
	int refused = cix_store_name_check(name.buf, name.len, &refusal) < 0;
	char q[160];
	if (!refused && cix_hash_algo_parse(algo_name.buf, &algo) < 0)
		refused = cix_error(&refusal, -CIX_EUNSUPPORTED,
				    "hash algorithm '%s' is not supported by cix",
				    cix_quote(q, sizeof(q), algo_name.buf, algo_name.len)) < 0;
	strbuf_addf(&dir, "%s/cix-add-XXXXXX", cix_env(CIX_ENV_TMPDIR));
	if (!mkdtemp(dir.buf)) {
		c->broken = 1;
		r = cix_error_errno(err, -errno, "cannot create a temporary directory");
		goto out;
	}
	strbuf_addf(&file, "%s/%s", dir.buf, refused ? "refused" : name.buf);
	r = cix_nar_restore(cix_wire_source_read, &src, file.buf, NULL, NULL, err);
	if (!r && refused) {
		*err = refusal;
		r = refusal.code;
	} else if (!r)
		r = cix_store_add(c->s, file.buf, recursive ? CIX_ADD_RECURSIVE : CIX_ADD_FLAT,
				  algo, &out, err);
	else
		c->broken = 1;
	cix_remove_tree_at(AT_FDCWD, dir.buf, NULL);
	if (r < 0 && src.err.code) {
		*err = src.err;
		c->broken = 1;
	}
	if (!r) {
		conn_last(c);
		cix_wire_write_str(&c->w, out.buf);
	}
out:
	strbuf_release(&name);
	strbuf_release(&algo_name);
	strbuf_release(&out);
	strbuf_release(&dir);
	strbuf_release(&file);
	return r;
}

/* AddToStore, protocol >= 1.25: name, method, references, repair, framed data. */
static int op_add_to_store(struct conn *c, struct cix_err *err)
{
	struct strbuf name = STRBUF_INIT, method = STRBUF_INIT, out = STRBUF_INIT;
	struct strvec refs = STRVEC_INIT;
	struct cix_wire_source src = CIX_WIRE_SOURCE_INIT(&c->w);
	struct cix_path_info known = { 0 };
	enum cix_add_method m = CIX_ADD_FLAT;
	enum cix_hash_algo algo = CIX_HASH_SHA256;
	int repair, r;

	if (c->minor < 25)
		return add_to_store_legacy(c, err);
	if ((r = cix_wire_read_string(&c->w, &name, CIX_WIRE_MAX_PATH, err)) < 0 ||
	    (r = cix_wire_read_string(&c->w, &method, 64, err)) < 0 ||
	    (r = conn_read_paths(c, &refs, err)) < 0 ||
	    (r = cix_wire_read_bool(&c->w, &repair, err)) < 0)
		goto out;
	/* The data follows whatever we think of the request: read it all. */
	if ((r = parse_method(method.buf, &m, &algo, err)) == 0 &&
	    (!repair || (r = conn_need_trust(c, "repair paths", err)) == 0))
		r = cix_store_add_source(c->s, name.buf, m, algo, (const char *const *)refs.v,
					 refs.nr, cix_wire_framed_read, &src, &out, &known, err);
	if (src.err.code && r < 0)
		*err = src.err;
	if (!src.done) {
		struct cix_err e2 = { 0 };
		int d = cix_wire_framed_drain(&src, &e2);
		if (d < 0) {
			*err = e2;
			c->broken = 1;   /* the stream is broken: end the connection */
			goto out;
		}
	}
	if (!r)
		r = reply_path_info(c, out.buf, &known, err);
out:
	cix_path_info_release(&known);
	strbuf_release(&name);
	strbuf_release(&method);
	strbuf_release(&out);
	strvec_clear(&refs);
	return r;
}

static int op_add_text_to_store(struct conn *c, struct cix_err *err)
{
	struct strbuf name = STRBUF_INIT, text = STRBUF_INIT, out = STRBUF_INIT;
	struct strvec refs = STRVEC_INIT;
	int r;
	if ((r = cix_wire_read_string(&c->w, &name, CIX_WIRE_MAX_PATH, err)) < 0 ||
	    (r = cix_wire_read_string(&c->w, &text, CIX_WIRE_MAX_STRING, err)) < 0 ||
	    (r = conn_read_paths(c, &refs, err)) < 0)
		goto out;
	struct cix_mem_source mem = { (const unsigned char *)text.buf, text.len, 0 };
	r = cix_store_add_source(c->s, name.buf, CIX_ADD_TEXT, CIX_HASH_SHA256,
				 (const char *const *)refs.v, refs.nr, cix_mem_source_read, &mem,
				 &out, NULL, err);
	if (!r) {
		conn_last(c);
		cix_wire_write_str(&c->w, out.buf);
	}
out:
	strbuf_release(&name);
	strbuf_release(&text);
	strbuf_release(&out);
	strvec_clear(&refs);
	return r;
}

/* NAR out, straight after LAST. */
static int wire_sink(void *opaque, const void *data, size_t len)
{
	struct conn *c = opaque;
	cix_wire_write(&c->w, data, len);
	if (c->w.wbuf.len >= 65536)
		return cix_wire_flush(&c->w, NULL);
	return 0;
}

static int op_nar_from_path(struct conn *c, struct cix_err *err)
{
	struct strbuf p = STRBUF_INIT;
	int r = conn_read_path(c, &p, err);
	if (!r && (r = cix_db_is_valid(c->s->db, p.buf, err)) == 0)
		r = cix_error(err, -CIX_ENOTFOUND, "path '%s' is not valid", p.buf);
	if (r > 0) {
		conn_last(c);
		r = cix_nar_dump(p.buf, wire_sink, c, err);
		if (r < 0)
			c->broken = 1;   /* the NAR was begun: end the connection */
	}
	strbuf_release(&p);
	return r;
}

/* ExportPath: the export entry in STDERR_WRITE frames, then 1. */
struct tunnel_sink {
	struct conn *c;
	struct strbuf buf;
};

static int tunnel_flush(struct tunnel_sink *t)
{
	if (!t->buf.len)
		return 0;
	cix_wire_write_u64(&t->c->w, CIX_STDERR_WRITE);
	cix_wire_write_string(&t->c->w, t->buf.buf, t->buf.len);
	strbuf_reset(&t->buf);
	return cix_wire_flush(&t->c->w, NULL);
}

static int tunnel_sink_fn(void *opaque, const void *data, size_t len)
{
	struct tunnel_sink *t = opaque;
	strbuf_add(&t->buf, data, len);
	return t->buf.len >= 65536 ? tunnel_flush(t) : 0;
}

static int op_export_path(struct conn *c, struct cix_err *err)
{
	struct strbuf p = STRBUF_INIT;
	struct cix_path_info info = { 0 };
	struct tunnel_sink t = { c, STRBUF_INIT };
	uint64_t sign;
	int r = conn_read_path(c, &p, err);
	if (!r)
		r = cix_wire_read_u64(&c->w, &sign, err);
	if (!r && !(r = cix_db_query(c->s->db, p.buf, &info, err))) {
		struct cix_export_meta m = { info.path, (const char *const *)info.refs, info.nr_refs,
					     info.deriver };
		/*
		 * The entry without its leading marker 1, as Nix's exportPath
		 * writes it: a client that exports several paths (Guix's
		 * export-paths) writes the markers and the final 0 itself.
		 */
		if (!(r = cix_export_meta_check(&m, err)) &&
		    !(r = cix_nar_dump(p.buf, tunnel_sink_fn, &t, err)) &&
		    !(r = cix_export_meta(tunnel_sink_fn, &t, &m, err)))
			r = tunnel_flush(&t);
		if (r < 0)
			c->broken = 1;
		else {
			conn_last(c);
			cix_wire_write_u64(&c->w, 1);
		}
	}
	cix_path_info_release(&info);
	strbuf_release(&t.buf);
	strbuf_release(&p);
	return r;
}

/* ImportPaths: an export stream through the tunnel; trusted clients only. */
static int op_import_paths(struct conn *c, struct cix_err *err)
{
	struct conn_tunnel t = { .c = c, .chunk = STRBUF_INIT };
	struct strvec paths = STRVEC_INIT;
	int r = conn_need_trust(c, "import unsigned paths", err);
	if (r) {
		c->broken = 1;   /* the stream that follows cannot be skipped */
		return r;
	}
	r = cix_store_import(c->s, conn_tunnel_read, &t, strvec_push_fn, &paths, err);
	if (r < 0 && t.err.code)
		*err = t.err;
	if (r < 0)
		c->broken = 1;
	if (!r) {
		conn_last(c);
		cix_wire_write_strings(&c->w, (const char *const *)paths.v, paths.nr);
	}
	strbuf_release(&t.chunk);
	strvec_clear(&paths);
	return r;
}

const struct op daemon_add_ops[] = {
	{ CIX_OP_ADD_TO_STORE, op_add_to_store },
	{ CIX_OP_ADD_TEXT_TO_STORE, op_add_text_to_store },
	{ CIX_OP_EXPORT_PATH, op_export_path },
	{ CIX_OP_IMPORT_PATHS, op_import_paths },
	{ CIX_OP_NAR_FROM_PATH, op_nar_from_path },
	{ 0, NULL },
};
