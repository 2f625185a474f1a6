/* ssh-uri.c - what an ssh-ng:// store URI says (hostile input: a machines file's) */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "ssh-uri.h"
#include "encoding.h"
#include "quote.h"
#include "strbuf.h"
#include "util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SCHEME "ssh-ng://"

/* Characters of a user or host name ssh is given as one argument. */
static int name_ok(const char *s, size_t n, const char *extra)
{
	if (!n || s[0] == '-')
		return 0;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (!(c >= 'a' && c <= 'z') && !(c >= 'A' && c <= 'Z') &&
		    !(c >= '0' && c <= '9') && !strchr(extra, c))
			return 0;
	}
	return 1;
}

static int hexval(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
	     : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* s[0..n) %-decoded into out; no NUL or control character may come of it. */
static int decode(const char *s, size_t n, struct strbuf *out)
{
	strbuf_reset(out);
	for (size_t i = 0; i < n; i++) {
		int c = (unsigned char)s[i];
		if (c == '%') {
			int hi = i + 2 < n ? hexval(s[i + 1]) : -1;
			int lo = i + 2 < n ? hexval(s[i + 2]) : -1;
			if (hi < 0 || lo < 0)
				return -1;
			c = hi * 16 + lo;
			i += 2;
		}
		if (c < 0x20 || c == 0x7f)
			return -1;
		strbuf_addch(out, (char)c);
	}
	return 0;
}

static int bad(struct cix_err *err, const char *uri, const char *why)
{
	char q[128];
	return cix_error(err, -CIX_EINVAL, "bad store URI '%s': %s",
			 cix_quote(q, sizeof(q), uri, strcspn(uri, "?")), why);
}

/* HOST[:PORT] or [V6][:PORT] of s[0..n). */
static int parse_host(const char *uri, const char *s, size_t n, struct cix_ssh_uri *u,
		      struct cix_err *err)
{
	const char *end = s + n, *colon;
	if (n && s[0] == '[') {
		const char *close = memchr(s, ']', n);
		if (!close || !name_ok(s + 1, (size_t)(close - s - 1), ":.") ||
		    (close + 1 < end && close[1] != ':'))
			return bad(err, uri, "bad host");
		u->host = xstrndup(s + 1, (size_t)(close - s - 1));
		colon = close + 1 < end ? close + 1 : NULL;
	} else {
		colon = memchr(s, ':', n);
		size_t hn = colon ? (size_t)(colon - s) : n;
		if (hn > 253 || !name_ok(s, hn, "._-"))
			return bad(err, uri, "bad host");
		u->host = xstrndup(s, hn);
	}
	if (colon) {
		unsigned long port = 0;
		const char *p = colon + 1;
		if (p == end || end - p > 5)
			return bad(err, uri, "bad port");
		for (; p < end; p++) {
			if (*p < '0' || *p > '9')
				return bad(err, uri, "bad port");
			port = port * 10 + (unsigned long)(*p - '0');
		}
		if (!port || port > 65535)
			return bad(err, uri, "bad port");
		u->port = (unsigned)port;
	}
	return 0;
}

/* A number of seconds in 1..max. */
static int seconds(const char *value, unsigned long max, unsigned *out)
{
	char *e;
	errno = 0;
	unsigned long t = strtoul(value, &e, 10);
	if (*e || errno || t < 1 || t > max || value[0] < '0' || value[0] > '9')
		return -1;
	*out = (unsigned)t;
	return 0;
}

static int set_param(const char *uri, const char *name, size_t nlen, const char *value,
		     struct cix_ssh_uri *u, struct cix_err *err)
{
#define IS(k) (nlen == strlen(k) && !memcmp(name, k, nlen))
	if (!*value)
		return bad(err, uri, "a parameter without a value");
	if (IS("ssh-key")) {
		free(u->ssh_key);
		u->ssh_key = xstrdup(value);
	} else if (IS("remote-program")) {
		if (!name_ok(value, strlen(value), "/._+-"))
			return bad(err, uri, "bad remote-program");
		free(u->program);
		u->program = xstrdup(value);
	} else if (IS("base64-ssh-public-host-key")) {
		size_t len = strlen(value);
		unsigned char *key = xmalloc(len + 1);
		int k = cix_base64_decode(value, len, key, len);
		/* a .pub file's (base64 -w0 of it): one line, its end dropped */
		while (k > 0 && (key[k - 1] == '\n' || key[k - 1] == '\r' || key[k - 1] == ' '))
			k--;
		int ok = k > 0;
		for (int i = 0; ok && i < k; i++)
			ok = key[i] >= 0x20 && key[i] < 0x7f;
		if (!ok) {
			free(key);
			return bad(err, uri, "bad base64-ssh-public-host-key");
		}
		key[k] = '\0';
		free(u->host_key);
		u->host_key = (char *)key;
	} else if (IS("connect-timeout")) {
		if (seconds(value, 3600, &u->connect_timeout) < 0)
			return bad(err, uri, "connect-timeout is not a number of seconds in 1..3600");
	} else if (IS("silence-timeout")) {
		if (seconds(value, 86400, &u->silence_timeout) < 0)
			return bad(err, uri, "silence-timeout is not a number of seconds in 1..86400");
	} else if (IS("compress")) {
		if (strcmp(value, "true") && strcmp(value, "false"))
			return bad(err, uri, "compress is neither true nor false");
		u->compress = !strcmp(value, "true");
	} else {
		char q[128], m[160];
		snprintf(m, sizeof(m), "unknown parameter '%s'", cix_quote(q, sizeof(q), name, nlen));
		return bad(err, uri, m);
	}
	return 0;
#undef IS
}

/* NAME=VALUE&... of s[0..n). */
static int parse_params(const char *uri, const char *s, size_t n, struct cix_ssh_uri *u,
			struct cix_err *err)
{
	struct strbuf v = STRBUF_INIT;
	const char *end = s + n;
	int r = 0;
	while (!r && s < end) {
		const char *amp = memchr(s, '&', (size_t)(end - s));
		const char *item_end = amp ? amp : end;
		const char *eq = memchr(s, '=', (size_t)(item_end - s));
		if (!eq || eq == s)
			r = bad(err, uri, "a parameter is not NAME=VALUE");
		else if (decode(eq + 1, (size_t)(item_end - eq - 1), &v) < 0)
			r = bad(err, uri, "bad %-escape or control character in a parameter");
		else
			r = set_param(uri, s, (size_t)(eq - s), v.buf, u, err);
		s = amp ? amp + 1 : end;
	}
	strbuf_release(&v);
	return r;
}

int cix_ssh_uri_parse(const char *uri, struct cix_ssh_uri *u, struct cix_err *err)
{
	size_t len = strlen(uri);
	const char *auth, *q, *at, *end;
	int r;
	memset(u, 0, sizeof(*u));
	u->connect_timeout = CIX_SSH_DEFAULT_TIMEOUT;
	u->silence_timeout = CIX_SSH_DEFAULT_SILENCE;
	if (len > CIX_SSH_URI_MAX)
		return cix_error(err, -CIX_EINVAL, "store URI too long (%zu bytes)", len);
	if (strncmp(uri, SCHEME, strlen(SCHEME)))
		return bad(err, uri, "not ssh-ng://");
	auth = uri + strlen(SCHEME);
	q = strchr(auth, '?');
	end = q ? q : uri + len;
	at = memchr(auth, '@', (size_t)(end - auth));
	if (at) {
		if (!name_ok(auth, (size_t)(at - auth), "._-"))
			return bad(err, uri, "bad user name");
		u->user = xstrndup(auth, (size_t)(at - auth));
		auth = at + 1;
	}
	if ((r = parse_host(uri, auth, (size_t)(end - auth), u, err)) == 0 && q)
		r = parse_params(uri, q + 1, strlen(q + 1), u, err);
	if (!r && !u->program)
		u->program = xstrdup(CIX_SSH_DEFAULT_PROGRAM);
	if (r < 0)
		cix_ssh_uri_release(u);
	return r;
}

void cix_ssh_uri_release(struct cix_ssh_uri *u)
{
	free(u->user);
	free(u->host);
	free(u->ssh_key);
	free(u->program);
	free(u->host_key);
	memset(u, 0, sizeof(*u));
}
