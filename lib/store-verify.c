/* store-verify.c - check that valid paths are present and unmodified */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "store.h"
#include "encoding.h"
#include "nar.h"
#include "store-path.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>

int cix_store_verify_path(struct cix_store *s, const char *path, int check_contents,
			  struct cix_err *err)
{
	struct cix_store_path_parts parts;
	struct cix_path_info info;
	struct stat st;
	int r;

	if ((r = cix_store_path_parse(s->store_dir, path, &parts, err)) < 0)
		return r;
	if ((r = cix_db_query(s->db, path, &info, err)) < 0)
		return r;
	if (fstatat(s->store_fd, parts.base, &st, AT_SYMLINK_NOFOLLOW) < 0) {
		r = errno == ENOENT ? cix_error(err, -ENOENT, "path '%s' disappeared", path)
				    : cix_error_errno(err, -errno, "cannot stat '%s'", path);
	} else if (check_contents) {
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
