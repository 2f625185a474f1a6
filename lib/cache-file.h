/* cache-file.h - files of the user's cache directory: the package index, the evaluation cache */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef CIX_CACHE_FILE_H
#define CIX_CACHE_FILE_H

#include <stddef.h>

#include "err.h"

/*
 * $XDG_CACHE_HOME/cix/KIND/KEY-HASH (~/.cache when XDG_CACHE_HOME is not
 * an absolute name), KEY-HASH the first 16 hex digits of KEY's SHA-256;
 * NULL when there is no cache directory of the user's own.
 */
char *cix_cache_file(const char *kind, const char *key);

/* Write FILE atomically (a temporary file renamed over it), making its directory. */
int cix_cache_write(const char *file, const void *buf, size_t len, struct cix_err *err);

#endif
