/* pull.c - the package collections `cix pull` makes: where they are, and the one cix uses */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "pull.h"
#include "env.h"
#include "strbuf.h"
#include "util.h"

#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>

char *cix_pull_profile(void)
{
	const char *config = cix_env(CIX_ENV_XDG_CONFIG_HOME), *home = cix_env(CIX_ENV_HOME);
	struct strbuf sb = STRBUF_INIT;
	if (config && config[0] == '/')
		strbuf_addf(&sb, "%s/cix/current", config);
	else if (home && home[0] == '/')
		strbuf_addf(&sb, "%s/.config/cix/current", home);
	else
		return NULL;
	return strbuf_detach(&sb, NULL);
}

void cix_pull_search_path(const char *tree, struct strbuf *sb)
{
	strbuf_addf(sb, "%s/" CIX_PULL_MODULES ":%s/" CIX_PULL_DISTRO, tree, tree);
}

void cix_pull_compiled_path(const char *tree, struct strbuf *sb)
{
	strbuf_addf(sb, "%s/" CIX_PULL_GO, tree);
}

char *cix_pull_tree(void)
{
	char *profile, *tree;
	struct stat st;
	if (cix_env(CIX_ENV_SCHEME_PATH) || cix_env(CIX_ENV_SCHEME_COMPILED_PATH) ||
	    !(profile = cix_pull_profile()))
		return NULL;
	tree = realpath(profile, NULL);
	free(profile);
	if (tree && (stat(tree, &st) < 0 || !S_ISDIR(st.st_mode))) {
		free(tree);
		tree = NULL;
	}
	return tree;
}
