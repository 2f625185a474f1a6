/* pull-ops.h - cix pull: the repository's commit fetched, built into the store (pull-*.c) */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef CIX_CLI_PULL_OPS_H
#define CIX_CLI_PULL_OPS_H

#include "err.h"
#include "strbuf.h"

/*
 * pull-git.c: the clone kept in CACHE/pull/KEY.git (CACHE: $XDG_CACHE_HOME/cix
 * or ~/.cache/cix; KEY: of the URL), a bare repository updated by `git
 * fetch`, used under CACHE/pull/KEY.lock.
 */
struct pull_repo {
	char *dir;         /* the bare repository */
	int lock_fd;
	int fresh;         /* made by this run */
};

/* The pull cache's directory (malloc'd), made when missing. */
int pull_cache_dir(char **out, struct cix_err *err);

/*
 * Fetch url into the cache's clone and resolve what is asked: the commit
 * named (full or abbreviated hexadecimal), else the head of branch, else
 * the remote's HEAD; full receives its full name. r is locked until
 * pull_repo_close.
 */
int pull_fetch(struct pull_repo *r, const char *url, const char *branch, const char *commit,
	       struct strbuf *full, struct cix_err *err);
void pull_repo_close(struct pull_repo *r);

/*
 * The commit's trees scheme/modules and distro (and builder, when it has
 * one) laid out below tree as pkg/pull.h says, with the file naming the
 * commit, and the commit's source tarball when its Makefile names a
 * VERSION (CIX_PULL_DATA/cix-VERSION.tar.gz); work is a scratch directory.
 */
int pull_extract(struct pull_repo *r, const char *commit, const char *work, const char *tree,
		 struct cix_err *err);
/* tree/CIX_PULL_COMMIT, naming commit (a new file). */
int pull_write_commit(const char *tree, const char *commit, struct cix_err *err);

/* Is s a name git-fetch may take as a branch (refs/heads/s)? */
int pull_branch_ok(const char *s);
/* Is s hexadecimal, 4 to 64 digits? */
int pull_commit_ok(const char *s);

/*
 * pull-build.c: every module of the tree compiled into its lib/cix/scheme/go
 * (by this program's Guile, in a child process); then, once in the store
 * at path, the package index made from it: the first module that does not
 * load, compile or evaluate is the error.
 */
int pull_compile(const char *tree, size_t *nr_modules, struct cix_err *err);
/* This process's CIX_SCHEME_PATH and CIX_SCHEME_COMPILED_PATH: item's modules (-errno). */
int pull_use_modules(const char *item);
int pull_validate(const char *path, size_t *nr_packages, struct cix_err *err);

/*
 * pull-cix.c, for --build-cix: the cix package of the pulled item's
 * distribution (item: its store path; tree: the same, still in work) built
 * by `cix build cix` with the item's modules, which must give bin/cix,
 * bin/cix-daemon and the modules compiled; then the generation, a profile
 * (builtin:profile) of that package and a small item holding the commit's
 * name and source tarball, built: *generation, malloc'd.
 */
struct cix_store;
int pull_build_cix(struct cix_store *s, const char *item, const char *tree, const char *commit,
		   const char *work, char **generation, struct cix_err *err);

#endif
