/* buildlog.h - build logs: plain as the build runs, bzip2 once it ended */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef CIX_BUILDLOG_H
#define CIX_BUILDLOG_H

#include <stddef.h>
#include <stdint.h>
#include "err.h"
#include "nar.h"
#include "strbuf.h"

/*
 * The log of a derivation's build is $CIX_LOG_DIR/drvs/XX/REST, where
 * XXREST is the .drv's base name: the layout of Nix, whose clients read
 * the logs of a daemon's store themselves (nix log, nix-store -l). It is
 * written plain as the build runs, each chunk of output as it comes, so
 * that the log of a build still running or killed can be read; and
 * compressed as it comes into REST.bz2.part, which becomes REST.bz2 and
 * replaces it when the build ends. Readers look for REST, then REST.bz2,
 * then REST.zst (the logs of older cix).
 */
struct cix_build_log;

/* $CIX_LOG_DIR or "/var/log/cix". */
const char *cix_log_dir(void);

/* The name of drv_path's log with the extension ext ("", ".bz2"...), appended to out. */
void cix_build_log_file(const char *drv_path, const char *ext, struct strbuf *out);
/* Make the directories of drv_path's log. */
int cix_build_log_dirs(const char *drv_path, struct cix_err *err);

/* The file of the build log of drv_path (appended to out): 0, or -ENOENT if there is none. */
int cix_build_log_path(const char *drv_path, struct strbuf *out);

/* Start (and truncate) the log of drv_path; logs of earlier builds are removed. */
int cix_build_log_open(const char *drv_path, struct cix_build_log **out,
		       struct cix_err *err);
/* Append; errors are remembered and reported by close. */
void cix_build_log_write(struct cix_build_log *log, const void *data, size_t len);
/* End the log (may be NULL) and compress it; 0 or the first error. */
int cix_build_log_close(struct cix_build_log *log);

/* Append the log of drv_path, decompressed, to out; -CIX_ENOTFOUND if none. */
int cix_build_log_read(const char *drv_path, struct strbuf *out, struct cix_err *err);

/*
 * buildlog-add.c: store a log that comes from elsewhere (nix store
 * copy-log), read from src to its end, as REST.bz2. At most max bytes
 * (0: no bound). 1: drv_path has a log already, which is kept (src is
 * left unread); 0: stored.
 */
int cix_build_log_add(const char *drv_path, cix_source_fn src, void *opaque, uint64_t max,
		      struct cix_err *err);

#endif
