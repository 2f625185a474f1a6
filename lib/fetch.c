/* fetch.c - one download through libcurl (or of a local file), into a file or a sink */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "fetch.h"
#include "fetch-int.h"
#include "encoding.h"
#include "quote.h"
#include "strbuf.h"

#include <curl/curl.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A download stalled below 1 byte/s for this long fails (Nix: 300 s). */
#define STALL_SECONDS 300L

void cix_fetch_opts_init(struct cix_fetch_opts *opts)
{
	memset(opts, 0, sizeof(*opts));
	opts->progress_fd = -1;
	opts->allow_file = 1;
}

/*
 * libcurl is loaded (dlopen) at the first download, not when a program
 * starts: with the libraries it needs (TLS, Kerberos, LDAP, SSH...), it
 * doubles the start-up of every cix command (6 ms of 43 libraries
 * against 2 ms), and most commands download nothing.
 */
static struct {
	CURLcode (*global_init)(long flags);
	CURL *(*easy_init)(void);
	CURLcode (*easy_setopt)(CURL *curl, CURLoption option, ...);
	CURLcode (*easy_perform)(CURL *curl);
	CURLcode (*easy_getinfo)(CURL *curl, CURLINFO info, ...);
	void (*easy_cleanup)(CURL *curl);
	const char *(*easy_strerror)(CURLcode code);
	CURLU *(*url)(void);
	CURLUcode (*url_set)(CURLU *u, CURLUPart what, const char *part, unsigned int flags);
	CURLUcode (*url_get)(const CURLU *u, CURLUPart what, char **part, unsigned int flags);
	void (*url_cleanup)(CURLU *u);
	void (*free)(void *p);
} cu;

static pthread_once_t curl_once = PTHREAD_ONCE_INIT;
static char curl_init_error[256];

/* cu.FIELD = the library's curl_NAME, or a message saying it lacks it. */
#define CURL_SYM(lib, field, name)                                                      \
	if (!curl_init_error[0] && !(*(void **)&cu.field = dlsym(lib, name)))           \
	snprintf(curl_init_error, sizeof(curl_init_error),                              \
		 "cannot load libcurl: it has no %s", name)

static void curl_init(void)
{
	void *lib = dlopen("libcurl.so.4", RTLD_NOW | RTLD_LOCAL);
	CURLcode rc;

	if (!lib) {
		snprintf(curl_init_error, sizeof(curl_init_error), "cannot load libcurl: %s",
			 dlerror());
		return;
	}
	CURL_SYM(lib, global_init, "curl_global_init");
	CURL_SYM(lib, easy_init, "curl_easy_init");
	CURL_SYM(lib, easy_setopt, "curl_easy_setopt");
	CURL_SYM(lib, easy_perform, "curl_easy_perform");
	CURL_SYM(lib, easy_getinfo, "curl_easy_getinfo");
	CURL_SYM(lib, easy_cleanup, "curl_easy_cleanup");
	CURL_SYM(lib, easy_strerror, "curl_easy_strerror");
	CURL_SYM(lib, url, "curl_url");
	CURL_SYM(lib, url_set, "curl_url_set");
	CURL_SYM(lib, url_get, "curl_url_get");
	CURL_SYM(lib, url_cleanup, "curl_url_cleanup");
	CURL_SYM(lib, free, "curl_free");
	if (curl_init_error[0])
		return;
	if ((rc = cu.global_init(CURL_GLOBAL_DEFAULT)) != CURLE_OK)
		snprintf(curl_init_error, sizeof(curl_init_error),
			 "cannot initialise libcurl: %s", cu.easy_strerror(rc));
}

/* libcurl, loaded and initialised once per process. */
static int curl_ready(struct cix_err *err)
{
	pthread_once(&curl_once, curl_init);
	if (curl_init_error[0])
		return cix_error(err, -EIO, "%s", curl_init_error);
	return 0;
}

/* ---- one transfer ---- */

#define RECV_BUFFER (256 * 1024)


static size_t write_cb(char *data, size_t size, size_t nmemb, void *opaque)
{
	struct xfer *x = opaque;
	size_t len = size * nmemb;
	int r;

	if (x->max && (len > x->max || x->size > x->max - len)) {
		x->werr = -CIX_ELIMIT;
		return 0;
	}
	r = x->sink ? x->sink(x->sink_opaque, data, len) : cix_write_full(x->fd, data, len);
	if (r < 0) {
		x->werr = r;
		return 0;
	}
	if (x->hashing)
		cix_hash_update(&x->hctx, data, len);
	x->size += len;
	return len;
}

/* The scheme of an absolute URL (letters, digits, + - . then ':'), else 0. */
static size_t scheme_len(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		char c = s[i];
		if (c == ':')
			return i;
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      (i && ((c >= '0' && c <= '9') || c == '+' || c == '-' || c == '.'))))
			return 0;
	}
	return 0;
}

/*
 * Every hop of a redirect chain is checked here, before curl follows it:
 * once on https, a Location must stay on https, whatever the chain began
 * with (curl's protocol list only knows the first URL).
 */
static size_t header_cb(char *line, size_t size, size_t nitems, void *opaque)
{
	struct xfer *x = opaque;
	size_t len = size * nitems, i = 9, n;
	char *cur = NULL;

	if (len < 9 || strncasecmp(line, "location:", 9))
		return len;
	while (i < len && (line[i] == ' ' || line[i] == '\t'))
		i++;
	n = scheme_len(line + i, len - i);
	if (!n || (n == 5 && !strncasecmp(line + i, "https", 5)))
		return len; /* relative, scheme-relative or https */
	if (cu.easy_getinfo((CURL *)x->curl, CURLINFO_EFFECTIVE_URL, &cur) == CURLE_OK && cur &&
	    !strncasecmp(cur, "https:", 6)) {
		x->werr = -CIX_EUNSUPPORTED;
		return 0;
	}
	return len;
}

static int progress_cb(void *opaque, curl_off_t dltotal, curl_off_t dlnow,
		       curl_off_t ultotal, curl_off_t ulnow)
{
	struct xfer *x = opaque;

	cix_fetch_progress_update(&x->progress, x->url, (uint64_t)dlnow, (uint64_t)dltotal);
	return 0;
}

int cix_fetch_has_prefix_ci(const char *s, const char *prefix)
{
	return !strncasecmp(s, prefix, strlen(prefix));
}

/* Printable ASCII only: a URL is passed to curl and quoted in messages. */
int cix_fetch_url_check(const char *url, struct cix_err *err)
{
	char q[128];
	size_t len = strlen(url);

	if (!len || len > 8192)
		return cix_error(err, -CIX_EINVAL, "invalid url of %zu bytes", len);
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)url[i];
		if (c <= 0x20 || c >= 0x7f)
			return cix_error(err, -CIX_EINVAL, "invalid character in url '%s'",
					 cix_quote(q, sizeof(q), url, len));
	}
	return 0;
}

static int curl_code(CURLcode rc, long http)
{
	switch (rc) {
	case CURLE_HTTP_RETURNED_ERROR:
		return (http == 404 || http == 410) ? -CIX_ENOTFOUND : -EIO;
	case CURLE_COULDNT_CONNECT:
		return -ECONNREFUSED;
	case CURLE_OPERATION_TIMEDOUT:
		return -ETIMEDOUT;
	case CURLE_TOO_MANY_REDIRECTS:
	case CURLE_FILESIZE_EXCEEDED:
		return -CIX_ELIMIT;
	case CURLE_UNSUPPORTED_PROTOCOL:
		return -CIX_EUNSUPPORTED;
	case CURLE_FILE_COULDNT_READ_FILE:
	case CURLE_REMOTE_FILE_NOT_FOUND:
		return -CIX_ENOTFOUND;
	default:
		return -EIO;
	}
}

/*
 * Fetch one URL (already expanded, scheme checked) into x->fd, which is
 * empty and at offset 0.
 */
static int fetch_one(const char *url, struct xfer *x, const struct cix_fetch_opts *opts,
		     struct cix_err *err)
{
	char errbuf[CURL_ERROR_SIZE], q[128];
	CURL *c;
	CURLcode rc;
	long http = 0;
	const char *redir = NULL;
	int r = 0;

	if ((r = curl_ready(err)) < 0)
		return r;
	c = cu.easy_init();
	if (!c)
		return cix_error(err, -ENOMEM, "cannot create a curl handle");

	if (cix_fetch_has_prefix_ci(url, "https://"))
		redir = "https";
	else if (cix_fetch_has_prefix_ci(url, "http://"))
		redir = "http,https,ftp";
	errbuf[0] = '\0';
	cu.easy_setopt(c, CURLOPT_URL, url);
	cu.easy_setopt(c, CURLOPT_PROTOCOLS_STR,
			 opts->allow_file ? "http,https,ftp,file" : "http,https,ftp");
	if (redir) {
		cu.easy_setopt(c, CURLOPT_FOLLOWLOCATION, 1L);
		cu.easy_setopt(c, CURLOPT_MAXREDIRS, (long)CIX_FETCH_MAX_REDIRECTS);
		cu.easy_setopt(c, CURLOPT_REDIR_PROTOCOLS_STR, redir);
	}
	cu.easy_setopt(c, CURLOPT_FAILONERROR, 1L);
	/* Never configurable (CVE-2024-47174). */
	cu.easy_setopt(c, CURLOPT_SSL_VERIFYPEER, 1L);
	cu.easy_setopt(c, CURLOPT_SSL_VERIFYHOST, 2L);
	if (opts->ca_file)
		cu.easy_setopt(c, CURLOPT_CAINFO, opts->ca_file);
	cu.easy_setopt(c, CURLOPT_NETRC, (long)CURL_NETRC_IGNORED);
	cu.easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	cu.easy_setopt(c, CURLOPT_USERAGENT, "cix/" CIX_VERSION);
	cu.easy_setopt(c, CURLOPT_CONNECTTIMEOUT,
			 opts->connect_timeout_s > 0 ? opts->connect_timeout_s : 30L);
	if (opts->timeout_s > 0)
		cu.easy_setopt(c, CURLOPT_TIMEOUT, opts->timeout_s);
	cu.easy_setopt(c, CURLOPT_LOW_SPEED_LIMIT, 1L);
	cu.easy_setopt(c, CURLOPT_LOW_SPEED_TIME, STALL_SECONDS);
	if (opts->max_size && opts->max_size <= (uint64_t)INT64_MAX)
		cu.easy_setopt(c, CURLOPT_MAXFILESIZE_LARGE, (curl_off_t)opts->max_size);
	cu.easy_setopt(c, CURLOPT_ERRORBUFFER, errbuf);
	/* Fewer, larger pieces: a fast server fills more than 16 KiB per read. */
	cu.easy_setopt(c, CURLOPT_BUFFERSIZE, (long)RECV_BUFFER);
	cu.easy_setopt(c, CURLOPT_WRITEFUNCTION, write_cb);
	cu.easy_setopt(c, CURLOPT_WRITEDATA, x);
	cu.easy_setopt(c, CURLOPT_HEADERFUNCTION, header_cb);
	cu.easy_setopt(c, CURLOPT_HEADERDATA, x);
	x->curl = c;
	if (x->progress.fd >= 0) {
		cu.easy_setopt(c, CURLOPT_XFERINFOFUNCTION, progress_cb);
		cu.easy_setopt(c, CURLOPT_XFERINFODATA, x);
		cu.easy_setopt(c, CURLOPT_NOPROGRESS, 0L);
	}
	cix_fetch_progress_start(&x->progress);

	rc = cu.easy_perform(c);
	cix_fetch_progress_clear(&x->progress);
	cix_quote(q, sizeof(q), url, strlen(url));
	if (rc == CURLE_WRITE_ERROR && x->werr == -CIX_ELIMIT) {
		r = cix_error(err, -CIX_ELIMIT, "cannot download '%s': larger than %llu bytes",
			      q, (unsigned long long)opts->max_size);
	} else if (rc == CURLE_WRITE_ERROR && x->werr == -CIX_EUNSUPPORTED) {
		r = cix_error(err, -CIX_EUNSUPPORTED,
			      "cannot download '%s': redirect from https to another scheme refused", q);
	} else if (rc == CURLE_WRITE_ERROR && x->werr) {
		r = cix_error_errno(err, x->werr, "cannot download '%s'", q);
	} else if (rc == CURLE_HTTP_RETURNED_ERROR) {
		cu.easy_getinfo(c, CURLINFO_RESPONSE_CODE, &http);
		r = cix_error(err, curl_code(rc, http), "cannot download '%s': HTTP error %ld",
			      q, http);
	} else if (rc == CURLE_FILESIZE_EXCEEDED) {
		r = cix_error(err, -CIX_ELIMIT, "cannot download '%s': larger than %llu bytes",
			      q, (unsigned long long)opts->max_size);
	} else if (rc != CURLE_OK) {
		const char *why = errbuf[0] ? errbuf : cu.easy_strerror(rc);
		struct strbuf w = STRBUF_INIT;
		strbuf_add_quoted(&w, why, strnlen(why, CURL_ERROR_SIZE));
		r = cix_error(err, curl_code(rc, 0), "cannot download '%s': %s", q, w.buf);
		strbuf_release(&w);
	}
	cu.easy_cleanup(c);
	return r;
}

/* Copy a local regular file (a content-addressed mirror's, or file://) into x->fd. */
static int copy_local(const char *path, struct xfer *x, struct cix_err *err)
{
	char buf[65536];
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	int r = 0;

	if (fd < 0)
		return cix_error_errno(err, errno == ENOENT ? -CIX_ENOTFOUND : -errno,
				       "cannot open '%s'", path);
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return cix_error(err, -CIX_EUNSUPPORTED, "'%s' is not a regular file", path);
	}
	for (;;) {
		ssize_t n = read(fd, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			r = cix_error_errno(err, -errno, "cannot read '%s'", path);
			break;
		}
		if (n == 0)
			break;
		if (write_cb(buf, 1, (size_t)n, x) != (size_t)n) {
			r = x->werr == -CIX_ELIMIT
				    ? cix_error(err, -CIX_ELIMIT, "'%s' is too large", path)
				    : cix_error_errno(err, x->werr, "cannot write download");
			break;
		}
	}
	close(fd);
	return r;
}

/*
 * A file:// URL is read here rather than by curl, so that only a regular
 * file (after symlinks) is accepted: not a directory, device or FIFO.
 */
static int fetch_file(const char *url, struct xfer *x, struct cix_err *err)
{
	CURLU *u;
	char *host = NULL, *path = NULL, q[128];
	int r;

	if ((r = curl_ready(err)) < 0)
		return r;
	u = cu.url();
	if (!u)
		return cix_error(err, -ENOMEM, "cannot parse '%s'",
				 cix_quote(q, sizeof(q), url, strlen(url)));
	if (cu.url_set(u, CURLUPART_URL, url, 0) != CURLUE_OK ||
	    cu.url_get(u, CURLUPART_PATH, &path, CURLU_URLDECODE) != CURLUE_OK || !path ||
	    path[0] != '/') {
		r = cix_error(err, -CIX_EINVAL, "invalid file url '%s'",
			      cix_quote(q, sizeof(q), url, strlen(url)));
	} else if (cu.url_get(u, CURLUPART_HOST, &host, 0) == CURLUE_OK && host && *host &&
		   strcasecmp(host, "localhost")) {
		r = cix_error(err, -CIX_EUNSUPPORTED, "file url '%s' names another host",
			      cix_quote(q, sizeof(q), url, strlen(url)));
	} else {
		r = copy_local(path, x, err);
	}
	cu.free(host);
	cu.free(path);
	cu.url_cleanup(u);
	return r;
}

int cix_fetch_check_scheme(const char *url, const struct cix_fetch_opts *opts,
			struct cix_err *err)
{
	char q[128];
	if (cix_fetch_has_prefix_ci(url, "http://") || cix_fetch_has_prefix_ci(url, "https://") ||
	    cix_fetch_has_prefix_ci(url, "ftp://"))
		return 0;
	cix_quote(q, sizeof(q), url, strlen(url));
	if (cix_fetch_has_prefix_ci(url, "file://"))
		return opts->allow_file ? 0
					: cix_error(err, -CIX_EUNSUPPORTED,
						    "file:// urls are not allowed: '%s'", q);
	return cix_error(err, -CIX_EUNSUPPORTED, "unsupported url '%s'", q);
}

int cix_fetch_xfer(const char *src, int local, struct xfer *x, const struct cix_fetch_opts *opts,
		   const struct cix_hash *flat, struct cix_hash *got, struct cix_err *err)
{
	int r;
	x->hashing = flat != NULL;
	if (x->hashing)
		cix_hash_init(&x->hctx, flat->algo);
	x->url = src;
	if (local)
		r = copy_local(src, x, err);
	else if (cix_fetch_has_prefix_ci(src, "file://"))
		r = fetch_file(src, x, err);
	else
		r = fetch_one(src, x, opts, err);
	if (x->hashing) {
		if (r < 0)
			cix_hash_abort(&x->hctx);
		else
			cix_hash_final(&x->hctx, got);
		x->hashing = 0;
	}
	return r;
}

int cix_fetch_stream(const char *url, cix_sink_fn sink, void *opaque,
		     const struct cix_hash *expected, const struct cix_fetch_opts *opts,
		     struct cix_err *err)
{
	struct cix_fetch_opts defaults;
	struct xfer x = { .fd = -1, .sink = sink, .sink_opaque = opaque,
			  .progress = { .fd = -1 } };
	struct cix_hash got;
	int r;

	if (!opts) {
		cix_fetch_opts_init(&defaults);
		opts = &defaults;
	}
	if ((r = cix_fetch_url_check(url, err)) < 0 ||
	    (r = cix_fetch_check_scheme(url, opts, err)) < 0)
		return r;
	x.max = opts->max_size;
	cix_fetch_progress_init(&x.progress, opts->progress_fd);
	if ((r = cix_fetch_xfer(url, 0, &x, opts, expected, &got, err)) < 0 || !expected)
		return r;
	return cix_fetch_check_hash(expected, &got, url, err);
}
