/* store-add-source.c - add content that arrives as a stream (the daemon's adds) */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "gc.h"
#include "store.h"
#include "store-int.h"
#include "store-path.h"
#include "encoding.h"
#include "nar.h"
#include "remove.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <time.h>

/* Write src's bytes to a new 0444 file at path, hashing them with algo. */
/* A small file's bytes are kept, to hash its NAR without reading it back. */
#define KEEP_MAX 65536

static int write_flat(const char *path, cix_source_fn src, void *opaque,
		      enum cix_hash_algo algo, struct cix_hash *h, struct strbuf *keep,
		      uint64_t *total, struct cix_err *err)
{
	static const struct timespec times[2] = { { 1, 0 }, { 1, 0 } };
	struct cix_hash_ctx ctx;
	char *buf = xmalloc(65536);
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0444), r = 0;

	if (fd < 0) {
		free(buf);
		return cix_error_errno(err, -errno, "cannot create '%s'", path);
	}
	cix_hash_init(&ctx, algo);
	for (;;) {
		ssize_t n = src(opaque, buf, 65536);
		if (n < 0) {
			r = err && err->code ? err->code : (int)n;
			if (!err || !err->msg[0])
				cix_error_errno(err, (int)n, "cannot read the content of '%s'", path);
			break;
		}
		if (n == 0)
			break;
		cix_hash_update(&ctx, buf, (size_t)n);
		*total += (uint64_t)n;
		if (*total <= KEEP_MAX)
			strbuf_add(keep, buf, (size_t)n);
		if ((r = cix_write_full(fd, buf, (size_t)n)) < 0) {
			cix_error_errno(err, r, "cannot write '%s'", path);
			break;
		}
	}
	if (!r && (fchmod(fd, 0444) < 0 || futimens(fd, times) < 0))
		r = cix_error_errno(err, -errno, "cannot set metadata of '%s'", path);
	if (r < 0)
		cix_hash_abort(&ctx);
	else
		cix_hash_final(&ctx, h);
	close(fd);
	free(buf);
	return r;
}

/* The NAR of a regular, non-executable file holding data: its sha256 and size. */
static void nar_hash_file(const char *data, size_t len, struct cix_hash *h, uint64_t *size)
{
	static const char *const head[] = { "nix-archive-1", "(", "type", "regular", "contents" };
	static const unsigned char zero[8];
	struct cix_hash_ctx ctx;
	unsigned char n[8];
	uint64_t total = 0;
	cix_hash_init(&ctx, CIX_HASH_SHA256);
	for (size_t i = 0; i <= ARRAY_SIZE(head); i++) {
		const char *s = i < ARRAY_SIZE(head) ? head[i] : NULL;
		size_t l = s ? strlen(s) : len;
		cix_put_u64le(n, l);
		cix_hash_update(&ctx, n, 8);
		cix_hash_update(&ctx, s ? s : data, l);
		cix_hash_update(&ctx, zero, (8 - l % 8) % 8);
		total += 8 + l + (8 - l % 8) % 8;
	}
	cix_put_u64le(n, 1);
	cix_hash_update(&ctx, n, 8);
	cix_hash_update(&ctx, ")", 1);
	cix_hash_update(&ctx, zero, 7);
	total += 16;
	cix_hash_final(&ctx, h);
	*size = total;
}

int cix_store_add_source(struct cix_store *s, const char *name, enum cix_add_method method,
			 enum cix_hash_algo algo, const char *const *refs, size_t nr_refs,
			 cix_source_fn src, void *opaque, struct strbuf *out,
			 struct cix_path_info *registered, struct cix_err *err)
{
	struct cix_path_info info = { 0 };
	struct strbuf tmp = STRBUF_INIT, t = STRBUF_INIT, path = STRBUF_INIT, ca = STRBUF_INIT;
	struct cix_hash h;
	int r, moved = 0;

	if ((r = cix_store_name_check(name, strlen(name), err)) < 0)
		return r;
	if (method == CIX_ADD_TEXT && algo != CIX_HASH_SHA256)
		return cix_error(err, -CIX_EINVAL, "text is hashed with sha256 only");
	if (method != CIX_ADD_TEXT && nr_refs)
		return cix_error(err, -CIX_EINVAL, "only text may have references here");
	if ((r = cix_store_need_tmp(s, err)) < 0)
		return r;
	cix_store_tmp_name(&tmp);
	strbuf_addf(&t, "%s/%s/%s", s->store_dir, TMP_DIR, tmp.buf);
	if (method == CIX_ADD_RECURSIVE) {
		r = cix_nar_restore_flags(src, opaque, t.buf, CIX_RESTORE_CANONICAL,
					  &info.nar_hash, &info.nar_size, err);
		if (!r)
			r = cix_source_expect_end(src, opaque, err);
		if (!r && algo != CIX_HASH_SHA256)
			r = cix_nar_hash_path(t.buf, algo, &h, NULL, err);
		else
			h = info.nar_hash;
	} else {
		struct strbuf keep = STRBUF_INIT;
		uint64_t total = 0;
		r = write_flat(t.buf, src, opaque, algo, &h, &keep, &total, err);
		if (!r && total <= KEEP_MAX)
			nar_hash_file(keep.buf, keep.len, &info.nar_hash, &info.nar_size);
		else if (!r)
			r = cix_nar_hash_path(t.buf, CIX_HASH_SHA256, &info.nar_hash,
					      &info.nar_size, err);
		strbuf_release(&keep);
	}
	if (r < 0)
		goto out;

	if (method == CIX_ADD_TEXT) {
		r = cix_store_path_make_text(&path, s->store_dir, name, &h, refs, nr_refs, err);
		strbuf_addstr(&ca, "text:sha256:");
	} else {
		r = cix_store_path_make_fixed(&path, s->store_dir, name,
					      method == CIX_ADD_RECURSIVE, &h, err);
		strbuf_addf(&ca, "fixed:%s%s:", method == CIX_ADD_RECURSIVE ? "r:" : "",
			    cix_hash_algo_name(algo));
	}
	if (r < 0)
		goto out;
	cix_nixbase32_encode(&ca, h.bytes, h.len);
	info.path = path.buf;
	info.ca = ca.buf;
	if (nr_refs) {
		/* Sorted and unique, as the database keeps them. */
		info.refs = xcalloc(nr_refs + 1, sizeof(*info.refs));
		for (size_t i = 0; i < nr_refs; i++) {
			size_t k = 0;
			while (k < info.nr_refs && strcmp(info.refs[k], refs[i]) < 0)
				k++;
			if (k < info.nr_refs && !strcmp(info.refs[k], refs[i]))
				continue;
			memmove(info.refs + k + 1, info.refs + k,
				(info.nr_refs - k) * sizeof(*info.refs));
			info.refs[k] = (char *)refs[i];
			info.nr_refs++;
		}
		/* (registering checks that they are valid, in its transaction) */
	}
	if (!r)
		r = cix_store_admit_drv(s, &info, t.buf, NULL, 0, err);
	/* (cix_store_install leaves a path that is valid already as it is) */
	info.reg_time = (int64_t)time(NULL);
	if (!r && (r = cix_store_install(s, tmp.buf, &info, err)) > 0)
		moved = 1;
	if (r > 0 && registered) {
		/* what was registered, for a reply that needs no query */
		registered->path = xstrdup(info.path);
		registered->nar_hash = info.nar_hash;
		registered->nar_size = info.nar_size;
		registered->reg_time = info.reg_time;
		registered->ca = xstrdup(info.ca);
		registered->refs = xcalloc(info.nr_refs + 1, sizeof(char *));
		for (size_t i = 0; i < info.nr_refs; i++)
			registered->refs[i] = xstrdup(info.refs[i]);
		registered->nr_refs = info.nr_refs;
	}
	if (r >= 0) {
		r = 0;
		strbuf_addstr(out, path.buf);
	}
	/* cix_store_admit_drv filled outputs; the rest is borrowed. */
	cix_store_admit_drv_release(&info);
	free(info.refs);
out:
	if (!moved)
		cix_remove_tree_at(AT_FDCWD, t.buf, NULL);
	strbuf_release(&tmp);
	strbuf_release(&t);
	strbuf_release(&path);
	strbuf_release(&ca);
	return r;
}

/* Does the content at file (a canonical tree) give info's path and ca? */
/*
 * A recursive sha256 address is a source path, whose type names its
 * references (what `nix profile` adds): a reference to itself is "self".
 */
static int source_path(struct cix_store *s, const struct cix_path_info *info, const char *name,
		       const struct cix_hash *nar_sha256, struct strbuf *out, struct cix_err *err)
{
	const char **others = xcalloc(info->nr_refs + 1, sizeof(*others));
	size_t n = 0;
	int self = 0, r;
	for (size_t i = 0; i < info->nr_refs; i++) {
		if (!strcmp(info->refs[i], info->path))
			self = 1;
		else
			others[n++] = info->refs[i];
	}
	r = cix_store_path_make_source(out, s->store_dir, name, nar_sha256, others, n, self, err);
	free(others);
	return r;
}

static int check_ca(struct cix_store *s, const struct cix_path_info *info, const char *file,
		    struct cix_err *err)
{
	const char *ca = info->ca, *name, *colon;
	struct cix_store_path_parts parts;
	struct strbuf algo_name = STRBUF_INIT, path = STRBUF_INIT;
	enum cix_hash_algo algo;
	struct cix_hash want, got;
	int recursive = 0, text = 0, r;

	if ((r = cix_store_path_parse(s->store_dir, info->path, &parts, err)) < 0)
		return r;
	name = parts.name;
	if (!strncmp(ca, "text:", 5)) {
		text = 1;
		ca += 5;
	} else if (!strncmp(ca, "fixed:", 6)) {
		ca += 6;
		if (!strncmp(ca, "r:", 2)) {
			recursive = 1;
			ca += 2;
		}
	} else {
		return cix_error(err, -CIX_EFORMAT, "unknown content address '%s'", info->ca);
	}
	if (!(colon = strchr(ca, ':')))
		return cix_error(err, -CIX_EFORMAT, "bad content address '%s'", info->ca);
	strbuf_add(&algo_name, ca, (size_t)(colon - ca));
	if (cix_hash_algo_parse(algo_name.buf, &algo) < 0 || (text && algo != CIX_HASH_SHA256)) {
		r = cix_error(err, -CIX_EFORMAT, "bad content address '%s'", info->ca);
		goto out;
	}
	want.algo = algo;
	want.len = cix_hash_algo_size(algo);
	if (cix_nixbase32_decode(colon + 1, strlen(colon + 1), want.bytes, want.len) < 0) {
		r = cix_error(err, -CIX_EFORMAT, "bad content address '%s'", info->ca);
		goto out;
	}
	r = recursive ? cix_nar_hash_path(file, algo, &got, NULL, err)
		      : cix_hash_file(algo, file, &got, err);
	if (r < 0)
		goto out;
	if (memcmp(got.bytes, want.bytes, want.len)) {
		r = cix_error(err, -CIX_EMISMATCH, "content of '%s' does not match its content address",
			      info->path);
		goto out;
	}
	if (text)
		r = cix_store_path_make_text(&path, s->store_dir, name, &want,
					     (const char *const *)info->refs, info->nr_refs, err);
	else if (recursive && algo == CIX_HASH_SHA256)
		r = source_path(s, info, name, &want, &path, err);
	else if (info->nr_refs)
		r = cix_error(err, -CIX_EMISMATCH, "a fixed-output path '%s' has references", info->path);
	else
		r = cix_store_path_make_fixed(&path, s->store_dir, name, recursive, &want, err);
	if (!r && strcmp(path.buf, info->path))
		r = cix_error(err, -CIX_EMISMATCH, "path '%s' is not the one its content address gives",
			      info->path);
out:
	strbuf_release(&algo_name);
	strbuf_release(&path);
	return r;
}

int cix_store_add_nar_prepare(struct cix_store *s, const struct cix_path_info *info,
			      cix_source_fn src, void *opaque, struct strbuf *tmp,
			      struct cix_err *err)
{
	struct strbuf t = STRBUF_INIT;
	struct cix_hash h;
	uint64_t size;
	int r;

	if ((r = cix_store_check_path(s, info->path, err)) < 0)
		return r;
	if (info->deriver && *info->deriver && (r = cix_store_check_path(s, info->deriver, err)) < 0)
		return r;
	if ((r = cix_store_need_tmp(s, err)) < 0)
		return r;
	cix_store_tmp_name(tmp);
	strbuf_addf(&t, "%s/%s/%s", s->store_dir, TMP_DIR, tmp->buf);
	if ((r = cix_nar_restore_flags(src, opaque, t.buf,
				       CIX_RESTORE_CANONICAL | CIX_RESTORE_WRITEBACK, &h, &size,
				       err)) == 0 &&
	    (memcmp(h.bytes, info->nar_hash.bytes, 32) || size != info->nar_size))
		r = cix_error(err, -CIX_EMISMATCH, "hash or size mismatch importing path '%s'",
			      info->path);
	if (r < 0) {
		cix_remove_tree_at(AT_FDCWD, t.buf, NULL);
		strbuf_setlen(tmp, 0);
	}
	strbuf_release(&t);
	return r;
}

int cix_store_add_nar_commit(struct cix_store *s, struct cix_path_info *info, int need_ca,
			     const char *tmp, struct cix_err *err)
{
	struct strbuf t = STRBUF_INIT;
	int r = 0;

	strbuf_addf(&t, "%s/%s/%s", s->store_dir, TMP_DIR, tmp);
	if (need_ca && (!info->ca || !*info->ca)) {
		r = cix_error(err, -EPERM, "cannot add path '%s': it is not content-addressed "
			      "and carries no trusted signature", info->path);
		goto out;
	}
	if (info->ca && *info->ca && (r = cix_store_check_path(s, info->path, err)) == 0)
		r = check_ca(s, info, t.buf, err);
	for (size_t i = 0; !r && i < info->nr_refs; i++) {
		if (!strcmp(info->refs[i], info->path))
			continue;
		if ((r = cix_store_check_path(s, info->refs[i], err)) == 0 &&
		    (r = cix_store_add_temp_root(s, info->refs[i], err)) == 0 &&
		    (r = cix_db_is_valid(s->db, info->refs[i], err)) == 0)
			r = cix_error(err, -CIX_ENOTFOUND, "reference '%s' of '%s' is not valid",
				      info->refs[i], info->path);
		if (r > 0)
			r = 0;
	}
	if (!r)
		r = cix_store_admit_drv(s, info, t.buf, NULL, 0, err);
	if (!r && (r = cix_store_add_temp_root(s, info->path, err)) == 0 &&
	    (r = cix_db_is_valid(s->db, info->path, err)) == 0)
		r = cix_store_install(s, tmp, info, err);
	if (r > 0)
		r = 0;
out:
	cix_remove_tree_at(AT_FDCWD, t.buf, NULL);
	strbuf_release(&t);
	return r;
}

void cix_store_add_nar_abort(struct cix_store *s, const char *tmp)
{
	struct strbuf t = STRBUF_INIT;
	strbuf_addf(&t, "%s/%s/%s", s->store_dir, TMP_DIR, tmp);
	cix_remove_tree_at(AT_FDCWD, t.buf, NULL);
	strbuf_release(&t);
}

int cix_store_add_nar(struct cix_store *s, struct cix_path_info *info, int need_ca,
		      cix_source_fn src, void *opaque, struct cix_err *err)
{
	struct strbuf tmp = STRBUF_INIT;
	int r = cix_store_add_nar_prepare(s, info, src, opaque, &tmp, err);
	if (r == 0 && (r = cix_source_expect_end(src, opaque, err)) < 0)
		cix_store_add_nar_abort(s, tmp.buf);
	else if (r == 0)
		r = cix_store_add_nar_commit(s, info, need_ca, tmp.buf, err);
	strbuf_release(&tmp);
	return r;
}
