/* archive-stream.c - cix archive --export and --import: signed export streams */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "cix.h"
#include "env.h"
#include "archive-ops.h"
#include "publish.h"
#include "export.h"
#include "narinfo.h"
#include "quote.h"
#include "sign.h"
#include "store-ops.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/*
 * Each entry of the stream ends with a signature marker (export.h): 0,
 * or 1 and a string, which Nix 2.8 reads and ignores. Ours holds the
 * detached signature "KEYNAME:BASE64" of the path's Nix fingerprint
 * "1;PATH;sha256:NARHASH;NARSIZE;REFS", as a narinfo's Sig line does. The
 * deriver is not in the fingerprint: it is carried along unsigned, as in
 * a narinfo.
 */

#define ACL_MAX_SIZE (1 << 20)

/* ---- --export ---- */

static int load_key(const char *file, struct cix_secret_key *k)
{
	struct cix_err err = { 0 };
	int r = cix_secret_key_load(file, k, &err);
	if (r == -ENOENT)
		return error("no signing key '%s' (make one with cix archive --generate-key)", file);
	return r < 0 ? error("%s", err.msg) : 0;
}

static int out_sink(void *opaque, const void *data, size_t len)
{
	(void)opaque;
	return cix_write_full(1, data, len);
}

/* The NAR on its way out, hashed to check it against the database. */
struct nar_out {
	struct cix_hash_ctx ctx;
	uint64_t size;
};

static int nar_sink(void *opaque, const void *data, size_t len)
{
	struct nar_out *n = opaque;
	cix_hash_update(&n->ctx, data, len);
	n->size += len;
	return out_sink(NULL, data, len);
}

static int buf_sink(void *opaque, const void *data, size_t len)
{
	strbuf_add(opaque, data, len);
	return 0;
}

static void add_u64(struct strbuf *sb, uint64_t v)
{
	unsigned char b[8];
	cix_put_u64le(b, v);
	strbuf_add(sb, b, 8);
}

/* One entry: marker, NAR, metadata, then 1 and the signature instead of 0. */
static int write_entry(struct cix_store *s, const struct cix_path_info *info, const char *sig,
		       struct cix_err *err)
{
	static const unsigned char zero[8];
	struct cix_export_meta m = { info->path, (const char *const *)info->refs, info->nr_refs,
				     info->deriver };
	struct nar_out n = { .size = 0 };
	struct strbuf meta = STRBUF_INIT;
	struct cix_hash h;
	size_t len = strlen(sig);
	int r;

	if ((r = cix_export_begin(out_sink, NULL, err)) < 0)
		return r;
	cix_hash_init(&n.ctx, CIX_HASH_SHA256);
	if ((r = cix_store_dump(s, info->path, nar_sink, &n, err)) < 0) {
		cix_hash_abort(&n.ctx);
		return r;
	}
	cix_hash_final(&n.ctx, &h);
	if (h.len != info->nar_hash.len || memcmp(h.bytes, info->nar_hash.bytes, h.len) ||
	    n.size != info->nar_size)
		return cix_error(err, -CIX_EMISMATCH,
				 "the contents of '%s' do not match its registered NAR hash and size "
				 "(see cix store --verify --check-contents)", info->path);
	if ((r = cix_export_meta(buf_sink, &meta, &m, err)) < 0)
		goto out;
	if (meta.len < 8 || memcmp(meta.buf + meta.len - 8, zero, 8)) {
		r = cix_error(err, -CIX_EINVAL, "unexpected end of an export entry");
		goto out;
	}
	strbuf_setlen(&meta, meta.len - 8);
	add_u64(&meta, 1);
	add_u64(&meta, len);
	strbuf_add(&meta, sig, len);
	strbuf_add(&meta, zero, (8 - len % 8) % 8);
	r = out_sink(NULL, meta.buf, meta.len);
out:
	strbuf_release(&meta);
	return r;
}

/* The paths to export, dependencies first, into order (one per line). */
static int export_order(struct cix_store *s, int recursive, char **paths, int n,
			struct strbuf *order, struct cix_err *err)
{
	struct strvec ps = { 0 };
	int r = 0;

	for (int i = 0; !r && i < n; i++) {
		if ((r = cix_store_check_path(s, paths[i], err)) < 0)
			break;
		if ((r = cix_store_is_valid(s, paths[i], err)) == 0)
			r = cix_error(err, -CIX_ENOTFOUND, "path '%s' is not valid", paths[i]);
		if (r > 0)
			r = set_add(paths[i], &ps);
	}
	if (!r && recursive) {
		struct cix_db_graph g;
		if ((r = cix_store_graph(s, (const char *const *)ps.v, ps.nr,
					 CIX_DB_EDGES_REQUISITES, &g, err)) == 0) {
			for (size_t i = 0; i < g.nr; i++)
				set_add(g.paths[i], &ps);
			cix_db_graph_release(&g);
		}
	}
	if (!r)
		r = topo_print(s, &ps, order, err);
	strvec_clear(&ps);
	return r;
}

int archive_export(const char *key_file, int recursive, char **paths, int n)
{
	struct cix_secret_key k;
	struct cix_store *s = NULL;
	struct cix_err err = { 0 };
	struct strbuf order = STRBUF_INIT, fp = STRBUF_INIT;
	struct cix_path_info *infos = NULL;
	struct strvec sigs = { 0 };
	size_t nr = 0, alloc = 0;
	int r;

	if ((r = load_key(key_file, &k)))
		return r;
	if ((r = cix_store_open_client(&s, &err)) < 0)
		goto out;
	if ((r = export_order(s, recursive, paths, n, &order, &err)) < 0)
		goto out;
	/* Every signature before the first byte: a failure writes nothing. */
	for (char *line = order.buf, *nl; *line; line = nl + 1) {
		struct cix_path_info *info;
		struct strbuf sig = STRBUF_INIT;
		nl = strchr(line, '\n');
		*nl = '\0';
		ALLOC_GROW(infos, nr + 1, alloc);
		info = memset(&infos[nr], 0, sizeof(*info));
		if ((r = cix_store_query(s, line, info, &err)) < 0)
			goto out;
		nr++;
		strbuf_reset(&fp);
		if ((r = cix_path_fingerprint(s->store_dir, info->path, &info->nar_hash, info->nar_size,
				     (const char *const *)info->refs, info->nr_refs, &fp, &err)) < 0 ||
		    (r = cix_sign_detached(&k, fp.buf, fp.len, &sig, &err)) < 0) {
			strbuf_release(&sig);
			goto out;
		}
		strvec_push(&sigs, sig.buf);
		strbuf_release(&sig);
	}
	for (size_t i = 0; !r && i < nr; i++)
		r = write_entry(s, &infos[i], sigs.v[i], &err);
	if (!r)
		r = cix_export_end(out_sink, NULL, &err);
out:
	explicit_bzero(&k, sizeof(k));
	for (size_t i = 0; i < nr; i++)
		cix_path_info_release(&infos[i]);
	free(infos);
	strvec_clear(&sigs);
	strbuf_release(&order);
	strbuf_release(&fp);
	if (s)
		cix_store_close(s);
	if (r < 0 && !err.msg[0])
		cix_error_errno(&err, r, "cannot write to standard output");
	return r < 0 ? error_err(&err) : 0;
}

/* ---- --to-cache ---- */

int archive_to_cache(const char *key_file, const char *dir, enum cix_comp comp, int level,
		     int recursive, char **paths, int n)
{
	struct cix_publish_opts o = { .comp = comp, .level = level, .cache_dir = dir,
				      .signing = 1 };
	struct cix_store *s = NULL;
	struct cix_err err = { 0 };
	struct strbuf order = STRBUF_INIT;
	int r;

	if ((r = load_key(key_file, &o.key)))
		return r;
	if ((r = cix_store_open_client(&s, &err)) == 0)
		r = export_order(s, recursive, paths, n, &order, &err);
	for (char *line = order.buf, *nl; !r && *line; line = nl + 1) {
		nl = strchr(line, '\n');
		*nl = '\0';
		if ((r = cix_publish_to_cache(s, &o, line, NULL, &err)) == 0)
			puts(line);
	}
	explicit_bzero(&o.key, sizeof(o.key));
	strbuf_release(&order);
	if (s)
		cix_store_close(s);
	return r < 0 ? error_err(&err) : 0;
}

/* ---- --import ---- */

/*
 * Two passes. The first reads standard input once, copying every byte the
 * parser consumes into a private unlinked temporary file, and checks each
 * entry (its NAR hashed as received) and its signature. Only when the
 * whole stream has passed is the copy imported, by what cix store
 * --import does (all or nothing, locally or through the daemon): nothing
 * of a stream with one bad entry is registered.
 */
struct tee {
	struct cix_buf_source *in;
	int fd;
	int werr;   /* errno of a failed write to the copy */
};

static ssize_t tee_read(void *opaque, void *buf, size_t len)
{
	struct tee *t = opaque;
	ssize_t n = cix_buf_source_read(t->in, buf, len);
	int w = n > 0 ? cix_write_full(t->fd, buf, (size_t)n) : 0;
	if (w < 0) {
		t->werr = -w;
		return w;
	}
	return n;
}

struct verify {
	const struct cix_acl *acl;
	const char *store_dir;
};

/* Is there a key named like the signature (the bytes before its colon)? */
static int key_known(const struct cix_acl *acl, const char *sig, size_t len)
{
	const char *colon = memchr(sig, ':', len);
	size_t n = colon ? (size_t)(colon - sig) : len;
	for (size_t i = 0; i < acl->nr; i++)
		if (strlen(acl->keys[i].name) == n && !memcmp(acl->keys[i].name, sig, n))
			return 1;
	return 0;
}

static int verify_entry(void *opaque, const char *target, const struct cix_import_info *in,
			struct cix_err *err)
{
	struct verify *v = opaque;
	struct strbuf fp = STRBUF_INIT;
	const char *colon;
	char q[96];
	int r;
	(void)target;

	if (!in->sig)
		return cix_error(err, -EPERM, "'%s' (export entry %zu) is not signed",
				 in->meta.path, in->index);
	colon = memchr(in->sig, ':', in->sig_len);
	if (!colon || memchr(in->sig, '\0', in->sig_len))
		return cix_error(err, -CIX_EFORMAT, "'%s' (export entry %zu): malformed signature '%s'",
				 in->meta.path, in->index, cix_quote(q, sizeof(q), in->sig, in->sig_len));
	if ((r = cix_path_fingerprint(v->store_dir, in->meta.path, &in->nar_hash, in->nar_size,
			     in->meta.refs, in->meta.nr_refs, &fp, err)) < 0)
		goto out;
	if (cix_verify_detached(in->sig, fp.buf, fp.len, v->acl->keys, v->acl->nr) == 1)
		goto out;
	cix_quote(q, sizeof(q), in->sig, (size_t)(colon - in->sig));
	if (!key_known(v->acl, in->sig, in->sig_len))
		r = cix_error(err, -EPERM, "'%s' (export entry %zu) is signed by '%s', "
			      "a key this machine does not trust", in->meta.path, in->index, q);
	else
		r = cix_error(err, -CIX_EMISMATCH, "'%s' (export entry %zu): the signature by '%s' "
			      "does not match its contents", in->meta.path, in->index, q);
out:
	strbuf_release(&fp);
	return r;
}

static int load_acl(const char *file, struct cix_acl *acl)
{
	struct strbuf text = STRBUF_INIT;
	struct cix_err err = { 0 };
	int r = strbuf_read_file(&text, file, ACL_MAX_SIZE);

	if (r < 0 && r != -ENOENT)
		r = r == -CIX_ELIMIT ? error("'%s' is larger than %d bytes", file, ACL_MAX_SIZE)
				     : error("cannot read '%s': %s", file, strerror(-r));
	else if (cix_acl_parse(text.buf, text.len, acl, &err) < 0)
		r = error("%s: %s", file, err.msg);
	else if (!acl->nr)
		r = error("no trusted keys in '%s' (add some with cix archive --authorize)", file);
	else
		r = 0;
	strbuf_release(&text);
	return r;
}

/* A private file: unlinked from the start where the file system allows. */
static int temp_file(struct cix_err *err)
{
	const char *dir = cix_env(CIX_ENV_TMPDIR);
	struct strbuf t = STRBUF_INIT;
	int fd;

	fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (fd < 0) {
		strbuf_addf(&t, "%s/cix-archive-XXXXXX", dir);
		fd = mkostemp(t.buf, O_CLOEXEC);
		if (fd >= 0)
			unlink(t.buf);
	}
	if (fd < 0)
		cix_error_errno(err, -errno, "cannot create a temporary file in '%s'", dir);
	strbuf_release(&t);
	return fd < 0 ? -1 : fd;
}

int archive_import(const char *acl_file)
{
	struct cix_acl acl = CIX_ACL_INIT;
	struct cix_store *s = NULL;
	struct cix_err err = { 0 };
	struct tee t = { NULL, -1, 0 };
	struct verify v = { &acl, NULL };
	struct store_flags f = { 0 };
	int r;

	if ((r = load_acl(acl_file, &acl)))
		goto out;
	if ((r = cix_store_open_client(&s, &err)) < 0 || (t.fd = temp_file(&err)) < 0) {
		r = error_err(&err);
		goto out;
	}
	t.in = xcalloc(1, sizeof(*t.in));
	t.in->fd = 0;
	v.store_dir = s->store_dir;
	if (cix_import_check(tee_read, &t, s->store_dir, verify_entry, &v, &err) < 0) {
		r = t.werr ? error("cannot copy the stream to a temporary file: %s",
				   strerror(t.werr))
			   : error_err(&err);
		goto out;
	}
	/* The checked copy becomes standard input of cix store --import. */
	if (lseek(t.fd, 0, SEEK_SET) < 0 || dup2(t.fd, 0) < 0) {
		r = error("cannot read back the checked stream: %s", strerror(errno));
		goto out;
	}
	r = op_import(s, &f, NULL, 0);
out:
	if (t.fd >= 0)
		close(t.fd);
	free(t.in);
	if (s)
		cix_store_close(s);
	cix_acl_release(&acl);
	return r;
}
