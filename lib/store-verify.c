/* store-verify.c - check that valid paths are present and unmodified */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "store.h"
#include "encoding.h"
#include "nar.h"
#include "store-path.h"
#include "strvec.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>

/* Is path's file (or directory) there? */
static int present(struct cix_store *s, const struct cix_store_path_parts *parts,
		   const char *path, struct cix_err *err)
{
	struct stat st;
	if (fstatat(s->store_fd, parts->base, &st, AT_SYMLINK_NOFOLLOW) == 0)
		return 0;
	return errno == ENOENT ? cix_error(err, -ENOENT, "path '%s' disappeared", path)
			       : cix_error_errno(err, -errno, "cannot stat '%s'", path);
}

int cix_store_verify_path(struct cix_store *s, const char *path, int check_contents,
			  struct cix_err *err)
{
	struct cix_store_path_parts parts;
	struct cix_path_info info;
	int r;

	if ((r = cix_store_path_parse(s->store_dir, path, &parts, err)) < 0)
		return r;
	if ((r = cix_db_query(s->db, path, &info, err)) < 0)
		return r;
	if ((r = present(s, &parts, path, err)) == 0 && check_contents) {
		struct cix_hash h;
		uint64_t size;
		if ((r = cix_nar_hash_path(path, CIX_HASH_SHA256, &h, &size, err)) == 0 &&
		    (memcmp(h.bytes, info.nar_hash.bytes, 32) || size != info.nar_size)) {
			struct strbuf want = STRBUF_INIT, got = STRBUF_INIT;
			cix_nixbase32_encode(&want, info.nar_hash.bytes, 32);
			cix_nixbase32_encode(&got, h.bytes, 32);
			r = cix_error(err, -CIX_EMISMATCH,
				      "path '%s' was modified! expected hash 'sha256:%s', got 'sha256:%s'",
				      path, want.buf, got.buf);
			strbuf_release(&want);
			strbuf_release(&got);
		}
	}
	cix_path_info_release(&info);
	return r;
}

static int has_other_referrer(const char *path, void *opaque)
{
	if (strcmp(path, (const char *)opaque))
		return -CIX_EEXIST; /* stop: one other referrer is enough */
	return 0;
}

/* A path that vanished is dropped from the database unless others need it. */
static int disappeared(struct cix_store *s, const char *path, cix_report_fn report,
		       void *opaque)
{
	struct cix_err err = { 0 };
	struct strbuf m = STRBUF_INIT;
	int r = cix_db_referrers(s->db, path, has_other_referrer, (void *)path, &err), bad = 1;
	if (r == -CIX_EEXIST)
		strbuf_addf(&m, "path '%s' disappeared, but it still has valid referrers!", path);
	else if (r < 0 || cix_db_invalidate(s->db, path, &err) < 0)
		strbuf_addstr(&m, err.msg);
	else {
		strbuf_addf(&m, "path '%s' disappeared, removing from database", path);
		bad = 0;
	}
	report(opaque, bad, m.buf);
	strbuf_release(&m);
	return bad;
}

/* A modified path, repaired by the caller's means: 1 when it was. */
static int repaired(const char *path, const struct cix_verify_repair *repair,
		    cix_report_fn report, void *opaque)
{
	struct cix_err err = { 0 };
	struct strbuf m = STRBUF_INIT;
	int r = repair->fn(repair->opaque, path, &err);
	if (r < 0)
		strbuf_addf(&m, "cannot repair '%s': %s", path, err.msg);
	else
		strbuf_addf(&m, "path '%s' repaired", path);
	report(opaque, r < 0, m.buf);
	strbuf_release(&m);
	return r == 0;
}

static int verify_paths(struct cix_store *s, const char *const *paths, size_t n,
			int check_contents, const struct cix_verify_repair *repair,
			int skip_invalid, cix_report_fn report, void *opaque)
{
	int problems = 0;
	for (size_t i = 0; i < n; i++) {
		struct cix_err err = { 0 };
		struct cix_store_path_parts parts;
		int r;
		/*
		 * Paths listed as valid need no query of their record unless
		 * their contents are checked: one per path made --verify of a
		 * large store several times slower than Nix's.
		 */
		if (skip_invalid && !check_contents) {
			if ((r = cix_store_path_parse(s->store_dir, paths[i], &parts, &err)) == 0)
				r = present(s, &parts, paths[i], &err);
		} else {
			r = cix_store_verify_path(s, paths[i], check_contents, &err);
		}
		if (skip_invalid && (r == -CIX_ENOTFOUND ||
				     (r == -ENOENT && cix_db_is_valid(s->db, paths[i], NULL) == 0))) {
			continue;   /* deleted (by the collector) since it was listed */
		} else if (r == -ENOENT) {
			problems += disappeared(s, paths[i], report, opaque);
		} else if (r < 0) {
			report(opaque, 1, err.msg);
			if (!(r == -CIX_EMISMATCH && repair && repaired(paths[i], repair, report, opaque)))
				problems++;
		}
	}
	return problems;
}

int cix_store_verify_paths(struct cix_store *s, const char *const *paths, size_t n,
			   int check_contents, const struct cix_verify_repair *repair,
			   cix_report_fn report, void *opaque)
{
	return verify_paths(s, paths, n, check_contents, repair, 0, report, opaque);
}

int cix_store_verify_all(struct cix_store *s, int check_contents,
			 const struct cix_verify_repair *repair,
			 cix_report_fn report, void *opaque, struct cix_err *err)
{
	struct strvec paths = STRVEC_INIT;
	int r = cix_db_all_valid(s->db, strvec_push_fn, &paths, err);
	if (r >= 0)
		r = verify_paths(s, (const char *const *)paths.v, paths.nr, check_contents, repair,
				 1, report, opaque);
	strvec_clear(&paths);
	return r;
}
