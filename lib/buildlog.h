/* buildlog.h - build logs, kept zstd-compressed */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef CIX_BUILDLOG_H
#define CIX_BUILDLOG_H

#include <stddef.h>
#include "err.h"
#include "strbuf.h"

/*
 * The log of a derivation's build is $CIX_LOG_DIR/drvs/XX/REST.zst, where
 * XXREST is the .drv's base name. It is written as the build runs, flushed
 * at each chunk of output, so that the log of a build that was killed can
 * still be read up to its last output.
 */
struct cix_build_log;

/* $CIX_LOG_DIR or "/var/log/cix". */
const char *cix_log_dir(void);

/* Start (and truncate) the log of drv_path. */
/* The file of the build log of drv_path (appended to out): 0, or -ENOENT if there is none. */
int cix_build_log_path(const char *drv_path, struct strbuf *out);

int cix_build_log_open(const char *drv_path, struct cix_build_log **out,
		       struct cix_err *err);
/* Append; errors are remembered and reported by close. */
void cix_build_log_write(struct cix_build_log *log, const void *data, size_t len);
/* End the log (may be NULL); 0 or the first write error. */
int cix_build_log_close(struct cix_build_log *log);

/* Append the log of drv_path, decompressed, to out; -CIX_ENOTFOUND if none. */
int cix_build_log_read(const char *drv_path, struct strbuf *out, struct cix_err *err);

#endif
