/* buildlog.c - build logs, kept zstd-compressed */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "buildlog.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#define MAX_LOG_READ (1ULL << 32)

struct cix_build_log {
	int fd;
	int error;
	ZSTD_CCtx *z;
	pthread_mutex_t lock;   /* the sandbox's tee and cix itself both write */
	unsigned char out[65536];
};

const char *cix_log_dir(void)
{
	const char *d = getenv("CIX_LOG_DIR");
	return d && *d ? d : "/var/log/cix";
}

static void log_path(struct strbuf *p, const char *drv_path, int mkdirs)
{
	const char *slash = strrchr(drv_path, '/'), *base = slash ? slash + 1 : drv_path;
	strbuf_addf(p, "%s/drvs/%.2s", cix_log_dir(), base);
	if (mkdirs)
		for (char *c = p->buf + 1;; c++) {
			if (*c && *c != '/')
				continue;
			char saved = *c;
			*c = '\0';
			mkdir(p->buf, 0755);
			if (!(*c = saved))
				break;
		}
	strbuf_addf(p, "/%s.zst", strlen(base) > 2 ? base + 2 : "");
}

int cix_build_log_path(const char *drv_path, struct strbuf *out)
{
	struct stat st;
	log_path(out, drv_path, 0);
	return stat(out->buf, &st) == 0 ? 0 : -ENOENT;
}

int cix_build_log_open(const char *drv_path, struct cix_build_log **out,
		       struct cix_err *err)
{
	struct strbuf p = STRBUF_INIT;
	struct cix_build_log *log;
	int fd;

	log_path(&p, drv_path, 1);
	fd = open(p.buf, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0) {
		int r = cix_error_errno(err, -errno, "cannot open build log '%s'", p.buf);
		strbuf_release(&p);
		return r;
	}
	strbuf_release(&p);
	log = xcalloc(1, sizeof(*log));
	log->fd = fd;
	log->z = ZSTD_createCCtx();
	if (!log->z)
		BUG("cannot allocate a zstd context");
	pthread_mutex_init(&log->lock, NULL);
	*out = log;
	return 0;
}

/* Compress with the given directive and write what comes out. */
static void compress(struct cix_build_log *log, const void *data, size_t len,
		     ZSTD_EndDirective mode)
{
	ZSTD_inBuffer in = { data, len, 0 };
	size_t left;
	do {
		ZSTD_outBuffer o = { log->out, sizeof(log->out), 0 };
		left = ZSTD_compressStream2(log->z, &o, &in, mode);
		if (ZSTD_isError(left)) {
			log->error = -CIX_EFORMAT;
			return;
		}
		if (o.pos && !log->error) {
			int r = cix_write_full(log->fd, log->out, o.pos);
			if (r < 0)
				log->error = r;
		}
	} while (mode == ZSTD_e_continue ? in.pos < in.size : left != 0);
}

void cix_build_log_write(struct cix_build_log *log, const void *data, size_t len)
{
	if (!log || !len)
		return;
	pthread_mutex_lock(&log->lock);
	compress(log, data, len, ZSTD_e_flush);
	pthread_mutex_unlock(&log->lock);
}

int cix_build_log_close(struct cix_build_log *log)
{
	int r;
	if (!log)
		return 0;
	compress(log, "", 0, ZSTD_e_end);
	r = log->error;
	if (close(log->fd) < 0 && !r)
		r = -errno;
	ZSTD_freeCCtx(log->z);
	pthread_mutex_destroy(&log->lock);
	free(log);
	return r;
}

int cix_build_log_read(const char *drv_path, struct strbuf *out, struct cix_err *err)
{
	struct strbuf p = STRBUF_INIT, z = STRBUF_INIT;
	ZSTD_DCtx *d = NULL;
	int r;

	log_path(&p, drv_path, 0);
	if ((r = strbuf_read_file(&z, p.buf, 1 << 30)) < 0) {
		r = cix_error(err, r == -ENOENT ? -CIX_ENOTFOUND : r,
			      "build log of '%s' is not available", drv_path);
		goto out;
	}
	d = ZSTD_createDCtx();
	ZSTD_inBuffer in = { z.buf, z.len, 0 };
	while (in.pos < in.size) {
		strbuf_grow(out, 65536);
		ZSTD_outBuffer o = { out->buf + out->len, out->alloc - out->len - 1, 0 };
		size_t ret = ZSTD_decompressStream(d, &o, &in);
		if (ZSTD_isError(ret)) {
			r = cix_error(err, -CIX_EFORMAT, "build log of '%s' is corrupt: %s", drv_path,
				      ZSTD_getErrorName(ret));
			goto out;
		}
		strbuf_setlen(out, out->len + o.pos);
		if (out->len > MAX_LOG_READ) {
			r = cix_error(err, -CIX_ELIMIT, "build log of '%s' is too large", drv_path);
			goto out;
		}
		if (!o.pos && !ret)
			break;
	}
out:
	ZSTD_freeDCtx(d);
	strbuf_release(&z);
	strbuf_release(&p);
	return r;
}
