/* builtins.c - the table of the builders cix runs itself */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "tap.h"
#include "builtins.h"
#include "err.h"

int main(void)
{
	const struct cix_builtin *b = cix_builtin_find("builtin:fetchurl");
	size_t nr;
	const struct cix_builtin *all = cix_builtins(&nr);

	ok(b && b->needs_build_user && b->is_download && b->job && !b->run,
	   "fetchurl: a download, run in the sandbox as a build user");
	b = cix_builtin_find("builtin:profile");
	ok(b && !b->needs_build_user && !b->is_download && b->run && !b->job,
	   "profile: run as cix itself, linking its inputs");
	b = cix_builtin_find("builtin:buildenv");
	ok(b && !b->needs_build_user && b->run, "buildenv: the same");
	ok(!cix_builtin_find("builtin:download") && cix_builtin_named("builtin:download"),
	   "Guix's builtin:download is named so, but cix has none");
	ok(!cix_builtin_find("/bin/sh") && !cix_builtin_named("/bin/sh"), "a program is no builtin");
	ok(!cix_builtin_find("builtin:") && !cix_builtin_find("builtin:fetchurlx") &&
	   !cix_builtin_find("fetchurl"), "only the whole name finds one");
	b = cix_builtin_find("builtin:bootstrap");
	ok(b && !b->needs_build_user && b->run, "bootstrap: run as the daemon, reading its seeds");
	is_int(nr, 4, "four builtins");
	int sorted = 1;
	for (size_t i = 1; i < nr; i++)
		sorted &= strcmp(all[i - 1].name, all[i].name) < 0;
	ok(sorted, "listed in the order of their names (BuiltinBuilders)");
	for (size_t i = 0; i < nr; i++)
		ok(all[i].needs_build_user ? all[i].job != NULL : all[i].run != NULL,
		   "%s has what it needs to run", all[i].name);
	is_str(cix_strerror(-CIX_EBUILD), "build failed", "a failed builder has its own code");
	return done_testing();
}
