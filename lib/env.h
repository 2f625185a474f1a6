/* env.h - the environment variables that set cix up, in one table */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef CIX_ENV_H
#define CIX_ENV_H

/*
 * Every variable the library reads (lib/env.c has their names, defaults
 * and meanings; cix(1) lists them for users). Read afresh at each call:
 * a test or a command may change one between two.
 */
enum cix_env_var {
	CIX_ENV_STORE_DIR,
	CIX_ENV_STATE_DIR,
	CIX_ENV_LOG_DIR,
	CIX_ENV_CONF_DIR,
	CIX_ENV_CONF_FILE,
	CIX_ENV_DAEMON_SOCKET,
	CIX_ENV_BUILD_USERS_GROUP,
	CIX_ENV_USERPOOL_DIR,
	CIX_ENV_KEPT_BUILDS_MAX_AGE,
	CIX_ENV_KEPT_BUILDS_MAX,
	CIX_ENV_EXTRA_SANDBOX_PATHS,
	CIX_ENV_MIRRORS_FILE,
	CIX_ENV_CAS_DIRS,
	CIX_ENV_FOD_HOST_LOOPBACK,
	CIX_ENV_SLIRP4NETNS,
	CIX_ENV_SUBSTITUTE_UNSIGNED_MAX_SIZE,
	CIX_ENV_REFSCAN_NO_AVX2,
	CIX_ENV_XDG_CACHE_HOME,
	CIX_ENV_HOME,
	CIX_ENV_PATH,
	CIX_ENV_TMPDIR,
	/* The client's: the package layer, cix pull, cix refresh. */
	CIX_ENV_XDG_CONFIG_HOME,
	CIX_ENV_DATA_DIR,
	CIX_ENV_SCHEME_PATH,
	CIX_ENV_SCHEME_COMPILED_PATH,
	CIX_ENV_NO_EVAL_CACHE,
	CIX_ENV_PULL_URL,
	CIX_ENV_GNU_URL,
	CIX_ENV_SSHOPTS,
	CIX_ENV_NR
};

/*
 * The variable's value; when unset (or empty, for most), its default,
 * which may be NULL.
 */
const char *cix_env(enum cix_env_var v);
/* Its name, as in the environment. */
const char *cix_env_name(enum cix_env_var v);
/* What it sets, in a few words (for cix's --help and the tests). */
const char *cix_env_doc(enum cix_env_var v);

#endif
