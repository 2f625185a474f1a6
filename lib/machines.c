/* machines.c - the build machines builds are offloaded to (Nix's machines file) */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "machines.h"
#include "build.h"
#include "conf.h"
#include "env.h"
#include "quote.h"
#include "ssh-uri.h"
#include "strbuf.h"
#include "util.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_FIELDS 8
#define MAX_SPEC_FILE (1u << 20)

struct where {
	const char *origin;
	size_t line;
};

static int bad(struct cix_err *err, const struct where *w, const char *what, const char *s)
{
	char q[128];
	return cix_error(err, -CIX_EINVAL, "%s, line %zu: %s '%s'", w->origin, w->line, what,
			 cix_quote(q, sizeof(q), s, strlen(s)));
}

static int is_default(const char *f)
{
	return !f || !strcmp(f, "-") || !*f;
}

/* A comma-separated list of names (systems, features) into out. */
static int name_list(const struct where *w, const char *what, const char *f, struct strvec *out,
		     struct cix_err *err)
{
	struct strvec items = STRVEC_INIT;
	int r = 0;
	strvec_split(&items, f, ",");
	if (items.nr > CIX_MACHINES_MAX_LIST || !items.nr)
		r = bad(err, w, what, f);
	for (size_t i = 0; !r && i < items.nr; i++) {
		const char *s = items.v[i];
		size_t n = strlen(s);
		if (!n || n > 64 || strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
					      "0123456789_.+-") != n)
			r = bad(err, w, what, s);
		else
			strvec_push(out, s);
	}
	strvec_clear(&items);
	return r;
}

static int set_uri(struct cix_machine *m, const struct where *w, const char *f,
		   struct cix_err *err)
{
	struct strbuf u = STRBUF_INIT;
	struct cix_ssh_uri parsed;
	struct cix_err e = { 0 };
	int r;
	if (!strstr(f, "://"))
		strbuf_addstr(&u, "ssh-ng://");
	strbuf_addstr(&u, f);
	if ((r = cix_ssh_uri_parse(u.buf, &parsed, &e)) < 0) {
		r = cix_error(err, r, "%s, line %zu: %s", w->origin, w->line, e.msg);
		strbuf_release(&u);
		return r;
	}
	cix_ssh_uri_release(&parsed);
	m->uri = strbuf_detach(&u, NULL);
	return 0;
}

static int set_number(const struct where *w, const char *what, const char *f, unsigned *out,
		      struct cix_err *err)
{
	char *end;
	errno = 0;
	unsigned long v = strtoul(f, &end, 10);
	if (*end || errno || f[0] < '0' || f[0] > '9' || v > 1024)
		return bad(err, w, what, f);
	*out = (unsigned)v;
	return 0;
}

static int set_speed(const struct where *w, const char *f, double *out, struct cix_err *err)
{
	char *end;
	errno = 0;
	double v = strtod(f, &end);
	if (*end || errno || !isfinite(v) || v <= 0 || v > 1e6 || f[0] < '0' || f[0] > '9')
		return bad(err, w, "bad speed factor", f);
	*out = v;
	return 0;
}

static int set_text(const struct where *w, const char *what, const char *f, const char *allowed,
		    char **out, struct cix_err *err)
{
	size_t n = strlen(f);
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)f[i] < 0x20 || f[i] == 0x7f ||
		    (allowed && !strchr(allowed, f[i])))
			return bad(err, w, what, f);
	if (n > 4096)
		return bad(err, w, what, "(too long)");
	*out = xstrdup(f);
	return 0;
}

#define BASE64 "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/="

/* The store URI the machine is reached by parses (a host key that is not base64, say). */
static int check_store_uri(const struct cix_machine *m, const struct where *w,
			   struct cix_err *err)
{
	struct cix_ssh_uri u;
	struct cix_err e = { 0 };
	char *uri = cix_machine_store_uri(m);
	int r = cix_ssh_uri_parse(uri, &u, &e);
	free(uri);
	if (r < 0)
		return cix_error(err, r, "%s, line %zu: %s", w->origin, w->line, e.msg);
	cix_ssh_uri_release(&u);
	return 0;
}

/* The fields of one line (the first, the URI, present). */
static int parse_fields(struct cix_machine *m, const struct where *w, char **f, size_t n,
			struct cix_err *err)
{
	int r = set_uri(m, w, f[0], err);
	m->max_jobs = 1;
	m->speed = 1;
	if (!r && n > 1 && !is_default(f[1]))
		r = name_list(w, "bad system", f[1], &m->systems, err);
	else if (!r)
		strvec_push(&m->systems, cix_build_this_system());
	if (!r && n > 2 && !is_default(f[2]))
		r = set_text(w, "bad ssh key file", f[2], NULL, &m->ssh_key, err);
	if (!r && n > 3 && !is_default(f[3]))
		r = set_number(w, "bad maximum number of jobs", f[3], &m->max_jobs, err);
	if (!r && n > 4 && !is_default(f[4]))
		r = set_speed(w, f[4], &m->speed, err);
	if (!r && n > 5 && !is_default(f[5]))
		r = name_list(w, "bad feature", f[5], &m->supported, err);
	if (!r && n > 6 && !is_default(f[6]))
		r = name_list(w, "bad feature", f[6], &m->mandatory, err);
	if (!r && n > 7 && !is_default(f[7]))
		r = set_text(w, "bad public host key", f[7], BASE64, &m->host_key, err);
	return r ? r : check_store_uri(m, w, err);
}

static void machine_release(struct cix_machine *m)
{
	free(m->uri);
	strvec_clear(&m->systems);
	free(m->ssh_key);
	strvec_clear(&m->supported);
	strvec_clear(&m->mandatory);
	free(m->host_key);
}

static int parse_line(struct cix_machines *ms, const struct where *w, char *line,
		      struct cix_err *err)
{
	char *f[MAX_FIELDS + 1], *save = NULL;
	size_t n = 0;
	int r;
	line[strcspn(line, "#")] = '\0';
	for (char *t = strtok_r(line, " \t\r", &save); t; t = strtok_r(NULL, " \t\r", &save)) {
		if (n == MAX_FIELDS)
			return bad(err, w, "too many fields at", t);
		f[n++] = t;
	}
	if (!n)
		return 0;
	if (ms->nr == CIX_MACHINES_MAX)
		return bad(err, w, "too many machines, at", f[0]);
	ALLOC_GROW(ms->v, ms->nr + 1, ms->alloc);
	struct cix_machine *m = &ms->v[ms->nr];
	memset(m, 0, sizeof(*m));
	if ((r = parse_fields(m, w, f, n, err)) < 0)
		machine_release(m);
	else
		ms->nr++;
	return r;
}

int cix_machines_parse(struct cix_machines *ms, const char *text, size_t len,
		       const char *origin, struct cix_err *err)
{
	struct where w = { origin, 0 };
	int r = 0;
	while (!r && len) {
		const char *nl = memchr(text, '\n', len);
		size_t n = nl ? (size_t)(nl - text) : len;
		w.line++;
		if (n > CIX_MACHINES_MAX_LINE)
			return bad(err, &w, "line too long", "");
		if (memchr(text, '\0', n))
			return bad(err, &w, "a NUL byte in", "");
		char *line = xstrndup(text, n);
		r = parse_line(ms, &w, line, err);
		free(line);
		text += n + (nl != NULL);
		len -= n + (nl != NULL);
	}
	return r;
}

static int parse_file(struct cix_machines *ms, const char *file, struct cix_err *err)
{
	struct strbuf text = STRBUF_INIT;
	int r = strbuf_read_file(&text, file, MAX_SPEC_FILE);
	if (r == -ENOENT)
		r = 0;
	else if (r == -CIX_ELIMIT)
		r = cix_error(err, r, "'%s' is larger than %u bytes", file, MAX_SPEC_FILE);
	else if (r < 0)
		r = cix_error_errno(err, r, "cannot read '%s'", file);
	else
		r = cix_machines_parse(ms, text.buf, text.len, file, err);
	strbuf_release(&text);
	return r;
}

int cix_machines_from_spec(struct cix_machines *ms, const char *spec, struct cix_err *err)
{
	spec += strspn(spec, " \t\n");
	if (spec[0] == '@')
		return parse_file(ms, spec + 1, err);
	char *copy = xstrdup(spec);
	for (char *p = copy; *p; p++)
		if (*p == ';')
			*p = '\n';
	int r = cix_machines_parse(ms, copy, strlen(copy), "builders", err);
	free(copy);
	return r;
}

void cix_machines_release(struct cix_machines *ms)
{
	for (size_t i = 0; i < ms->nr; i++)
		machine_release(&ms->v[i]);
	free(ms->v);
	*ms = (struct cix_machines)CIX_MACHINES_INIT;
}

static int has(const struct strvec *v, const char *s)
{
	for (size_t i = 0; i < v->nr; i++)
		if (!strcmp(v->v[i], s))
			return 1;
	return 0;
}

int cix_machine_fits(const struct cix_machine *m, const char *system,
		     const char *const *features, size_t n)
{
	if (!m->max_jobs || !has(&m->systems, system))
		return 0;
	for (size_t i = 0; i < m->mandatory.nr; i++) {
		int wanted = 0;
		for (size_t k = 0; !wanted && k < n; k++)
			wanted = !strcmp(features[k], m->mandatory.v[i]);
		if (!wanted)
			return 0;
	}
	for (size_t k = 0; k < n; k++)
		if (!has(&m->supported, features[k]) && !has(&m->mandatory, features[k]))
			return 0;
	return 1;
}

/* s %-escaped where a URI's parameter value needs it. */
static void add_escaped(struct strbuf *out, const char *s)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c <= 0x20 || c >= 0x7f || c == '%' || c == '&' || c == '?' || c == '#')
			strbuf_addf(out, "%%%02X", c);
		else
			strbuf_addch(out, (char)c);
	}
}

char *cix_machine_store_uri(const struct cix_machine *m)
{
	struct strbuf u = STRBUF_INIT;
	char sep = strchr(m->uri, '?') ? '&' : '?';
	strbuf_addstr(&u, m->uri);
	if (m->ssh_key) {
		strbuf_addf(&u, "%cssh-key=", sep);
		add_escaped(&u, m->ssh_key);
		sep = '&';
	}
	if (m->host_key)
		strbuf_addf(&u, "%cbase64-ssh-public-host-key=%s", sep, m->host_key);
	return strbuf_detach(&u, NULL);
}

const char *cix_machines_default_spec(const struct cix_conf *conf, struct strbuf *buf)
{
	if (conf->builders)
		return conf->builders;
	strbuf_reset(buf);
	strbuf_addf(buf, "@%s/machines", cix_env(CIX_ENV_CONF_DIR));
	return buf->buf;
}

int cix_machines_load(struct cix_machines *ms, const char *spec, struct cix_err *err)
{
	struct cix_conf conf = { 0 };
	struct strbuf file = STRBUF_INIT;
	int r = 0;
	if (!spec && (r = cix_conf_load(cix_conf_file(), &conf, err)) == 0)
		spec = cix_machines_default_spec(&conf, &file);
	if (!r)
		r = cix_machines_from_spec(ms, spec, err);
	cix_conf_release(&conf);
	strbuf_release(&file);
	return r;
}
