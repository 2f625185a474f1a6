/* err.h - error codes and messages returned by libcix */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef CIX_ERR_H
#define CIX_ERR_H

#include "util.h"

/*
 * Library functions return 0 on success, or a negative code: -errno for
 * system errors, or -CIX_E* (above the errno range, as apk's APKE_*) for
 * errors of cix's own. When the caller passes a struct cix_err, it also
 * receives a one-line message (lowercase, no full stop, git's style).
 */
enum {
	CIX_EBASE = 1024,
	CIX_EFORMAT,    /* malformed input: NAR, ATerm, encoding, ... */
	CIX_ELIMIT,     /* input exceeds a bound (depth, length, size) */
	CIX_EUNSUPPORTED, /* a file type or option cix does not handle */
	CIX_EINVAL,     /* invalid argument */
	CIX_EEXIST,     /* target already exists */
	CIX_EMISMATCH,  /* hash or path does not match */
	CIX_ENOTFOUND,  /* lookup found nothing */
	CIX_ENONDET,    /* a rebuild (--check) gave different output */
	CIX_EBUILD,     /* a builder failed (its exit code, or a signal) */
};

#define CIX_ERR_MSG_MAX 512

struct cix_err {
	int code;
	char msg[CIX_ERR_MSG_MAX];
};

/*
 * Record code and message in err (which may be NULL) and return code, so
 * the idiom is `return cix_error(err, -CIX_EFORMAT, "bad tag '%s'", t);`.
 * code must be negative.
 */
int cix_error(struct cix_err *err, int code, const char *fmt, ...) CIX_PRINTF(3, 4);

/* As cix_error, appending ": strerror(-code)" for errno codes. */
int cix_error_errno(struct cix_err *err, int code, const char *fmt, ...) CIX_PRINTF(3, 4);

/* A static description of a code. */
const char *cix_strerror(int code);

static inline void cix_err_clear(struct cix_err *err)
{
	if (err) {
		err->code = 0;
		err->msg[0] = '\0';
	}
}

#endif
