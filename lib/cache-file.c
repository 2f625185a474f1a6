/* cache-file.c - files of the user's cache directory */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "cache-file.h"
#include "env.h"
#include "hash.h"
#include "strbuf.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

char *cix_cache_file(const char *kind, const char *key)
{
	const char *cache = cix_env(CIX_ENV_XDG_CACHE_HOME), *home = cix_env(CIX_ENV_HOME);
	struct cix_hash h;
	char hex[17];
	struct strbuf sb = STRBUF_INIT;

	cix_hash_buf(CIX_HASH_SHA256, key, strlen(key), &h);
	for (int i = 0; i < 8; i++)
		snprintf(hex + 2 * i, 3, "%02x", h.bytes[i]);
	if (cache && *cache == '/')
		strbuf_addf(&sb, "%s/cix/%s/%s", cache, kind, hex);
	else if (home && *home == '/')
		strbuf_addf(&sb, "%s/.cache/cix/%s/%s", home, kind, hex);
	else
		return NULL;       /* nowhere of the user's own: nothing kept */
	return strbuf_detach(&sb, NULL);
}

int cix_cache_write(const char *file, const void *buf, size_t len, struct cix_err *err)
{
	struct strbuf tmp = STRBUF_INIT;
	char *copy = xstrdup(file), *slash = strrchr(copy, '/');
	int fd, r = 0;

	if (slash && slash != copy) {
		*slash = '\0';
		if ((r = cix_mkdirs(copy, err)) < 0)
			goto out;
	}
	strbuf_addf(&tmp, "%s.tmp-%ld", file, (long)getpid());
	fd = open(tmp.buf, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0 && errno == EEXIST && !unlink(tmp.buf))
		fd = open(tmp.buf, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0) {
		r = cix_error(err, -errno, "cannot create '%s'", tmp.buf);
		goto out;
	}
	if (cix_write_full(fd, buf, len) < 0 || close(fd) < 0) {
		r = cix_error(err, -errno, "cannot write '%s'", tmp.buf);
		unlink(tmp.buf);
		goto out;
	}
	if (rename(tmp.buf, file) < 0) {
		r = cix_error(err, -errno, "cannot rename '%s'", tmp.buf);
		unlink(tmp.buf);
	}
out:
	free(copy);
	strbuf_release(&tmp);
	return r;
}
