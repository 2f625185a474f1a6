/* conf.c - cix.conf: the settings of the daemon and of root's direct use of the store */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "conf.h"
#include "env.h"
#include "strbuf.h"
#include "util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CONF_MAX_LINE 65536
#define TTL_MAX (100L * 365 * 86400)

const char *cix_conf_file(void)
{
	static char buf[4096];
	const char *f = cix_env(CIX_ENV_CONF_FILE), *d = cix_env(CIX_ENV_CONF_DIR);
	if (f)
		return f;
	if (snprintf(buf, sizeof(buf), "%s/cix.conf", d) < (int)sizeof(buf))
		return buf;
	return "/etc/cix/cix.conf";
}

static int ttl(const char *file, unsigned lineno, const char *v, long *out, struct cix_err *err)
{
	unsigned long long n;
	v += strspn(v, " \t");
	char *copy = xstrdup(v);
	copy[strcspn(copy, " \t")] = '\0';
	int r = cix_parse_decimal(copy, TTL_MAX, &n);
	free(copy);
	if (r < 0)
		return cix_error(err, -CIX_EFORMAT, "%s:%u: invalid number of seconds", file, lineno);
	/* 0 is "do not remember", which the caller's -1 says */
	*out = n ? (long)n : -1;
	return 0;
}

static int yes_no(const char *file, unsigned lineno, const char *v, int *out,
		  struct cix_err *err)
{
	v += strspn(v, " \t");
	size_t n = strcspn(v, " \t");
	if (v[n + strspn(v + n, " \t")])
		n = 0;   /* more than one word */
	if ((n == 3 && !strncmp(v, "yes", 3)) || (n == 4 && !strncmp(v, "true", 4)))
		*out = 1;
	else if ((n == 2 && !strncmp(v, "no", 2)) || (n == 5 && !strncmp(v, "false", 5)))
		*out = 0;
	else
		return cix_error(err, -CIX_EFORMAT, "%s:%u: expected yes or no", file, lineno);
	return 0;
}

int cix_conf_load(const char *file, struct cix_conf *c, struct cix_err *err)
{
	FILE *f;
	char *line;
	unsigned lineno = 0;
	int r = 0;

	memset(c, 0, sizeof(*c));
	strvec_split(&c->allowed_users, "*", " \t");
	strvec_split(&c->trusted_users, "root", " \t");
	cix_build_limits_default(&c->limits);
	if (!(f = fopen(file, "re")))
		return errno == ENOENT ? 0 : cix_error_errno(err, -errno, "cannot open '%s'", file);
	line = xmalloc(CONF_MAX_LINE);
	while (!r && fgets(line, CONF_MAX_LINE, f)) {
		lineno++;
		size_t len = strlen(line);
		if (len == CONF_MAX_LINE - 1 && line[len - 1] != '\n') {
			r = cix_error(err, -CIX_ELIMIT, "%s:%u: line too long", file, lineno);
			break;
		}
		char *hash = strchr(line, '#');
		if (hash)
			*hash = '\0';
		char *eq = strchr(line, '=');
		char *name = line + strspn(line, " \t");
		if (!*name || *name == '\n')
			continue;
		if (!eq) {
			r = cix_error(err, -CIX_EFORMAT, "%s:%u: expected 'NAME = VALUE'", file, lineno);
			break;
		}
		*eq = '\0';
		name[strcspn(name, " \t")] = '\0';
		char *value = eq + 1;
		value[strcspn(value, "\n")] = '\0';
		if (!strcmp(name, "allowed-users")) {
			strvec_clear(&c->allowed_users);
			strvec_split(&c->allowed_users, value, " \t");
		} else if (!strcmp(name, "trusted-users")) {
			strvec_clear(&c->trusted_users);
			strvec_split(&c->trusted_users, value, " \t");
		} else if (!strcmp(name, "substitute-urls") || !strcmp(name, "substituters")) {
			free(c->substitute_urls);
			c->substitute_urls = xstrdup(value + strspn(value, " \t"));
		} else if (!strcmp(name, "builders")) {
			free(c->builders);
			c->builders = xstrdup(value + strspn(value, " \t"));
		} else if (!strcmp(name, "narinfo-cache-positive-ttl")) {
			r = ttl(file, lineno, value, &c->narinfo_positive_ttl, err);
		} else if (!strcmp(name, "narinfo-cache-negative-ttl")) {
			r = ttl(file, lineno, value, &c->narinfo_negative_ttl, err);
		} else if (!strcmp(name, "fod-host-loopback")) {
			r = yes_no(file, lineno, value, &c->fod_host_loopback, err);
		} else if (cix_build_limit_set(&c->limits, name, value) < 0) {
			r = cix_error(err, -CIX_EFORMAT, "%s:%u: invalid value for %s", file,
				      lineno, name);
		}
	}
	fclose(f);
	free(line);
	return r;
}

void cix_conf_release(struct cix_conf *c)
{
	strvec_clear(&c->allowed_users);
	strvec_clear(&c->trusted_users);
	free(c->substitute_urls);
	free(c->builders);
	memset(c, 0, sizeof(*c));
}
