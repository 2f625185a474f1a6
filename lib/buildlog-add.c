/* buildlog-add.c - build logs that come from another store (AddBuildLog) */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "buildlog.h"
#include "bz2.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* src, compressed, into fd: 0 or an error. */
static int compress_source(int fd, cix_source_fn src, void *opaque, uint64_t max,
			   struct cix_err *err)
{
	struct cix_bz2_out *z = cix_bz2_out_new(fd);
	char *buf = xmalloc(65536);
	uint64_t total = 0;
	ssize_t n;
	int r = 0;
	while ((n = src(opaque, buf, 65536)) > 0) {
		total += (uint64_t)n;
		if (max && total > max) {
			r = cix_error(err, -CIX_ELIMIT, "the log is larger than %llu bytes",
				      (unsigned long long)max);
			break;
		}
		cix_bz2_out_write(z, buf, (size_t)n);
	}
	if (!r && n < 0)
		r = cix_error(err, (int)n, "cannot read the log");
	int r2 = cix_bz2_out_finish(z);
	if (!r && r2)
		r = cix_error_errno(err, r2, "cannot write the log");
	free(buf);
	return r;
}

int cix_build_log_add(const char *drv_path, cix_source_fn src, void *opaque, uint64_t max,
		      struct cix_err *err)
{
	struct strbuf bz = STRBUF_INIT, tmp = STRBUF_INIT;
	int fd, r;

	if (cix_build_log_path(drv_path, &bz) == 0) {
		strbuf_release(&bz);
		return 1;
	}
	if ((r = cix_build_log_dirs(drv_path, err)) < 0)
		goto out;
	cix_build_log_file(drv_path, ".bz2", &bz);
	strbuf_addf(&tmp, "%s.tmp-%ld", bz.buf, (long)getpid());
	fd = open(tmp.buf, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0) {
		r = cix_error_errno(err, -errno, "cannot create '%s'", tmp.buf);
		goto out;
	}
	r = compress_source(fd, src, opaque, max, err);
	if (close(fd) < 0 && !r)
		r = cix_error_errno(err, -errno, "cannot write '%s'", tmp.buf);
	if (!r && rename(tmp.buf, bz.buf) < 0)
		r = cix_error_errno(err, -errno, "cannot rename '%s'", tmp.buf);
	if (r)
		unlink(tmp.buf);
out:
	strbuf_release(&bz);
	strbuf_release(&tmp);
	return r;
}
