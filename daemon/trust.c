/* trust.c - who is in allowed-users and trusted-users (cix.conf) */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "daemon.h"
#include "util.h"

#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
