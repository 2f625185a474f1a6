/* build-platform.c - which derivations this machine can build: their system, their builder */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "build-int.h"
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

/* The builders cix runs itself; Guix's builtin:download is not one of them. */
static const char *const builtins[] = { "builtin:fetchurl", "builtin:profile", "builtin:buildenv" };

int cix_build_check_runnable(const char *drv_path, const struct cix_drv *drv,
			     struct cix_err *err)
{
	if (!cix_build_can_run(drv->platform))
		return cix_error(err, -CIX_EUNSUPPORTED,
				 "a '%s' is required to build '%s', but this machine is a '%s'",
				 drv->platform, drv_path, cix_build_this_system());
	if (strncmp(drv->builder, "builtin:", 8))
		return 0;
	for (size_t i = 0; i < ARRAY_SIZE(builtins); i++)
		if (!strcmp(drv->builder, builtins[i]))
			return 0;
	return cix_error(err, -CIX_EUNSUPPORTED,
			 "'%s' wants the built-in builder '%s', which cix does not have "
			 "(it has builtin:fetchurl, builtin:profile and builtin:buildenv)", drv_path, drv->builder);
}
