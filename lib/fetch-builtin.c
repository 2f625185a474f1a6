/* fetch-builtin.c - Nix's builtin:fetchurl, and hashes as derivations state them */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "fetch.h"
#include "compress.h"
#include "encoding.h"
#include "nar.h"
#include "remove.h"
#include "quote.h"
#include "strbuf.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int cix_fetch_parse_hash(const char *algo, const char *hash, struct cix_hash *out,
			 struct cix_err *err)
{
	char q[128], qa[64];
	const char *colon = strchr(hash, ':'), *dash = strchr(hash, '-'), *rest = hash;
	enum cix_hash_algo a = CIX_HASH_SHA256, pa;
	int have = 0, sri = 0, r;
	size_t size, len;

	if (!strncmp(algo, "r:", 2))
		algo += 2;
	if (*algo) {
		if (cix_hash_algo_parse(algo, &a) < 0)
			return cix_error(err, -CIX_EINVAL, "unknown hash algorithm '%s'",
					 cix_quote(qa, sizeof(qa), algo, strlen(algo)));
		have = 1;
	}
	/* "ALGO:HASH" or the SRI "ALGO-BASE64". */
	const char *sep = colon ? colon : dash;
	if (sep) {
		char name[16];
		size_t nl = (size_t)(sep - hash);
		if (nl < sizeof(name)) {
			memcpy(name, hash, nl);
			name[nl] = '\0';
		}
		if (nl >= sizeof(name) || cix_hash_algo_parse(name, &pa) < 0)
			return cix_error(err, -CIX_EINVAL, "invalid hash '%s'",
					 cix_quote(q, sizeof(q), hash, strlen(hash)));
		if (have && pa != a)
			return cix_error(err, -CIX_EMISMATCH, "hash '%s' is not of type '%s'",
					 cix_quote(q, sizeof(q), hash, strlen(hash)),
					 cix_hash_algo_name(a));
		a = pa;
		have = 1;
		sri = sep == dash && !colon;
		rest = sep + 1;
	}
	if (!have)
		return cix_error(err, -CIX_EINVAL, "hash '%s' does not name its algorithm",
				 cix_quote(q, sizeof(q), hash, strlen(hash)));
	size = cix_hash_algo_size(a);
	len = strlen(rest);
	memset(out, 0, sizeof(*out));
	out->algo = a;
	out->len = size;
	if (!*hash)
		return 0;
	if (!sri && len == 2 * size)
		r = cix_base16_decode(rest, len, out->bytes, sizeof(out->bytes));
	else if (!sri && len == cix_nixbase32_len(size))
		r = cix_nixbase32_decode(rest, len, out->bytes, size);
	else if (len == cix_base64_len(size))
		r = cix_base64_decode(rest, len, out->bytes, sizeof(out->bytes));
	else
		return cix_error(err, -CIX_EFORMAT, "hash '%s' has the wrong length for %s",
				 cix_quote(q, sizeof(q), hash, strlen(hash)),
				 cix_hash_algo_name(a));
	if (r < 0 || (size_t)r != size)
		return cix_error(err, -CIX_EFORMAT, "invalid hash '%s'",
				 cix_quote(q, sizeof(q), hash, strlen(hash)));
	return 0;
}

static const char *env_get(const char *const *keys, const char *const *values, size_t n,
			   const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(keys[i], name))
			return values[i];
	return NULL;
}

static int has_suffix(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);
	return a >= b && !strcmp(s + a - b, suffix);
}

/* Check what was unpacked at path against expected. */
static int verify_path(const char *url, const char *path, const struct cix_hash *expected,
		       int recursive, struct cix_err *err)
{
	struct cix_hash got;
	struct stat st;
	int r;

	if (recursive) {
		r = cix_nar_hash_path(path, expected->algo, &got, NULL, err);
	} else {
		if (lstat(path, &st) < 0)
			return cix_error_errno(err, -errno, "cannot stat '%s'", path);
		if (!S_ISREG(st.st_mode))
			return cix_error(err, -CIX_EFORMAT,
					 "flat hash of '%s', which is not a regular file", path);
		r = cix_hash_file(expected->algo, path, &got, err);
	}
	if (r < 0)
		return r;
	if (got.len != expected->len || memcmp(got.bytes, expected->bytes, got.len)) {
		struct strbuf e = STRBUF_INIT, g = STRBUF_INIT;
		char q[128];
		strbuf_addf(&e, "%s:", cix_hash_algo_name(expected->algo));
		cix_nixbase32_encode(&e, expected->bytes, expected->len);
		strbuf_addf(&g, "%s:", cix_hash_algo_name(got.algo));
		cix_nixbase32_encode(&g, got.bytes, got.len);
		r = cix_error(err, -CIX_EMISMATCH, "hash mismatch for '%s': expected %s, got %s",
			      cix_quote(q, sizeof(q), url, strlen(url)), e.buf, g.buf);
		strbuf_release(&e);
		strbuf_release(&g);
	}
	return r;
}

/* ---- unpack: a NAR, or an xz-compressed NAR, restored from the download ---- */

/*
 * Restore the NAR in the file fd, xz-compressed if xz, to out_real: the
 * NAR must be all the file holds (after decompression; the xz streams'
 * checks and indexes, which come after the NAR's last byte, checked too),
 * at most max bytes of it.
 */
static int restore_download(int fd, int xz, const char *url, const char *tmp,
			    const char *out_real, uint64_t max, struct cix_err *err)
{
	struct cix_buf_source *src = xmalloc(sizeof(*src));
	struct cix_zsource *z;
	char q[128], b;
	ssize_t n;
	int r;

	cix_quote(q, sizeof(q), xz ? url : tmp, strlen(xz ? url : tmp));
	*src = (struct cix_buf_source)CIX_BUF_SOURCE_INIT(fd);
	z = cix_zsource_new(xz ? CIX_COMP_XZ : CIX_COMP_NONE, cix_buf_source_read, src,
			    xz ? max : 0, q);
	r = cix_nar_restore(cix_zsource_read, z, out_real, NULL, NULL, err);
	if (r < 0 && cix_zsource_error(z)->code && err)
		*err = *cix_zsource_error(z);   /* the decompressor's own message says more */
	if (r == 0) {
		if ((n = cix_zsource_read(z, &b, 1)) > 0)
			r = cix_error(err, -CIX_EFORMAT, "trailing data after the nar in %s", q);
		else if (n < 0 || cix_zsource_finish(z, NULL) < 0)
			r = cix_error(err, cix_zsource_error(z)->code, "%s", cix_zsource_error(z)->msg);
		if (r < 0)
			cix_remove_tree_at(AT_FDCWD, out_real, NULL);
	}
	cix_zsource_free(z);
	free(src);
	return r;
}

static int fetch_unpack(const char *url, const char *out_real, const struct cix_fetch_opts *opts,
			struct cix_err *err)
{
	struct strbuf tmp = STRBUF_INIT;
	int r = -CIX_EEXIST, fd;

	for (int i = 0; i < 100 && r == -CIX_EEXIST; i++) {
		strbuf_reset(&tmp);
		strbuf_addf(&tmp, "%s.nar-%ld-%d", out_real, (long)getpid(), i);
		r = cix_fetch_url(url, tmp.buf, NULL, 0, 0, opts, err);
	}
	if (r < 0)
		goto out;
	fd = open(tmp.buf, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0) {
		r = cix_error_errno(err, -errno, "cannot open '%s'", tmp.buf);
	} else {
		/* As Nix: the URL as written, not a mirror's, says whether it is xz. */
		r = restore_download(fd, has_suffix(url, ".xz"), url, tmp.buf, out_real,
				     opts->max_size, err);
		close(fd);
	}
	unlink(tmp.buf);
out:
	strbuf_release(&tmp);
	return r;
}

int cix_builtin_fetchurl(const char *const *keys, const char *const *values, size_t n,
			 const char *out_real, const struct cix_fetch_opts *opts,
			 struct cix_err *err)
{
	const char *url = env_get(keys, values, n, "url");
	const char *unpack = env_get(keys, values, n, "unpack");
	const char *exe = env_get(keys, values, n, "executable");
	const char *mode = env_get(keys, values, n, "outputHashMode");
	const char *hash = env_get(keys, values, n, "outputHash");
	const char *algo = env_get(keys, values, n, "outputHashAlgo");
	struct cix_fetch_opts o;
	struct cix_hash expected;
	int recursive = 0, executable = exe && !strcmp(exe, "1"), r;

	if (opts)
		o = *opts;
	else
		cix_fetch_opts_init(&o);
	if (!url)
		return cix_error(err, -CIX_EINVAL, "attribute 'url' missing");
	if (!env_get(keys, values, n, "out"))
		return cix_error(err, -CIX_EINVAL, "attribute 'out' missing");
	if (mode && !strcmp(mode, "recursive"))
		recursive = 1;
	else if (mode && *mode && strcmp(mode, "flat"))
		return cix_error(err, -CIX_EUNSUPPORTED, "unsupported outputHashMode '%s'",
				 mode);
	if (hash) {
		r = cix_fetch_parse_hash(algo ? algo : "", hash, &expected, err);
		if (r < 0)
			return r;
	}

	if (!unpack || strcmp(unpack, "1"))
		return cix_fetch_url(url, out_real, hash ? &expected : NULL, recursive,
				     executable, &o, err);

	r = fetch_unpack(url, out_real, &o, err);
	if (r < 0)
		return r;
	if (executable) {
		struct stat st;
		if (lstat(out_real, &st) == 0 && !S_ISLNK(st.st_mode) &&
		    chmod(out_real, 0755) < 0)
			r = cix_error_errno(err, -errno, "cannot make '%s' executable", out_real);
	}
	if (r == 0 && hash)
		r = verify_path(url, out_real, &expected, recursive, err);
	if (r < 0 && !(r == -CIX_EMISMATCH && o.keep_mismatch))
		cix_remove_tree_at(AT_FDCWD, out_real, NULL);
	return r;
}
