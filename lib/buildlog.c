/* buildlog.c - build logs: plain as the build runs, bzip2 once it ended */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "buildlog.h"
#include "env.h"
#include "bz2.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#define MAX_LOG_FILE (1U << 30)
#define MAX_LOG_READ (1ULL << 32)

/* The forms of a log, in the order readers look for them (Nix's: plain, then .bz2). */
static const char *const log_exts[] = { "", ".bz2", ".zst" };

struct cix_build_log {
	int fd, bz_fd;
	int error;              /* of the plain log */
	char *path, *bz_tmp;
	struct cix_bz2_out *z;
	pthread_mutex_t lock;   /* the sandbox's tee and cix itself both write */
};

const char *cix_log_dir(void)
{
	return cix_env(CIX_ENV_LOG_DIR);
}

void cix_build_log_file(const char *drv_path, const char *ext, struct strbuf *out)
{
	const char *slash = strrchr(drv_path, '/'), *base = slash ? slash + 1 : drv_path;
	strbuf_addf(out, "%s/drvs/%.2s/%s%s", cix_log_dir(), base,
		    strlen(base) > 2 ? base + 2 : "", ext);
}

int cix_build_log_dirs(const char *drv_path, struct cix_err *err)
{
	struct strbuf d = STRBUF_INIT;
	cix_build_log_file(drv_path, "", &d);
	*strrchr(d.buf, '/') = '\0';
	int r = cix_mkdirs(d.buf, err);
	strbuf_release(&d);
	return r;
}

int cix_build_log_path(const char *drv_path, struct strbuf *out)
{
	struct stat st;
	size_t len = out->len;
	for (size_t i = 0; i < ARRAY_SIZE(log_exts); i++) {
		cix_build_log_file(drv_path, log_exts[i], out);
		if (stat(out->buf, &st) == 0)
			return 0;
		strbuf_setlen(out, len);
	}
	return -ENOENT;
}

/* Remove the logs of an earlier build, so that readers find this one's. */
static void remove_old_logs(const char *drv_path)
{
	for (size_t i = 1; i < ARRAY_SIZE(log_exts); i++) {
		struct strbuf p = STRBUF_INIT;
		cix_build_log_file(drv_path, log_exts[i], &p);
		unlink(p.buf);
		strbuf_release(&p);
	}
}

/*
 * The .bz2 is made as the output comes, beside the plain log, so that the
 * build's end costs no more than its last block (a flood of output is
 * slowed, not paid for at the end).
 */
static int open_bz2(struct cix_build_log *log, struct cix_err *err)
{
	struct strbuf tmp = STRBUF_INIT;
	/* One build of a derivation at a time: a killed one's is reused. */
	strbuf_addf(&tmp, "%s.bz2.part", log->path);
	log->bz_fd = open(tmp.buf, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (log->bz_fd < 0) {
		int r = cix_error_errno(err, -errno, "cannot open build log '%s'", tmp.buf);
		strbuf_release(&tmp);
		return r;
	}
	log->bz_tmp = strbuf_detach(&tmp, NULL);
	log->z = cix_bz2_out_new(log->bz_fd);
	return 0;
}

int cix_build_log_open(const char *drv_path, struct cix_build_log **out,
		       struct cix_err *err)
{
	struct strbuf p = STRBUF_INIT;
	struct cix_build_log *log;
	int fd, r;

	if ((r = cix_build_log_dirs(drv_path, err)) < 0)
		return r;
	remove_old_logs(drv_path);
	cix_build_log_file(drv_path, "", &p);
	fd = open(p.buf, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0) {
		r = cix_error_errno(err, -errno, "cannot open build log '%s'", p.buf);
		strbuf_release(&p);
		return r;
	}
	log = xcalloc(1, sizeof(*log));
	log->fd = fd;
	log->path = strbuf_detach(&p, NULL);
	if ((r = open_bz2(log, err)) < 0) {
		close(fd);
		free(log->path);
		free(log);
		return r;
	}
	pthread_mutex_init(&log->lock, NULL);
	*out = log;
	return 0;
}

void cix_build_log_write(struct cix_build_log *log, const void *data, size_t len)
{
	if (!log || !len)
		return;
	pthread_mutex_lock(&log->lock);
	if (!log->error) {
		int r = cix_write_full(log->fd, data, len);
		if (r < 0)
			log->error = r;
	}
	cix_bz2_out_write(log->z, data, len);
	pthread_mutex_unlock(&log->lock);
}

/* End the .bz2, which replaces the plain log; one that failed is dropped. */
static int finish_bz2(struct cix_build_log *log)
{
	struct strbuf bz = STRBUF_INIT;
	int r = cix_bz2_out_finish(log->z);
	if (close(log->bz_fd) < 0 && !r)
		r = -errno;
	strbuf_addf(&bz, "%s.bz2", log->path);
	if (!r && rename(log->bz_tmp, bz.buf) < 0)
		r = -errno;
	if (r)
		unlink(log->bz_tmp);
	else
		unlink(log->path);
	strbuf_release(&bz);
	return r;
}

int cix_build_log_close(struct cix_build_log *log)
{
	int r;
	if (!log)
		return 0;
	if (close(log->fd) < 0 && !log->error)
		log->error = -errno;
	/* Either form whole will do: a .bz2 that failed leaves the plain log. */
	r = finish_bz2(log);
	if (r && !log->error)
		r = 0;
	pthread_mutex_destroy(&log->lock);
	free(log->path);
	free(log->bz_tmp);
	free(log);
	return r;
}

/* The logs of older versions of cix: zstd. */
static int zstd_decode(const struct strbuf *z, struct strbuf *out, struct cix_err *err)
{
	ZSTD_DCtx *d = ZSTD_createDCtx();
	ZSTD_inBuffer in = { z->buf, z->len, 0 };
	int r = 0;
	while (in.pos < in.size) {
		strbuf_grow(out, 65536);
		ZSTD_outBuffer o = { out->buf + out->len, out->alloc - out->len - 1, 0 };
		size_t ret = ZSTD_decompressStream(d, &o, &in);
		if (ZSTD_isError(ret)) {
			r = cix_error(err, -CIX_EFORMAT, "%s", ZSTD_getErrorName(ret));
			break;
		}
		strbuf_setlen(out, out->len + o.pos);
		if (out->len > MAX_LOG_READ) {
			r = cix_error(err, -CIX_ELIMIT, "too large");
			break;
		}
		if (!o.pos && !ret)
			break;
	}
	ZSTD_freeDCtx(d);
	return r;
}

/* Append the log in file (of form ext) to out: 0, -ENOENT, or an error. */
static int read_form(const char *file, const char *ext, struct strbuf *out, struct cix_err *err)
{
	struct strbuf data = STRBUF_INIT;
	int r = strbuf_read_file(&data, file, MAX_LOG_FILE);
	if (r == -ENOENT)
		;
	else if (r < 0)
		r = cix_error_errno(err, r, "cannot read '%s'", file);
	else if (!*ext)
		strbuf_add(out, data.buf, data.len);
	else if (!strcmp(ext, ".bz2"))
		r = cix_bz2_decompress(data.buf, data.len, out, MAX_LOG_READ, err);
	else
		r = zstd_decode(&data, out, err);
	strbuf_release(&data);
	return r;
}

int cix_build_log_read(const char *drv_path, struct strbuf *out, struct cix_err *err)
{
	for (size_t i = 0; i < ARRAY_SIZE(log_exts); i++) {
		struct strbuf p = STRBUF_INIT;
		size_t len = out->len;
		struct cix_err e = { 0 };
		cix_build_log_file(drv_path, log_exts[i], &p);
		int r = read_form(p.buf, log_exts[i], out, &e);
		if (r < 0 && r != -ENOENT) {
			strbuf_setlen(out, len);
			r = cix_error(err, r, "build log of '%s' is corrupt or unreadable: %s",
				      drv_path, e.msg);
		}
		strbuf_release(&p);
		if (r != -ENOENT)
			return r;
	}
	return cix_error(err, -CIX_ENOTFOUND, "build log of '%s' is not available", drv_path);
}
