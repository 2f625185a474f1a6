/* profile-build.c - builtin:profile: a profile generation as a union of symlinks */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "profile-build.h"
#include "profile-union.h"
#include "quote.h"
#include "strbuf.h"
#include "strvec.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The next line of *p (its length in *len), or NULL at the end. */
static const char *next_line(const char **p, size_t *len)
{
	const char *s = *p, *nl;
	if (!*s)
		return NULL;
	nl = strchr(s, '\n');
	*len = nl ? (size_t)(nl - s) : strlen(s);
	*p = nl ? nl + 1 : s + *len;
	return s;
}

static int conflict(struct union_ctx *c, const struct union_src *srcs,
		    const struct union_ent *ents, size_t f, size_t g)
{
	struct strbuf a = STRBUF_INIT, b = STRBUF_INIT;
	char q[128];
	cix_union_pkg_name(c, srcs[ents[f < g ? f : g].src].pkg, &a);
	cix_union_pkg_name(c, srcs[ents[f < g ? g : f].src].pkg, &b);
	int r = cix_error(c->err, -CIX_EEXIST, "conflict: '%s' is in both '%s' and '%s'",
			  cix_quote(q, sizeof(q), c->rel.buf, c->rel.len), a.buf, b.buf);
	strbuf_release(&a);
	strbuf_release(&b);
	return r;
}

/*
 * builtin:profile's rule for a name in k sources at once, those of
 * ents[0..k): one link when they are one file, a directory of OUT when
 * all of them are directories, a conflict otherwise.
 */
static int profile_name(struct union_ctx *c, int outfd, const struct union_src *srcs,
			const struct union_ent *ents, size_t k, int depth)
{
	const char *name = ents[0].name;
	char **from = xcalloc(k, sizeof(*from)), **real = xcalloc(k, sizeof(*real));
	struct union_src *sub = NULL;
	int *isdir = xcalloc(k, sizeof(*isdir)), alldirs = 1, same = 1, r = 0, fd = -1;
	size_t f = 0, g = 0;

	for (size_t x = 0; x < k; x++) {
		struct stat st;
		from[x] = cix_union_join(srcs[ents[x].src].dir, name);
		/* One source: a link, whatever it is (no need to look). */
		if (k == 1)
			break;
		real[x] = realpath(from[x], NULL);
		isdir[x] = real[x] && stat(real[x], &st) == 0 && S_ISDIR(st.st_mode) &&
			cix_union_under_roots(c, real[x]);
		alldirs &= isdir[x];
	}
	/* One file (or directory) reached through several names. */
	for (size_t x = 1; x < k; x++)
		if (strcmp(from[x], from[0]) &&
		    (!real[x] || !real[0] || strcmp(real[x], real[0])))
			same = 0;
	if (same) {
		r = cix_union_link(c, outfd, name, from[0]);
		goto out;
	}
	if (!alldirs) {
		/* A non-directory, and another name that is not the same file. */
		while (isdir[f])
			f++;
		for (g = 0; g < k; g++)
			if (g != f && strcmp(from[g], from[f]) &&
			    (!real[g] || !real[f] || strcmp(real[g], real[f])))
				break;
		if (g == k)
			BUG("no conflicting name for '%s'", c->rel.buf);
		r = conflict(c, srcs, ents, f, g);
		goto out;
	}
	if ((r = fd = cix_union_subdir(c, outfd, name, depth)) < 0)
		goto out;
	sub = xcalloc(k, sizeof(*sub));
	for (size_t x = 0; x < k; x++) {
		sub[x].pkg = srcs[ents[x].src].pkg;
		sub[x].dir = from[x];
	}
	r = cix_union_merge(c, fd, sub, k, depth + 1);
out:
	if (fd >= 0)
		close(fd);
	for (size_t x = 0; x < k; x++) {
		free(from[x]);
		free(real[x]);
	}
	free(sub);
	free(from);
	free(real);
	free(isdir);
	return r;
}

/* The profile's own manifest wins over a package's. */
static int profile_skip(const struct union_ctx *c, const char *name, int depth)
{
	return depth == 0 && !strcmp(name, "manifest");
}

/* The listed paths into c->pkgs, and the directories holding them into c->roots. */
static int parse_paths(struct union_ctx *c, const char *paths)
{
	const char *p = paths, *line;
	size_t len;
	char q[128];

	while ((line = next_line(&p, &len))) {
		struct stat st;
		char *path;
		int r;
		if (!len)
			continue;
		path = xstrndup(line, len);
		if (path[0] != '/') {
			cix_error(c->err, -CIX_EINVAL, "'%s' is not an absolute path",
				  cix_quote(q, sizeof(q), line, len));
			free(path);
			return -CIX_EINVAL;
		}
		while (len > 1 && path[len - 1] == '/')
			path[--len] = '\0';
		if (stat(path, &st) < 0) {
			int e = errno;
			free(path);
			return cix_error_errno(c->err, -e, "cannot stat '%s'",
					       cix_quote(q, sizeof(q), line, len));
		}
		if (!S_ISDIR(st.st_mode)) {
			free(path);
			return cix_error(c->err, -CIX_EINVAL, "'%s' is not a directory",
					 cix_quote(q, sizeof(q), line, len));
		}
		strvec_push(&c->pkgs, path);
		r = cix_union_add_root(c, path);
		free(path);
		if (r < 0)
			return r;
	}
	return 0;
}

static int write_manifest(int outfd, const char *out, const char *manifest, struct cix_err *err)
{
	int fd = openat(outfd, "manifest", O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
			0444);
	int r;
	if (fd < 0)
		return cix_error_errno(err, -errno, "cannot create '%s/manifest'", out);
	r = cix_write_full(fd, manifest, strlen(manifest));
	if (!r && fchmod(fd, 0444) < 0)
		r = -errno;
	if (close(fd) < 0 && !r)
		r = -errno;
	if (r < 0)
		return cix_error_errno(err, r, "cannot write '%s/manifest'", out);
	return 0;
}

int cix_builtin_profile(const char *paths, const char *manifest, const char *out,
			struct cix_err *err)
{
	struct union_ctx c = { STRVEC_INIT, STRVEC_INIT, STRBUF_INIT, err, profile_skip,
			       profile_name };
	struct union_src *srcs = NULL;
	int outfd = -1, r;

	if ((r = parse_paths(&c, paths)) < 0 || (r = outfd = cix_union_make_out(out, err)) < 0)
		goto out;
	srcs = xcalloc(c.pkgs.nr + 1, sizeof(*srcs));
	for (size_t i = 0; i < c.pkgs.nr; i++) {
		srcs[i].pkg = i;
		srcs[i].dir = c.pkgs.v[i];
	}
	if ((r = cix_union_merge(&c, outfd, srcs, c.pkgs.nr, 0)) < 0)
		goto out;
	r = write_manifest(outfd, out, manifest, err);
out:
	if (outfd >= 0)
		close(outfd);
	free(srcs);
	cix_union_release(&c);
	return r;
}

/* ---- the builder, for lib/build.c ---- */

int cix_build_run_profile(const struct cix_drv *drv, const char *drv_path,
			  const char *store_dir, const char *root,
			  const struct cix_db_graph *inputs, struct cix_err *err)
{
	const char *paths = cix_drv_getenv(drv, "paths");
	const char *manifest = cix_drv_getenv(drv, "manifest");
	const char *p, *line;
	struct strbuf out = STRBUF_INIT;
	size_t len;
	int r = 0;

	if (!paths)
		return cix_error(err, -CIX_EINVAL, "attribute 'paths' missing");
	/* Only what the build may see: its input closure. */
	for (p = paths; (line = next_line(&p, &len)); ) {
		if (!len || cix_build_is_input(inputs, line, len))
			continue;
		strbuf_add_quoted(&out, line, len);
		r = cix_error(err, -CIX_EINVAL, "'%s' is not an input of '%s'", out.buf, drv_path);
		strbuf_release(&out);
		return r;
	}
	if (!(r = cix_union_out_path(drv, drv_path, store_dir, root, &out, err)))
		r = cix_builtin_profile(paths, manifest ? manifest : "", out.buf, err);
	strbuf_release(&out);
	return r;
}
