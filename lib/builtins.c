/* builtins.c - the table of the builders cix runs itself */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "builtins.h"
#include "build-int.h"
#include "buildenv.h"
#include "profile-build.h"
#include "util.h"

#include <string.h>

#define PREFIX "builtin:"

static int run_buildenv(const struct cix_builtin_call *c, struct cix_err *err)
{
	return cix_build_run_buildenv(c->drv, c->drv_path, c->store_dir, c->root, c->inputs, err);
}

static int run_profile(const struct cix_builtin_call *c, struct cix_err *err)
{
	return cix_build_run_profile(c->drv, c->drv_path, c->store_dir, c->root, c->inputs, err);
}

static int fetchurl_job(const struct cix_builtin_call *c, struct cix_build_job *j,
			struct cix_err *err)
{
	return cix_build_fetchurl_job(j, c->no_file_urls, err);
}

/* In the order of their names (Guix's BuiltinBuilders lists them so). */
static const struct cix_builtin table[] = {
	{ "bootstrap", 0, 0, cix_builtin_bootstrap, NULL },
	{ "buildenv", 0, 0, run_buildenv, NULL },
	{ "fetchurl", 1, 1, NULL, fetchurl_job },
	{ "profile", 0, 0, run_profile, NULL },
};

int cix_builtin_named(const char *builder)
{
	return !strncmp(builder, PREFIX, strlen(PREFIX));
}

const struct cix_builtin *cix_builtin_find(const char *builder)
{
	if (!cix_builtin_named(builder))
		return NULL;
	for (size_t i = 0; i < ARRAY_SIZE(table); i++)
		if (!strcmp(builder + strlen(PREFIX), table[i].name))
			return &table[i];
	return NULL;
}

const struct cix_builtin *cix_builtins(size_t *nr)
{
	*nr = ARRAY_SIZE(table);
	return table;
}
