/* env.c - the environment variables that set cix up */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "tap.h"
#include "env.h"

/* cix(1) lists every variable of cix's own (CIX_...). */
static void check_man_page(void)
{
	const char *src = getenv("CIX_SRC_DIR");
	char file[4096], *text = NULL;
	size_t len = 0;
	FILE *f;
	if (!src || snprintf(file, sizeof(file), "%s/doc/man/cix.1", src) >= (int)sizeof(file) ||
	    !(f = fopen(file, "r"))) {
		skip("cix(1) lists every variable", "no source tree (CIX_SRC_DIR)");
		return;
	}
	text = malloc(1 << 20);
	len = fread(text, 1, (1 << 20) - 1, f);
	text[len] = '\0';
	fclose(f);
	int missing = 0;
	for (int v = 0; v < CIX_ENV_NR; v++)
		if (!strncmp(cix_env_name(v), "CIX_", 4) && !strstr(text, cix_env_name(v))) {
			diag("cix(1) does not name %s", cix_env_name(v));
			missing++;
		}
	is_int(missing, 0, "cix(1) lists every variable");
	free(text);
}

int main(void)
{
	check_man_page();
	int named = 1, documented = 1, unique = 1;
	for (int v = 0; v < CIX_ENV_NR; v++) {
		named &= cix_env_name(v) != NULL;
		documented &= cix_env_doc(v) && *cix_env_doc(v);
		for (int w = 0; w < v; w++)
			unique &= strcmp(cix_env_name(v), cix_env_name(w)) != 0;
	}
	ok(named && documented, "every variable has a name and a meaning");
	ok(unique, "no name twice");

	unsetenv("CIX_STORE_DIR");
	is_str(cix_env(CIX_ENV_STORE_DIR), "/cix/store", "unset: the default");
	setenv("CIX_STORE_DIR", "", 1);
	is_str(cix_env(CIX_ENV_STORE_DIR), "/cix/store", "empty: the default too");
	setenv("CIX_STORE_DIR", "/s", 1);
	is_str(cix_env(CIX_ENV_STORE_DIR), "/s", "set: its value, read afresh");

	setenv("CIX_BUILD_USERS_GROUP", "", 1);
	is_str(cix_env(CIX_ENV_BUILD_USERS_GROUP), "", "an empty group means none");
	unsetenv("CIX_BUILD_USERS_GROUP");
	is_str(cix_env(CIX_ENV_BUILD_USERS_GROUP), "cixbld", "unset: cixbld");

	unsetenv("CIX_DAEMON_SOCKET");
	ok(cix_env(CIX_ENV_DAEMON_SOCKET) == NULL, "no default: NULL");
	unsetenv("CIX_REFSCAN_NO_AVX2");
	ok(cix_env(CIX_ENV_REFSCAN_NO_AVX2) == NULL, "a switch unset");
	setenv("CIX_REFSCAN_NO_AVX2", "", 1);
	ok(cix_env(CIX_ENV_REFSCAN_NO_AVX2) != NULL, "a switch set, even empty");
	return done_testing();
}
