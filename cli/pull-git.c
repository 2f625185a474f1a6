/* pull-git.c - cix pull: the repository fetched by git into a cached clone, a commit extracted */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "cix.h"
#include "env.h"
#include "pull-ops.h"
#include "pull.h"
#include "encoding.h"
#include "hash.h"
#include "remove.h"
#include "strbuf.h"
#include "util.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_OUTPUT (64 << 10)
#define FETCHED "refs/cix-pull/fetched"


/* What a failed command said: its "fatal:" or "error:" line, else its last line. */
static int failed(struct cix_err *err, const struct strbuf *out, int status, const char *what)
{
	const char *line = NULL, *l = out->buf, *last = NULL;
	while (*l) {
		const char *eol = strchrnul(l, '\n');
		if (eol > l) {
			last = l;
			if (!line && (!strncmp(l, "fatal: ", 7) || !strncmp(l, "error: ", 7)))
				line = l;
		}
		l = *eol ? eol + 1 : eol;
	}
	if (!line)
		line = last;
	if (!line)
		return cix_error(err, -CIX_EINVAL, "%s (exit status %d)", what, status);
	return cix_error(err, -CIX_EINVAL, "%s: %.*s", what, (int)strcspn(line, "\n"), line);
}

int pull_cache_dir(char **out, struct cix_err *err)
{
	const char *cache = cix_env(CIX_ENV_XDG_CACHE_HOME), *home = cix_env(CIX_ENV_HOME);
	struct strbuf sb = STRBUF_INIT;
	int r;
	*out = NULL;
	if (cache && cache[0] == '/')
		strbuf_addf(&sb, "%s/cix/pull", cache);
	else if (home && home[0] == '/')
		strbuf_addf(&sb, "%s/.cache/cix/pull", home);
	else
		return cix_error(err, -CIX_EINVAL, "HOME is not set: nowhere to keep the clone");
	if ((r = cix_mkdirs(sb.buf, err)) < 0) {
		strbuf_release(&sb);
		return r;
	}
	*out = strbuf_detach(&sb, NULL);
	return 0;
}

int pull_branch_ok(const char *s)
{
	size_t n = strlen(s);
	if (!n || n > 200 || s[0] == '-' || s[0] == '/' || s[n - 1] == '/' || s[n - 1] == '.' ||
	    strstr(s, "..") || strstr(s, "//") || strstr(s, "@{") || strstr(s, "/.") ||
	    s[0] == '.' || (n >= 5 && !strcmp(s + n - 5, ".lock")))
		return 0;
	for (; *s; s++)
		if ((unsigned char)*s <= ' ' || *s == 0x7f || strchr("~^:?*[\\", *s))
			return 0;
	return 1;
}

int pull_commit_ok(const char *s)
{
	size_t n = strspn(s, "0123456789abcdefABCDEF");
	return n >= 4 && n <= 64 && !s[n];
}

void pull_repo_close(struct pull_repo *r)
{
	free(r->dir);
	r->dir = NULL;
	if (r->lock_fd >= 0)
		close(r->lock_fd);
	r->lock_fd = -1;
}

/* CACHE/KEY.git made (as a temporary renamed into place) and locked. */
static int repo_open(struct pull_repo *r, const char *url, struct strbuf *out,
		     struct cix_err *err)
{
	struct strbuf base = STRBUF_INIT, name = STRBUF_INIT, tmp = STRBUF_INIT;
	struct cix_hash h;
	struct stat st;
	char *cache;
	int rc;

	if ((rc = pull_cache_dir(&cache, err)) < 0)
		return rc;
	cix_hash_buf(CIX_HASH_SHA256, url, strlen(url), &h);
	strbuf_addf(&base, "%s/", cache);
	cix_base16_encode(&base, h.bytes, 16);
	free(cache);
	strbuf_addf(&name, "%s.lock", base.buf);
	r->lock_fd = open(name.buf, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (r->lock_fd < 0) {
		rc = cix_error_errno(err, -errno, "cannot open '%s'", name.buf);
		goto out;
	}
	while ((rc = flock(r->lock_fd, LOCK_EX)) < 0 && errno == EINTR)
		;
	if (rc < 0) {
		rc = cix_error_errno(err, -errno, "cannot lock '%s'", name.buf);
		goto out;
	}
	strbuf_reset(&name);
	strbuf_addf(&name, "%s.git", base.buf);
	r->dir = xstrdup(name.buf);
	strbuf_addstr(&name, "/HEAD");
	if (lstat(name.buf, &st) == 0)
		goto out;
	r->fresh = 1;
	/* None yet, or a crashed run's: made again. */
	strbuf_addf(&tmp, "%s.git.tmp", base.buf);
	if ((rc = cix_remove_tree_at(AT_FDCWD, tmp.buf, err)) < 0 ||
	    (rc = cix_remove_tree_at(AT_FDCWD, r->dir, err)) < 0)
		goto out;
	const char *init[] = { "git", "init", "--quiet", "--bare", tmp.buf, NULL };
	if ((rc = run_program(init, out, MAX_OUTPUT, err)) != 0) {
		rc = rc < 0 ? err->code : failed(err, out, rc, "git init failed");
		goto out;
	}
	if (rename(tmp.buf, r->dir) < 0)
		rc = cix_error_errno(err, -errno, "cannot rename '%s'", tmp.buf);
out:
	strbuf_release(&base);
	strbuf_release(&name);
	strbuf_release(&tmp);
	return rc < 0 ? rc : 0;
}

/* `git --git-dir=DIR fetch ... -- URL REFSPEC...`: 0, or git's status with out. */
static int fetch(struct pull_repo *r, const char *url, const char *spec1, const char *spec2,
		 struct strbuf *out, struct cix_err *err)
{
	struct strbuf gd = STRBUF_INIT;
	strbuf_addf(&gd, "--git-dir=%s", r->dir);
	const char *argv[] = { "git", gd.buf, "fetch", "--quiet", "--force", "--no-tags",
			       "--no-write-fetch-head", "--", url, spec1, spec2, NULL };
	int rc = run_program(argv, out, MAX_OUTPUT, err);
	strbuf_release(&gd);
	return rc;
}

/* The full name of rev's commit into full; 1 when there is none. */
static int resolve(struct pull_repo *r, const char *rev, struct strbuf *full, struct cix_err *err)
{
	struct strbuf gd = STRBUF_INIT, spec = STRBUF_INIT;
	strbuf_addf(&gd, "--git-dir=%s", r->dir);
	strbuf_addf(&spec, "%s^{commit}", rev);
	const char *argv[] = { "git", gd.buf, "rev-parse", "--verify", "--quiet", "--end-of-options",
			       spec.buf, NULL };
	int rc = run_program(argv, full, MAX_OUTPUT, err);
	strbuf_release(&gd);
	strbuf_release(&spec);
	if (rc < 0)
		return err->code;
	while (full->len && isspace((unsigned char)full->buf[full->len - 1]))
		strbuf_setlen(full, full->len - 1);
	if (rc != 0 || full->len < 40 || strspn(full->buf, "0123456789abcdef") != full->len)
		return 1;
	return 0;
}

int pull_fetch(struct pull_repo *r, const char *url, const char *branch, const char *commit,
	       struct strbuf *full, struct cix_err *err)
{
	struct strbuf out = STRBUF_INIT, spec = STRBUF_INIT;
	int rc;

	r->dir = NULL;
	r->lock_fd = -1;
	r->fresh = 0;
	if ((rc = repo_open(r, url, &out, err)) < 0)
		goto out;
	if (commit) {
		/* Every branch and tag; a commit none of them has, by its full name. */
		rc = fetch(r, url, "+refs/heads/*:refs/cix-pull/heads/*",
			   "+refs/tags/*:refs/cix-pull/tags/*", &out, err);
		if (rc == 0 && (rc = resolve(r, commit, full, err)) == 1 &&
		    (strlen(commit) == 40 || strlen(commit) == 64)) {
			strbuf_addf(&spec, "+%s:%s", commit, FETCHED);
			if (fetch(r, url, spec.buf, NULL, &out, err) >= 0)
				rc = resolve(r, commit, full, err);
		}
		if (rc == 1)
			rc = cix_error(err, -CIX_ENOTFOUND, "no commit '%s' in '%s'", commit, url);
	} else {
		if (branch)
			strbuf_addf(&spec, "+refs/heads/%s:%s", branch, FETCHED);
		else
			strbuf_addstr(&spec, "+HEAD:" FETCHED);
		if ((rc = fetch(r, url, spec.buf, NULL, &out, err)) == 0 &&
		    (rc = resolve(r, FETCHED, full, err)) == 1)
			rc = cix_error(err, -CIX_ENOTFOUND, "'%s' gave no commit", url);
	}
	if (rc > 0) {
		strbuf_reset(&spec);
		strbuf_addf(&spec, "cannot fetch from '%s'", url);
		rc = failed(err, &out, rc, spec.buf);
	} else if (rc < 0 && err->code < 0) {
		rc = err->code;
	}
out:
	strbuf_release(&out);
	strbuf_release(&spec);
	/* A clone that never fetched anything (a bad URL) is not kept. */
	if (rc < 0 && r->fresh && r->dir)
		cix_remove_tree_at(AT_FDCWD, r->dir, NULL);
	if (rc < 0)
		pull_repo_close(r);
	return rc < 0 ? rc : 0;
}

static int move(const char *work, const char *from, const char *tree, const char *to,
		struct cix_err *err)
{
	struct strbuf a = STRBUF_INIT, b = STRBUF_INIT;
	int r = 0;
	strbuf_addf(&a, "%s/src/%s", work, from);
	strbuf_addf(&b, "%s/%s", tree, to);
	if (rename(a.buf, b.buf) < 0)
		r = cix_error_errno(err, -errno, "cannot rename '%s'", a.buf);
	strbuf_release(&a);
	strbuf_release(&b);
	return r;
}

int pull_write_commit(const char *tree, const char *commit, struct cix_err *err)
{
	struct strbuf path = STRBUF_INIT, line = STRBUF_INIT;
	int fd, r;
	strbuf_addf(&path, "%s/" CIX_PULL_COMMIT, tree);
	strbuf_addf(&line, "%s\n", commit);
	if ((fd = open(path.buf, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644)) < 0) {
		r = -errno;
	} else {
		r = cix_write_full(fd, line.buf, line.len);
		if (close(fd) < 0 && r == 0)
			r = -errno;
	}
	if (r < 0)
		r = cix_error_errno(err, r, "cannot write '%s'", path.buf);
	strbuf_release(&path);
	strbuf_release(&line);
	return r;
}

/*
 * The VERSION the commit's Makefile sets ("VERSION := 0.1.0", the first
 * such line), into v; 0 when it has no Makefile or no such line.
 */
static int makefile_version(const char *gd, const char *commit, struct strbuf *v,
			    struct cix_err *err)
{
	struct strbuf out = STRBUF_INIT, spec = STRBUF_INIT;
	const char *l, *next;
	int rc;
	strbuf_addf(&spec, "%s:Makefile", commit);
	const char *show[] = { "git", gd, "show", "--end-of-options", spec.buf, NULL };
	rc = run_program(show, &out, MAX_OUTPUT, err);
	strbuf_release(&spec);
	if (rc != 0) {
		strbuf_release(&out);
		return rc < 0 ? err->code : 0;
	}
	for (l = out.buf; *l; l = *next ? next + 1 : next) {
		const char *p = l + 7;
		size_t n;
		next = strchrnul(l, '\n');
		if (strncmp(l, "VERSION", 7))
			continue;
		p += strspn(p, " \t");
		if (*p == ':')
			p++;
		if (*p != '=')
			continue;
		p += 1 + strspn(p + 1, " \t");
		n = strspn(p, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789.+~_-");
		if (n && n <= 64 && (p + n == next || strchr(" \t#", p[n])))
			strbuf_add(v, p, n);
		break;
	}
	strbuf_release(&out);
	return 0;
}

/*
 * The commit's whole tree as `make install' keeps it (pkg/pull.h:
 * CIX_PULL_DATA/cix-VERSION.tar.gz), the source the cix package of its
 * distribution builds; none when the Makefile says no VERSION.
 */
static int source_tarball(const char *gd, const char *commit, const char *tree,
			  struct cix_err *err)
{
	struct strbuf v = STRBUF_INIT, file = STRBUF_INIT, prefix = STRBUF_INIT;
	struct strbuf out = STRBUF_INIT;
	int rc;
	if ((rc = makefile_version(gd, commit, &v, err)) < 0 || !v.len)
		goto out;
	strbuf_addf(&file, "%s/" CIX_PULL_DATA "/cix-%s.tar.gz", tree, v.buf);
	strbuf_addf(&prefix, "--prefix=cix-%s/", v.buf);
	const char *archive[] = { "git", gd, "archive", "--format=tar.gz", prefix.buf,
				  "-o", file.buf, commit, NULL };
	if ((rc = run_program(archive, &out, MAX_OUTPUT, err)) != 0)
		rc = rc < 0 ? err->code : failed(err, &out, rc, "git archive failed");
out:
	strbuf_release(&v);
	strbuf_release(&file);
	strbuf_release(&prefix);
	strbuf_release(&out);
	return rc < 0 ? rc : 0;
}

int pull_extract(struct pull_repo *r, const char *commit, const char *work, const char *tree,
		 struct cix_err *err)
{
	struct strbuf gd = STRBUF_INIT, out = STRBUF_INIT, tar = STRBUF_INIT, sb = STRBUF_INIT;
	int rc, builder;

	strbuf_addf(&gd, "--git-dir=%s", r->dir);
	strbuf_addf(&tar, "%s/src.tar", work);
	/* Which of the trees the commit has. */
	const char *ls[] = { "git", gd.buf, "ls-tree", "-d", "--name-only", "--end-of-options",
			     commit, "scheme/modules", "distro", "builder", NULL };
	if ((rc = run_program(ls, &out, MAX_OUTPUT, err)) != 0) {
		rc = rc < 0 ? err->code : failed(err, &out, rc, "cannot read the commit");
		goto out;
	}
	strbuf_addf(&sb, "\n%s", out.buf);
	if (!strstr(sb.buf, "\nscheme/modules\n") || !strstr(sb.buf, "\ndistro\n")) {
		rc = cix_error(err, -CIX_ENOTFOUND, "commit %.12s has no scheme/modules and distro:"
			       " not a repository of cix", commit);
		goto out;
	}
	builder = strstr(sb.buf, "\nbuilder\n") != NULL;
	const char *archive[] = { "git", gd.buf, "archive", "--format=tar", "-o", tar.buf,
				  commit, "--", "scheme/modules", "distro",
				  builder ? "builder" : NULL, NULL };
	if ((rc = run_program(archive, &out, MAX_OUTPUT, err)) != 0) {
		rc = rc < 0 ? err->code : failed(err, &out, rc, "git archive failed");
		goto out;
	}
	strbuf_reset(&sb);
	strbuf_addf(&sb, "%s/src", work);
	if (mkdir(sb.buf, 0755) < 0) {
		rc = cix_error_errno(err, -errno, "cannot create '%s'", sb.buf);
		goto out;
	}
	const char *untar[] = { "tar", "-x", "--no-same-owner", "-f", tar.buf, "-C", sb.buf, NULL };
	if ((rc = run_program(untar, &out, MAX_OUTPUT, err)) != 0) {
		rc = rc < 0 ? err->code : failed(err, &out, rc, "cannot unpack the commit");
		goto out;
	}
	unlink(tar.buf);
	strbuf_reset(&sb);
	strbuf_addf(&sb, "%s/" CIX_PULL_GO, tree);
	if ((rc = cix_mkdirs(sb.buf, err)) < 0)
		goto out;
	strbuf_reset(&sb);
	strbuf_addf(&sb, "%s/" CIX_PULL_DATA, tree);
	if ((rc = cix_mkdirs(sb.buf, err)) < 0 ||
	    (rc = move(work, "scheme/modules", tree, CIX_PULL_MODULES, err)) < 0 ||
	    (rc = move(work, "distro", tree, CIX_PULL_DISTRO, err)) < 0 ||
	    (builder && (rc = move(work, "builder", tree, CIX_PULL_BUILDER, err)) < 0))
		goto out;
	if ((rc = pull_write_commit(tree, commit, err)) < 0)
		goto out;
	rc = source_tarball(gd.buf, commit, tree, err);
out:
	strbuf_release(&gd);
	strbuf_release(&out);
	strbuf_release(&tar);
	strbuf_release(&sb);
	return rc < 0 ? rc : 0;
}
