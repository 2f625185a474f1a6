/* err.c - error codes and messages */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "err.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static const char *const names[] = {
	[CIX_EFORMAT - CIX_EBASE] = "malformed input",
	[CIX_ELIMIT - CIX_EBASE] = "limit exceeded",
	[CIX_EUNSUPPORTED - CIX_EBASE] = "unsupported",
	[CIX_EINVAL - CIX_EBASE] = "invalid argument",
	[CIX_EEXIST - CIX_EBASE] = "already exists",
	[CIX_EMISMATCH - CIX_EBASE] = "mismatch",
	[CIX_ENOTFOUND - CIX_EBASE] = "not found",
	[CIX_ENONDET - CIX_EBASE] = "not deterministic",
	[CIX_EBUILD - CIX_EBASE] = "build failed",
};

const char *cix_strerror(int code)
{
	int c = code < 0 ? -code : code;
	if (c > CIX_EBASE && c - CIX_EBASE < (int)ARRAY_SIZE(names) && names[c - CIX_EBASE])
		return names[c - CIX_EBASE];
	if (c > 0 && c < CIX_EBASE)
		return strerror(c);
	return "unknown error";
}

static int verror(struct cix_err *err, int code, int with_errno,
		  const char *fmt, va_list ap)
{
	if (!err)
		return code;
	err->code = code;
	int n = vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	if (with_errno && n >= 0 && (size_t)n < sizeof(err->msg))
		snprintf(err->msg + n, sizeof(err->msg) - (size_t)n, ": %s",
			 cix_strerror(code));
	return code;
}

int cix_error(struct cix_err *err, int code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	verror(err, code, 0, fmt, ap);
	va_end(ap);
	return code;
}

int cix_error_errno(struct cix_err *err, int code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	verror(err, code, 1, fmt, ap);
	va_end(ap);
	return code;
}
