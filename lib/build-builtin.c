/* build-builtin.c - builtin:fetchurl runs as cix-builtin in the build's sandbox */
/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * A fetch on behalf of a client must not have the daemon's rights: run
 * by the daemon itself it would read any root-only file a file:// URL
 * names and tell its hash, or copy it into the store. So a builtin is a
 * builder like any other: the program cix-builtin, run in the sandbox as
 * the build user, seeing only its inputs, the libraries it loads, the
 * certificates, the mirror lists and the local content-addressed mirrors.
 */
#include "build-int.h"
#include "env.h"
#include "fetch.h"
#include "strbuf.h"
#include "util.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Where the sandbox shows cix-builtin's own files. */
#define INSIDE "/cix-builtin"

/* The host directories of the program's libraries, and what it reads in /etc. */
static const char *const system_paths[] = {
	"/usr", "/lib", "/lib64", "/lib32", "/libx32", "/etc/ld.so.cache", "/etc/ssl",
};

static void job_bind_path(struct cix_build_job *j, const char *host, const char *inside)
{
	strvec_push(&j->hosts, host);
	strvec_push(&j->insides, inside);
}

void cix_build_job_release(struct cix_build_job *j)
{
	strvec_clear(&j->argv);
	strvec_clear(&j->extra);
	strvec_clear(&j->hosts);
	strvec_clear(&j->insides);
}

static int is_kind(const char *path, mode_t kind)
{
	struct stat st;
	return stat(path, &st) == 0 && (st.st_mode & S_IFMT) == kind;
}

/* cix-builtin beside the running program, or in its ../libexec/cix. */
static int find_program(struct strbuf *out, struct cix_err *err)
{
	static const char *const places[] = {
		"/cix-builtin", "/../cix-builtin", "/../libexec/cix/cix-builtin",
	};
	char self[PATH_MAX], real[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n <= 0)
		return cix_error_errno(err, -errno, "cannot find the running program");
	self[n] = '\0';
	*strrchr(self, '/') = '\0';
	for (size_t i = 0; i < ARRAY_SIZE(places); i++) {
		strbuf_reset(out);
		strbuf_addf(out, "%s%s", self, places[i]);
		if (realpath(out->buf, real) && is_kind(real, S_IFREG) && !access(real, X_OK)) {
			strbuf_reset(out);
			strbuf_addstr(out, real);
			return 0;
		}
	}
	return cix_error(err, -CIX_ENOTFOUND, "cannot find cix-builtin beside '%s'", self);
}

/* Bind the host path (a file or directory of kind) at INSIDE/WHAT-N. */
static int bind_numbered(struct cix_build_job *j, const char *host, mode_t kind,
			 const char *what, size_t n, struct strbuf *inside)
{
	char real[PATH_MAX];
	if (!realpath(host, real) || !is_kind(real, kind))
		return 0;   /* missing: nothing to read there (as when run outside) */
	strbuf_reset(inside);
	strbuf_addf(inside, INSIDE "/%s-%zu", what, n);
	job_bind_path(j, real, inside->buf);
	return 1;
}

static void add_mirrors(struct cix_build_job *j, struct strbuf *inside)
{
	const char *file = cix_env(CIX_ENV_MIRRORS_FILE);
	if (bind_numbered(j, file, S_IFREG, "mirrors", 0, inside)) {
		struct strbuf arg = STRBUF_INIT;
		strbuf_addf(&arg, "--mirrors=%s", inside->buf);
		strvec_push(&j->argv, arg.buf);
		strbuf_release(&arg);
	}
}

/* $CIX_CAS_DIRS: URL prefixes as they are, directories bound. */
static void add_cas(struct cix_build_job *j, struct strbuf *inside)
{
	struct strvec dirs = STRVEC_INIT;
	struct strbuf arg = STRBUF_INIT;
	strvec_split(&dirs, cix_env(CIX_ENV_CAS_DIRS), " \t\n");
	for (size_t i = 0; i < dirs.nr; i++) {
		strbuf_reset(&arg);
		if (strstr(dirs.v[i], "://"))
			strbuf_addf(&arg, "--cas=%s", dirs.v[i]);
		else if (bind_numbered(j, dirs.v[i], S_IFDIR, "cas", i, inside))
			strbuf_addf(&arg, "--cas=%s", inside->buf);
		if (arg.len)
			strvec_push(&j->argv, arg.buf);
	}
	strbuf_release(&arg);
	strvec_clear(&dirs);
}

int cix_build_fetchurl_job(struct cix_build_job *j, int no_file_urls, struct cix_err *err)
{
	struct strbuf prog = STRBUF_INIT, inside = STRBUF_INIT;
	int r = find_program(&prog, err);
	if (r < 0)
		goto out;
	job_bind_path(j, prog.buf, INSIDE "/cix-builtin");
	j->builder = INSIDE "/cix-builtin";
	strvec_push(&j->argv, j->builder);
	strvec_push(&j->argv, "fetchurl");
	if (no_file_urls)
		strvec_push(&j->argv, "--no-file-urls");
	add_mirrors(j, &inside);
	add_cas(j, &inside);
	for (size_t i = 0; i < ARRAY_SIZE(system_paths); i++)
		if (access(system_paths[i], F_OK) == 0)
			strvec_push(&j->extra, system_paths[i]);
out:
	strbuf_release(&prog);
	strbuf_release(&inside);
	return r;
}
