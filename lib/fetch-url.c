/* fetch-url.c - downloads into fresh files: candidate URLs, mirrors, hashes checked */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "fetch.h"
#include "fetch-int.h"
#include "encoding.h"
#include "quote.h"
#include "strbuf.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* One NAR string: u64 length, the bytes, zero padding to 8. */
static void nar_str(struct cix_hash_ctx *ctx, const char *s)
{
	static const unsigned char zero[8];
	unsigned char len[8];
	size_t n = strlen(s);
	cix_put_u64le(len, n);
	cix_hash_update(ctx, len, 8);
	cix_hash_update(ctx, s, n);
	if (n % 8)
		cix_hash_update(ctx, zero, 8 - n % 8);
}

/*
 * The NAR hash of the download as a single regular file, read back through
 * its descriptor (never by path): the NAR is a fixed header, the contents
 * and a fixed trailer.
 */
static int nar_hash_fd(int fd, uint64_t size, int executable, enum cix_hash_algo algo,
		       struct cix_hash *out, const char *dest, struct cix_err *err)
{
	static const unsigned char zero[8];
	struct cix_hash_ctx ctx;
	unsigned char len[8], *buf = xmalloc(1 << 16);
	uint64_t off = 0;

	cix_hash_init(&ctx, algo);
	nar_str(&ctx, "nix-archive-1");
	nar_str(&ctx, "(");
	nar_str(&ctx, "type");
	nar_str(&ctx, "regular");
	if (executable) {
		nar_str(&ctx, "executable");
		nar_str(&ctx, "");
	}
	nar_str(&ctx, "contents");
	cix_put_u64le(len, size);
	cix_hash_update(&ctx, len, 8);
	while (off < size) {
		size_t want = size - off < (1 << 16) ? (size_t)(size - off) : (1 << 16);
		ssize_t n = pread(fd, buf, want, (off_t)off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			int e = n < 0 ? -errno : -EIO;
			cix_hash_abort(&ctx);
			free(buf);
			return cix_error_errno(err, e, "cannot read back '%s'", dest);
		}
		cix_hash_update(&ctx, buf, (size_t)n);
		off += (uint64_t)n;
	}
	if (size % 8)
		cix_hash_update(&ctx, zero, 8 - size % 8);
	nar_str(&ctx, ")");
	cix_hash_final(&ctx, out);
	free(buf);
	return 0;
}

static void hash_string(struct strbuf *sb, const struct cix_hash *h)
{
	strbuf_addf(sb, "%s:", cix_hash_algo_name(h->algo));
	cix_nixbase32_encode(sb, h->bytes, h->len);
}

/* 0 if got is expected, else -CIX_EMISMATCH saying both. */
int cix_fetch_check_hash(const struct cix_hash *expected, const struct cix_hash *got,
		      const char *url_for_msg, struct cix_err *err)
{
	struct strbuf e = STRBUF_INIT, g = STRBUF_INIT;
	char q[128];
	int r;

	if (got->len == expected->len && !memcmp(got->bytes, expected->bytes, got->len))
		return 0;
	hash_string(&e, expected);
	hash_string(&g, got);
	r = cix_error(err, -CIX_EMISMATCH, "hash mismatch for '%s': expected %s, got %s",
		      cix_quote(q, sizeof(q), url_for_msg, strlen(url_for_msg)), e.buf, g.buf);
	strbuf_release(&e);
	strbuf_release(&g);
	return r;
}

/* Reset the output file for another candidate. */
static int rewind_fd(struct xfer *x, const char *dest, struct cix_err *err)
{
	if (ftruncate(x->fd, 0) < 0 || lseek(x->fd, 0, SEEK_SET) < 0)
		return cix_error_errno(err, -errno, "cannot truncate '%s'", dest);
	x->size = 0;
	x->werr = 0;
	return 0;
}

/* Remove dest only if it is still the file we created. */
static void remove_dest(const char *dest, const struct stat *mine)
{
	struct stat st;
	if (lstat(dest, &st) == 0 && st.st_dev == mine->st_dev && st.st_ino == mine->st_ino)
		unlink(dest);
}

/* Try one candidate: a URL, or a local file when local. */
static int try_candidate(const char *src, int local, const char *url_for_msg,
			 const char *dest, struct xfer *x, const struct cix_hash *expected,
			 int recursive, int executable, const struct cix_fetch_opts *opts,
			 struct cix_err *err)
{
	struct cix_hash got;
	int r;

	r = rewind_fd(x, dest, err);
	if (r < 0)
		return r;
	r = cix_fetch_xfer(src, local, x, opts, expected && !recursive ? expected : NULL, &got, err);
	if (r < 0)
		return r;
	if (fchmod(x->fd, executable ? 0755 : 0644) < 0)
		return cix_error_errno(err, -errno, "cannot chmod '%s'", dest);
	if (!expected)
		return 0;
	if (recursive) {
		r = nar_hash_fd(x->fd, x->size, executable, expected->algo, &got, dest, err);
		if (r < 0)
			return r;
	}
	return cix_fetch_check_hash(expected, &got, url_for_msg, err);
}

int cix_fetch_url(const char *url, const char *dest, const struct cix_hash *expected,
		  int recursive, int executable, const struct cix_fetch_opts *opts,
		  struct cix_err *err)
{
	struct cix_fetch_opts defaults;
	struct xfer x = { .fd = -1, .progress = { .fd = -1 } };
	struct stat mine;
	char **urls = NULL;
	size_t n = 0;
	int r, tried = 0, mismatch = 0, keep = 0;
	struct cix_err mismatch_err;

	if (!opts) {
		cix_fetch_opts_init(&defaults);
		opts = &defaults;
	}
	r = cix_fetch_url_check(url, err);
	if (r < 0)
		return r;
	/*
	 * A mirror:// URL that no mirror list knows may still be served by a
	 * content-addressed mirror: its error waits until those missed.
	 */
	/* A flat hash names a file a content-addressed mirror may have. */
	int cas = expected && !recursive && opts->cas_dirs && opts->cas_dirs[0];
	struct cix_err expand_err = { 0 };
	int expand_r = cix_fetch_expand_url(url, opts, &urls, &n, &expand_err);
	if (expand_r < 0 && !cas) {
		if (err)
			*err = expand_err;
		return expand_r;
	}
	for (size_t i = 0; i < n; i++) {
		r = cix_fetch_url_check(urls[i], err);
		if (r < 0)
			goto out;
	}

	x.fd = open(dest, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY, 0644);
	if (x.fd < 0) {
		r = cix_error_errno(err, errno == EEXIST ? -CIX_EEXIST : -errno,
				    "cannot create '%s'", dest);
		goto out;
	}
	if (fstat(x.fd, &mine) < 0) {
		r = cix_error_errno(err, -errno, "cannot stat '%s'", dest);
		close(x.fd);
		unlink(dest);
		goto out;
	}
	x.max = opts->max_size;
	cix_fetch_progress_init(&x.progress, opts->progress_fd);

	r = -CIX_ENOTFOUND;
	/* Content-addressed mirrors first: no network when a directory has it. */
	for (size_t i = 0; cas && opts->cas_dirs[i]; i++) {
		const char *d = opts->cas_dirs[i];
		size_t dl = strlen(d);
		struct strbuf p = STRBUF_INIT;
		int is_url = strstr(d, "://") != NULL;
		strbuf_addstr(&p, d);
		if (dl && d[dl - 1] != '/')
			strbuf_addch(&p, '/');
		strbuf_addf(&p, "%s/", cix_hash_algo_name(expected->algo));
		cix_base16_encode(&p, expected->bytes, expected->len);
		if (is_url)
			r = cix_fetch_url_check(p.buf, err) < 0 ? -CIX_EINVAL : cix_fetch_check_scheme(p.buf, opts, err);
		else
			r = 0;
		if (r == 0)
			r = try_candidate(p.buf, !is_url, p.buf, dest, &x, expected, recursive,
					  executable, opts, err);
		strbuf_release(&p);
		if (r == 0)
			goto out_close;
		/* A miss here is not an error: the URLs follow. A wrong file is said. */
		if (r == -CIX_EMISMATCH && !mismatch) {
			mismatch = 1;
			if (err)
				mismatch_err = *err;
		}
	}
	for (size_t i = 0; i < n; i++) {
		r = cix_fetch_check_scheme(urls[i], opts, err);
		if (r == 0)
			r = try_candidate(urls[i], 0, urls[i], dest, &x, expected, recursive,
					  executable, opts, err);
		tried++;
		if (r == 0)
			goto out_close;
		if (r == -CIX_EMISMATCH && opts->keep_mismatch) {
			keep = 1;
			goto out_close;
		}
		if (r == -CIX_EMISMATCH && !mismatch) {
			mismatch = 1;
			if (err)
				mismatch_err = *err;
		}
	}
	/* A mismatch says more than a later mirror's 404. */
	if (mismatch) {
		r = -CIX_EMISMATCH;
		if (err)
			*err = mismatch_err;
	}
	if (!tried && expand_r < 0 && !mismatch) {
		r = expand_r;
		if (err)
			*err = expand_err;
	} else if (!tried && !mismatch)
		r = cix_error(err, -CIX_ENOTFOUND, "no url to download");
	/* Offline, the mirror is what was meant to have it: say it did not. */
	if (!mismatch && cas && err) {
		struct cix_err first = *err;
		cix_error(err, first.code, "%s; not in the content-addressed mirrors "
			  "(CIX_CAS_DIRS) either", first.msg);
	}
out_close:
	if (close(x.fd) < 0 && r >= 0)
		r = cix_error_errno(err, -errno, "cannot close '%s'", dest);
	if (r < 0 && !keep)
		remove_dest(dest, &mine);
out:
	cix_fetch_free_urls(urls);
	return r;
}
