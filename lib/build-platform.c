/* build-platform.c - which derivations this machine can build: their system, their builder */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "build-int.h"
#include "builtins.h"
#include "util.h"

#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>

const char *cix_build_this_system(void)
{
	static char system[80];
	if (!system[0]) {
		struct utsname u;
		const char *m = uname(&u) == 0 ? u.machine : "unknown";
		/* i386...i686 are one system as derivations name them */
		if (strlen(m) == 4 && m[0] == 'i' && m[2] == '8' && m[3] == '6')
			m = "i686";
		snprintf(system, sizeof(system), "%s-linux", m);
	}
	return system;
}

int cix_build_can_run(const char *platform)
{
	const char *self = cix_build_this_system();
	if (!strcmp(platform, self) || !strcmp(platform, "builtin"))
		return 1;
	/* The x86_64 kernel runs 32-bit programs (the builder of i686's first stages). */
	return !strcmp(self, "x86_64-linux") && !strcmp(platform, "i686-linux");
}

int cix_build_check_runnable(const char *drv_path, const struct cix_drv *drv,
			     struct cix_err *err)
{
	if (!cix_build_can_run(drv->platform))
		return cix_error(err, -CIX_EUNSUPPORTED,
				 "a '%s' is required to build '%s', but this machine is a '%s'",
				 drv->platform, drv_path, cix_build_this_system());
	/* Guix's builtin:download, say, is not one of cix's. */
	if (!cix_builtin_named(drv->builder) || cix_builtin_find(drv->builder))
		return 0;
	size_t nr;
	const struct cix_builtin *all = cix_builtins(&nr);
	struct strbuf has = STRBUF_INIT;
	for (size_t i = 0; i < nr; i++)
		strbuf_addf(&has, "%sbuiltin:%s", i ? (i + 1 < nr ? ", " : " and ") : "", all[i].name);
	int r = cix_error(err, -CIX_EUNSUPPORTED, "'%s' wants the built-in builder '%s', which cix "
			  "does not have (it has %s)", drv_path, drv->builder, has.buf);
	strbuf_release(&has);
	return r;
}
