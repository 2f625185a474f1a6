/* subst-url.c - substitute URLs: the cache's address, and Nix's ?key=value parameters */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "substitute.h"
#include "strvec.h"
#include "util.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#define MAX_SUBSTITUTERS 64

/* Parameters of Nix's binary cache stores that only matter when writing one. */
static const char *const ignored_keys[] = {
	"compression", "compression-level", "parallel-compression", "write-nar-listing",
	"index-debug-info", "secret-key", "local-nar-cache", "path-info-cache-size",
	"system-features",
};

static int hex_digit(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c |= 0x20;
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* %XX decoded, as Nix decodes values; no NUL may come out. */
static int percent_decode(const char *v, size_t len, struct strbuf *out)
{
	for (size_t i = 0; i < len; i++) {
		int hi, lo;
		if (v[i] != '%') {
			strbuf_addch(out, v[i]);
			continue;
		}
		if (i + 2 >= len)
			return -1;
		if ((hi = hex_digit(v[i + 1])) < 0 || (lo = hex_digit(v[i + 2])) < 0 || !(hi | lo))
			return -1;
		strbuf_addch(out, (char)(hi << 4 | lo));
		i += 2;
	}
	return 0;
}

static int parse_bool(const char *v, int *out)
{
	if (!strcmp(v, "true") || !strcmp(v, "yes") || !strcmp(v, "1"))
		*out = 1;
	else if (!strcmp(v, "false") || !strcmp(v, "no") || !strcmp(v, "0"))
		*out = 0;
	else
		return -1;
	return 0;
}

static int parse_int(const char *v, int *out)
{
	char *end;
	long n;
	errno = 0;
	n = strtol(v, &end, 10);
	if (!*v || *end || errno || n < INT_MIN || n > INT_MAX || (*v != '-' && (*v < '0' || *v > '9')))
		return -1;
	*out = (int)n;
	return 0;
}

/* A logical store directory: absolute, without trailing slashes. */
static int parse_store_dir(const char *v, char **out)
{
	size_t len = strlen(v);
	if (v[0] != '/' || len >= PATH_MAX)
		return -1;
	while (len > 1 && v[len - 1] == '/')
		len--;
	*out = xstrndup(v, len);
	return 0;
}

/* One key=value of the query (value decoded) into s. */
static int set_param(struct cix_substituter *s, const char *key, const char *v,
		     const char *spec, struct cix_err *err)
{
	int bad = 0;
	if (!strcmp(key, "store"))
		bad = s->store_dir || parse_store_dir(v, &s->store_dir) < 0;
	else if (!strcmp(key, "priority")) {
		bad = s->has_priority || parse_int(v, &s->priority) < 0;
		s->has_priority = 1;
	}
	else if (!strcmp(key, "want-mass-query"))
		bad = parse_bool(v, &s->want_mass_query) < 0;
	else if (!strcmp(key, "trusted"))
		bad = parse_bool(v, &s->trusted) < 0;
	else {
		for (size_t i = 0; i < ARRAY_SIZE(ignored_keys); i++)
			if (!strcmp(key, ignored_keys[i]))
				return 0;
		return cix_error(err, -CIX_EINVAL, "substitute URL '%s': unknown parameter '%s'",
				 spec, key);
	}
	if (bad)
		return cix_error(err, -CIX_EINVAL, "substitute URL '%s': bad value of '%s'", spec,
				 key);
	return 0;
}

/* The query (after '?'): key=value pairs separated by '&'. */
static int parse_query(struct cix_substituter *s, const char *q, const char *spec,
		       struct cix_err *err)
{
	int r = 0;
	while (!r && *q) {
		size_t len = strcspn(q, "&"), klen = strcspn(q, "=&");
		struct strbuf key = STRBUF_INIT, val = STRBUF_INIT;
		if (len && klen == len)
			r = cix_error(err, -CIX_EINVAL, "substitute URL '%s': '%.*s' is not KEY=VALUE",
				      spec, (int)len, q);
		else if (len && percent_decode(q + klen + 1, len - klen - 1, &val) < 0)
			r = cix_error(err, -CIX_EINVAL, "substitute URL '%s': bad %%-escape", spec);
		else if (len) {
			strbuf_add(&key, q, klen);
			r = set_param(s, key.buf, val.buf, spec, err);
		}
		strbuf_release(&key);
		strbuf_release(&val);
		q += len;
		q += *q == '&';
	}
	return r;
}

/* spec: an http, https or file URL, then maybe ?PARAMETERS. */
static int parse_one(const char *spec, struct cix_substituter *s, struct cix_err *err)
{
	size_t len = strcspn(spec, "?");
	struct strbuf u = STRBUF_INIT;
	strbuf_add(&u, spec, len);
	while (u.len > 1 && u.buf[u.len - 1] == '/')
		strbuf_setlen(&u, u.len - 1);
	s->url = strbuf_detach(&u, NULL);
	if (strncmp(s->url, "http://", 7) && strncmp(s->url, "https://", 8) &&
	    strncmp(s->url, "file:///", 8))
		return cix_error(err, -CIX_EINVAL, "'%s' is not an http, https or file URL", spec);
	return spec[len] ? parse_query(s, spec + len + 1, spec, err) : 0;
}

int cix_substituters_make(const char *urls, const struct cix_acl *acl,
			  struct cix_substituter **subs, size_t *n, struct cix_err *err)
{
	struct strvec v = STRVEC_INIT;
	int r = 0;
	*subs = NULL;
	*n = 0;
	strvec_split(&v, urls ? urls : "", " \t\n");
	if (v.nr > MAX_SUBSTITUTERS) {
		strvec_clear(&v);
		return cix_error(err, -CIX_ELIMIT, "more than %d substitute URLs", MAX_SUBSTITUTERS);
	}
	*subs = xcalloc(v.nr + 1, sizeof(**subs));
	for (size_t i = 0; !r && i < v.nr; i++) {
		struct cix_substituter *s = &(*subs)[i];
		*n = i + 1;
		r = parse_one(v.v[i], s, err);
		s->keys = acl ? acl->keys : NULL;
		s->nr_keys = acl ? acl->nr : 0;
		cix_fetch_opts_init(&s->fetch);
		s->fetch.connect_timeout_s = 5;
		/* Only a cache that is a directory of this machine reads files. */
		s->fetch.allow_file = !strncmp(s->url, "file:", 5);
	}
	strvec_clear(&v);
	if (r < 0) {
		cix_substituters_free(*subs, *n);
		*subs = NULL;
		*n = 0;
	}
	return r;
}

void cix_substituters_free(struct cix_substituter *subs, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free((char *)subs[i].url);
		free(subs[i].store_dir);
	}
	free(subs);
}
