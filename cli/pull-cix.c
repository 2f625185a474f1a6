/* pull-cix.c - cix pull --build-cix: the pulled commit's cix built, its programs in the generation */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "cix.h"
#include "build.h"
#include "lower.h"
#include "manifest.h"
#include "pull-ops.h"
#include "pull.h"
#include "store.h"
#include "strbuf.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_PATHS 4096

/*
 * The child: `cix build cix` by this very program, with the pulled item's
 * modules, compiled modules and data directory (its builder, its source
 * tarball), so that the package is the commit's own. Its standard output
 * (the output paths) comes back through fd; its progress and errors go to
 * the terminal.
 */
static int build_child(void *arg, int fd)
{
	const char *item = arg;
	struct strbuf data = STRBUF_INIT;
	int in = open("/dev/null", O_RDONLY);
	strbuf_addf(&data, "%s/" CIX_PULL_DATA, item);
	if (in < 0 || dup2(in, 0) < 0 || dup2(fd, 1) < 0 || pull_use_modules(item) < 0 ||
	    setenv("CIX_DATA_DIR", data.buf, 1) < 0)
		return 126;
	char *const argv[] = { "cix", "build", "cix", NULL };
	execv("/proc/self/exe", argv);
	dprintf(2, "cannot run cix again: %s\n", strerror(errno));
	return 127;
}

/* The output path of the commit's cix package, built (malloc'd into *out). */
static int build_package(struct cix_store *s, const char *item, char **out, struct cix_err *err)
{
	struct strbuf paths = STRBUF_INIT;
	const char *store = s->store_dir;
	size_t len = strlen(store), n;
	int status, r = 0;

	if (run_child(build_child, (void *)item, &paths, MAX_PATHS, &status, err) < 0)
		return err->code ? err->code : -EIO;
	n = strcspn(paths.buf, "\n");
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		r = cix_error(err, -CIX_EBUILD, "its cix package did not build (cix build cix: %s)",
			      WIFEXITED(status) ? "failed" : "killed");
	else if (strncmp(paths.buf, store, len) || paths.buf[len] != '/' ||
		 paths.buf[n] != '\n' || paths.buf[n + 1])
		r = cix_error(err, -CIX_EINVAL, "cix build cix gave no single output path");
	else
		*out = xstrndup(paths.buf, n);
	strbuf_release(&paths);
	return r;
}

/* What a cix must have to be used as the generation: its programs and modules. */
static int check_package(const char *path, struct cix_err *err)
{
	static const char *const need[] = {
		"bin/cix", "bin/cix-daemon", CIX_PULL_MODULES, CIX_PULL_DISTRO, CIX_PULL_GO,
	};
	for (size_t i = 0; i < sizeof(need) / sizeof(need[0]); i++) {
		struct strbuf p = STRBUF_INIT;
		struct stat st;
		strbuf_addf(&p, "%s/%s", path, need[i]);
		int bad = stat(p.buf, &st) < 0 || (i < 2 ? !S_ISREG(st.st_mode) || !(st.st_mode & 0111)
							 : !S_ISDIR(st.st_mode));
		strbuf_release(&p);
		if (bad)
			return cix_error(err, -CIX_EINVAL, "its cix package '%s' has no %s", path,
					 need[i]);
	}
	return 0;
}

/*
 * What the generation has beside the package: the commit's name and its
 * source tarball (hard-linked from the pulled item's tree), one small
 * store item.
 */
static int add_extras(struct cix_store *s, const char *tree, const char *commit,
		      const char *work, struct strbuf *out, struct cix_err *err)
{
	struct strbuf dir = STRBUF_INIT, data = STRBUF_INIT, from = STRBUF_INIT, to = STRBUF_INIT;
	DIR *d = NULL;
	struct dirent *de;
	int r;

	strbuf_addf(&dir, "%s/cix-pull-extras", work);
	strbuf_addf(&data, "%s/" CIX_PULL_DATA, dir.buf);
	if ((r = cix_mkdirs(data.buf, err)) < 0 || (r = pull_write_commit(dir.buf, commit, err)) < 0)
		goto out;
	strbuf_addf(&from, "%s/" CIX_PULL_DATA, tree);
	if ((d = opendir(from.buf)))
		while ((de = readdir(d))) {
			size_t n = strlen(de->d_name);
			if (strncmp(de->d_name, "cix-", 4) || n < 11 || strcmp(de->d_name + n - 7, ".tar.gz"))
				continue;
			strbuf_reset(&from);
			strbuf_reset(&to);
			strbuf_addf(&from, "%s/" CIX_PULL_DATA "/%s", tree, de->d_name);
			strbuf_addf(&to, "%s/%s", data.buf, de->d_name);
			if (link(from.buf, to.buf) < 0) {
				r = cix_error_errno(err, -errno, "cannot link '%s'", to.buf);
				goto out;
			}
		}
	r = cix_store_add(s, dir.buf, CIX_ADD_RECURSIVE, CIX_HASH_SHA256, out, err);
out:
	if (d)
		closedir(d);
	strbuf_release(&dir);
	strbuf_release(&data);
	strbuf_release(&from);
	strbuf_release(&to);
	return r;
}

/* The version in a store path's name, <hash>-cix-VERSION. */
static const char *version_of(const char *path)
{
	const char *base = strrchr(path, '/'), *v = base ? strstr(base, "-cix-") : NULL;
	return v ? v + 5 : "?";
}

int pull_build_cix(struct cix_store *s, const char *item, const char *tree, const char *commit,
		   const char *work, char **generation, struct cix_err *err)
{
	struct cix_lower l = { .store = s, .system = cix_build_this_system() };
	struct cix_build_opts bo = { .max_jobs = 1, .log_fd = 2 };
	struct cix_manifest m = { 0 };
	struct strbuf extras = STRBUF_INIT, text = STRBUF_INIT;
	char *pkg = NULL, *drv = NULL;
	int r;

	fprintf(stderr, "%s: building the cix of commit %.12s\n", cix_progname, commit);
	if ((r = build_package(s, item, &pkg, err)) < 0 || (r = check_package(pkg, err)) < 0 ||
	    (r = add_extras(s, tree, commit, work, &extras, err)) < 0)
		goto out;
	struct cix_manifest_entry *e = cix_manifest_add(&m, "cix", version_of(pkg), "out", pkg);
	strvec_push(&e->deps, extras.buf);
	cix_manifest_format(&m, &text);
	const char *paths[] = { pkg, extras.buf };
	if ((r = cix_lower_profile(&l, paths, 2, text.buf, &drv, generation, err)) < 0)
		goto out;
	r = cix_store_build(s, (const char *const *)&drv, 1, &bo, err);
out:
	cix_manifest_release(&m);
	strbuf_release(&extras);
	strbuf_release(&text);
	free(pkg);
	free(drv);
	return r;
}
