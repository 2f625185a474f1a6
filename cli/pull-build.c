/* pull-build.c - cix pull: the collection's modules compiled, and checked by indexing it */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "cix.h"
#include "index.h"
#include "pull-ops.h"
#include "pull.h"
#include "scheme.h"
#include "strbuf.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_MESSAGE 4096

/*
 * Guile compiles in a child: this process has not started it, and must
 * not have the new modules loaded from their temporary directory (it
 * evaluates them again from the store to index them). The child's error
 * comes back through a pipe.
 */
struct compile {
	const char *dirs[2];
	const char *go;
};

/* In the child: compile, and say how many modules or why not. */
static int compile_child(void *arg, int fd)
{
	struct compile *cp = arg;
	struct cix_err e = { 0 };
	size_t count = 0;
	char buf[32];
	if (cix_scheme_compile_modules(cp->dirs, 2, cp->go, &count, &e) < 0) {
		cix_write_full(fd, e.msg, strlen(e.msg));
		return 1;
	}
	snprintf(buf, sizeof(buf), "%zu", count);
	cix_write_full(fd, buf, strlen(buf));
	return 0;
}

int pull_compile(const char *tree, size_t *nr_modules, struct cix_err *err)
{
	struct strbuf mods = STRBUF_INIT, distro = STRBUF_INIT, go = STRBUF_INIT;
	struct strbuf msg = STRBUF_INIT;
	int status, r = 0;

	*nr_modules = 0;
	strbuf_addf(&mods, "%s/" CIX_PULL_MODULES, tree);
	strbuf_addf(&distro, "%s/" CIX_PULL_DISTRO, tree);
	cix_pull_compiled_path(tree, &go);
	struct compile cp = { { mods.buf, distro.buf }, go.buf };
	if (run_child(compile_child, &cp, &msg, MAX_MESSAGE, &status, err) < 0) {
		r = err->code ? err->code : -EIO;
		goto out;
	}
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
		unsigned long long v;
		if (cix_parse_decimal(msg.buf, 1000000, &v) == 0)
			*nr_modules = (size_t)v;
	} else if (WIFEXITED(status) && msg.len) {
		r = cix_error(err, -CIX_EINVAL, "%.*s", (int)strcspn(msg.buf, "\n"), msg.buf);
	} else if (WIFSIGNALED(status)) {
		r = cix_error(err, -CIX_EINVAL, "compiling the modules was killed by signal %d",
			      WTERMSIG(status));
	} else {
		r = cix_error(err, -CIX_EINVAL, "compiling the modules failed (exit status %d)",
			      WEXITSTATUS(status));
	}
out:
	strbuf_release(&mods);
	strbuf_release(&distro);
	strbuf_release(&go);
	strbuf_release(&msg);
	return r;
}

int pull_use_modules(const char *item)
{
	struct strbuf search = STRBUF_INIT, compiled = STRBUF_INIT;
	int r = 0;
	cix_pull_search_path(item, &search);
	cix_pull_compiled_path(item, &compiled);
	if (setenv("CIX_SCHEME_PATH", search.buf, 1) < 0 ||
	    setenv("CIX_SCHEME_COMPILED_PATH", compiled.buf, 1) < 0)
		r = -errno;
	strbuf_release(&search);
	strbuf_release(&compiled);
	return r;
}

/*
 * The package index of the store item, made as any command using it will
 * make it (the same search path, so kept for them): every package module
 * must evaluate, and give a package at least.
 */
int pull_validate(const char *path, size_t *nr_packages, struct cix_err *err)
{
	struct cix_pkg_index idx;
	int r;

	*nr_packages = 0;
	memset(&idx, 0, sizeof(idx));
	if ((r = pull_use_modules(path)) < 0) {
		r = cix_error_errno(err, r, "cannot set the environment");
		goto out;
	}
	if ((r = index_load(&idx, 0, err)) < 0)
		goto out;
	for (size_t i = 0; i < idx.nr_mods; i++) {
		const char *e = idx.mods[i].error;
		if (e) {
			r = strstr(e, idx.mods[i].rel)
				    ? cix_error(err, -CIX_EINVAL, "%s", e)
				    : cix_error(err, -CIX_EINVAL, "%s: %s", idx.mods[i].rel, e);
			goto out;
		}
		*nr_packages += idx.mods[i].nr_pkgs;
	}
	if (!*nr_packages)
		r = cix_error(err, -CIX_ENOTFOUND, "it has no package");
out:
	cix_pkg_index_release(&idx);
	return r;
}
