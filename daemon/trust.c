/* trust.c - allowed-users and trusted-users from cix.conf */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "daemon.h"
#include "util.h"

#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * cix.conf holds lines "NAME = VALUE...", '#' starting a comment, as
 * nix.conf. Read here: allowed-users (default "*") and trusted-users
 * (default "root"); each value is a user name, "@GROUP" or "*".
 */
#define CONF_MAX_LINE 65536

static void split_into(struct strvec *v, const char *value)
{
	strvec_clear(v);
	strvec_split(v, value, " \t");
}

int daemon_trust_load(const char *file, struct daemon_trust *t, struct cix_err *err)
{
	FILE *f;
	char *line = xmalloc(CONF_MAX_LINE);
	unsigned lineno = 0;
	int r = 0;

	split_into(&t->allowed, "*");
	split_into(&t->trusted, "root");
	if (!(f = fopen(file, "re"))) {
		free(line);
		return errno == ENOENT ? 0 : cix_error_errno(err, -errno, "cannot open '%s'", file);
	}
	while (fgets(line, CONF_MAX_LINE, f)) {
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
		if (!strcmp(name, "allowed-users"))
			split_into(&t->allowed, value);
		else if (!strcmp(name, "trusted-users"))
			split_into(&t->trusted, value);
		/* other settings are for other parts of cix */
	}
	fclose(f);
	free(line);
	return r;
}

void daemon_trust_release(struct daemon_trust *t)
{
	strvec_clear(&t->allowed);
	strvec_clear(&t->trusted);
}

static int in_group(const char *group, const char *user, gid_t gid)
{
	char buf[65536];
	struct group gr, *g = NULL;
	if (getgrnam_r(group, &gr, buf, sizeof(buf), &g) || !g)
		return 0;
	if (g->gr_gid == gid)
		return 1;
	for (char **m = g->gr_mem; user && *m; m++)
		if (!strcmp(*m, user))
			return 1;
	return 0;
}

int daemon_user_in(const struct strvec *list, uid_t uid, gid_t gid)
{
	char buf[16384];
	struct passwd pw, *p = NULL;
	const char *user = NULL;
	if (!getpwuid_r(uid, &pw, buf, sizeof(buf), &p) && p)
		user = p->pw_name;
	for (size_t i = 0; i < list->nr; i++) {
		const char *e = list->v[i];
		if (!strcmp(e, "*"))
			return 1;
		if (e[0] == '@' ? in_group(e + 1, user, gid) : user && !strcmp(e, user))
			return 1;
	}
	return 0;
}
