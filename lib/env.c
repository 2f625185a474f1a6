/* env.c - the environment variables that set cix up, in one table */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "env.h"
#include "fetch.h"

#include <stdlib.h>

static const struct {
	const char *name;
	const char *dflt;
	int empty_is_value;   /* set but empty means empty, not the default */
	const char *doc;
} vars[CIX_ENV_NR] = {
	[CIX_ENV_STORE_DIR] = { "CIX_STORE_DIR", "/cix/store", 0, "the store" },
	[CIX_ENV_STATE_DIR] = { "CIX_STATE_DIR", "/var/cix", 0,
				"the database, profiles, roots, the daemon's socket" },
	[CIX_ENV_LOG_DIR] = { "CIX_LOG_DIR", "/var/log/cix", 0, "build logs" },
	[CIX_ENV_CONF_DIR] = { "CIX_CONF_DIR", "/etc/cix", 0,
			       "cix.conf, the signing keys and the ACL" },
	[CIX_ENV_CONF_FILE] = { "CIX_CONF_FILE", NULL, 0, "cix.conf itself" },
	[CIX_ENV_DAEMON_SOCKET] = { "CIX_DAEMON_SOCKET", NULL, 0,
				    "the daemon to use, whoever owns the store" },
	[CIX_ENV_BUILD_USERS_GROUP] = { "CIX_BUILD_USERS_GROUP", "cixbld", 1,
					"the group of the build users (empty: none)" },
	[CIX_ENV_USERPOOL_DIR] = { "CIX_USERPOOL_DIR", NULL, 0,
				   "the build users' locks (else /run/cix/userpool)" },
	[CIX_ENV_KEPT_BUILDS_MAX_AGE] = { "CIX_KEPT_BUILDS_MAX_AGE", NULL, 0,
					  "seconds a -K build directory is kept" },
	[CIX_ENV_KEPT_BUILDS_MAX] = { "CIX_KEPT_BUILDS_MAX", NULL, 0,
				      "-K build directories kept at most" },
	[CIX_ENV_EXTRA_SANDBOX_PATHS] = { "CIX_EXTRA_SANDBOX_PATHS", NULL, 0,
					  "host paths every build sees" },
	[CIX_ENV_MIRRORS_FILE] = { "CIX_MIRRORS_FILE", CIX_MIRRORS_FILE, 0,
				   "the mirror:// lists" },
	[CIX_ENV_CAS_DIRS] = { "CIX_CAS_DIRS", NULL, 0,
			       "content-addressed mirrors of sources" },
	[CIX_ENV_FOD_HOST_LOOPBACK] = { "CIX_FOD_HOST_LOOPBACK", NULL, 0,
					"downloads may reach the host's loopback" },
	[CIX_ENV_SLIRP4NETNS] = { "CIX_SLIRP4NETNS", NULL, 0,
				  "the slirp4netns program of downloads" },
	[CIX_ENV_SUBSTITUTE_UNSIGNED_MAX_SIZE] = { "CIX_SUBSTITUTE_UNSIGNED_MAX_SIZE", NULL, 0,
						   "bytes of an unsigned substitute" },
	[CIX_ENV_REFSCAN_NO_AVX2] = { "CIX_REFSCAN_NO_AVX2", NULL, 1,
				      "scan references without AVX2" },
	[CIX_ENV_XDG_CACHE_HOME] = { "XDG_CACHE_HOME", NULL, 0, "the user's caches" },
	[CIX_ENV_HOME] = { "HOME", NULL, 0, "the user's home" },
	[CIX_ENV_PATH] = { "PATH", NULL, 0, "where programs are looked for" },
	[CIX_ENV_TMPDIR] = { "TMPDIR", "/tmp", 0, "temporary files" },
	[CIX_ENV_XDG_CONFIG_HOME] = { "XDG_CONFIG_HOME", NULL, 0,
				      "the user's settings (cix pull's generations)" },
	[CIX_ENV_DATA_DIR] = { "CIX_DATA_DIR", NULL, 0,
			       "where the gnu-build driver's source is (cix build)" },
	[CIX_ENV_SCHEME_PATH] = { "CIX_SCHEME_PATH", NULL, 0, "the package modules" },
	[CIX_ENV_SCHEME_COMPILED_PATH] = { "CIX_SCHEME_COMPILED_PATH", NULL, 0,
					   "the package modules, compiled" },
	[CIX_ENV_NO_EVAL_CACHE] = { "CIX_NO_EVAL_CACHE", NULL, 1,
				    "evaluate every time (no evaluation cache)" },
	[CIX_ENV_PULL_URL] = { "CIX_PULL_URL", NULL, 0, "where cix pull fetches from" },
	[CIX_ENV_GNU_URL] = { "CIX_GNU_URL", NULL, 0, "where cix refresh looks for releases" },
	[CIX_ENV_SSHOPTS] = { "CIX_SSHOPTS", NULL, 0,
			      "options ssh is given for ssh-ng:// stores, split at spaces" },
};

const char *cix_env(enum cix_env_var v)
{
	const char *s = getenv(vars[v].name);
	if (s && (*s || vars[v].empty_is_value))
		return s;
	return vars[v].dflt;
}

const char *cix_env_name(enum cix_env_var v)
{
	return vars[v].name;
}

const char *cix_env_doc(enum cix_env_var v)
{
	return vars[v].doc;
}
