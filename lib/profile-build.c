/* profile-build.c - builtin:profile: a profile generation as a union of symlinks */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "profile.h"
#include "profile-build.h"
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

/* Directories of OUT nested in one another, at most. */
#define PROFILE_MAX_DEPTH 64

/* One package's directory merged at the current level. */
struct src {
	size_t pkg;   /* its package: an index in union_ctx.pkgs */
	char *dir;    /* its file name, the package's path or below it */
};

/* A name found in one of the level's sources. */
struct ent {
	char *name;
	size_t src;   /* index of its source: the packages' order */
};

struct union_ctx {
	struct strvec pkgs;   /* the paths listed, in order */
	/*
	 * The real paths of the directories holding them (the store): only
	 * directories found below one of them are merged, so that a link in
	 * a package never gets a directory of the host listed.
	 */
	struct strvec roots;
	struct strbuf rel;    /* the name below OUT being made */
	struct cix_err *err;
};

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

static int under_roots(const struct union_ctx *c, const char *real)
{
	for (size_t i = 0; i < c->roots.nr; i++) {
		const char *root = c->roots.v[i];
		size_t n = strlen(root);
		if (!strcmp(root, "/") ||
		    (!strncmp(real, root, n) && (real[n] == '/' || !real[n])))
			return 1;
	}
	return 0;
}

static char *join(const char *dir, const char *name)
{
	struct strbuf sb = STRBUF_INIT;
	size_t n = strlen(dir);
	strbuf_addstr(&sb, dir);
	if (!n || dir[n - 1] != '/')
		strbuf_addch(&sb, '/');
	strbuf_addstr(&sb, name);
	return strbuf_detach(&sb, NULL);
}

static int cmp_ent(const void *a, const void *b)
{
	const struct ent *x = a, *y = b;
	int c = strcmp(x->name, y->name);
	if (c)
		return c;
	return x->src < y->src ? -1 : x->src > y->src;
}

static void ents_free(struct ent *v, size_t nr)
{
	for (size_t i = 0; i < nr; i++)
		free(v[i].name);
	free(v);
}

/* The names in the sources, sorted by name, then in the packages' order. */
static int read_sources(struct union_ctx *c, const struct src *srcs, size_t n, int top,
			struct ent **out, size_t *out_nr)
{
	struct ent *v = NULL;
	size_t nr = 0, alloc = 0;
	char q[128];
	int r = 0;

	for (size_t i = 0; !r && i < n; i++) {
		int fd = open(srcs[i].dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		DIR *d = fd < 0 ? NULL : fdopendir(fd);
		struct dirent *de;
		if (!d) {
			r = cix_error_errno(c->err, -errno, "cannot open '%s'",
					    cix_quote(q, sizeof(q), srcs[i].dir, strlen(srcs[i].dir)));
			if (fd >= 0)
				close(fd);
			break;
		}
		for (;;) {
			errno = 0;
			if (!(de = readdir(d))) {
				if (errno)
					r = cix_error_errno(c->err, -errno, "cannot read '%s'",
							    cix_quote(q, sizeof(q), srcs[i].dir,
								      strlen(srcs[i].dir)));
				break;
			}
			if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
				continue;
			/* The profile's own manifest wins over a package's. */
			if (top && !strcmp(de->d_name, "manifest"))
				continue;
			ALLOC_GROW(v, nr + 1, alloc);
			v[nr].name = xstrdup(de->d_name);
			v[nr++].src = i;
		}
		closedir(d);
	}
	if (r < 0) {
		ents_free(v, nr);
		return r;
	}
	if (nr)
		qsort(v, nr, sizeof(*v), cmp_ent);
	*out = v;
	*out_nr = nr;
	return 0;
}

static int make_link(struct union_ctx *c, int outfd, const char *name, const char *target)
{
	char q[128];
	if (symlinkat(target, outfd, name) < 0)
		return cix_error_errno(c->err, -errno, "cannot create the link '%s'",
				       cix_quote(q, sizeof(q), c->rel.buf, c->rel.len));
	return 0;
}

static int merge(struct union_ctx *c, int outfd, const struct src *srcs, size_t n, int depth);

/*
 * The name (c->rel below OUT) of k sources at once, those of ents[0..k):
 * one link when they are one file, a directory of OUT when all of them are
 * directories, a conflict otherwise.
 */
static int merge_name(struct union_ctx *c, int outfd, const struct src *srcs,
		      const struct ent *ents, size_t k, int depth)
{
	const char *name = ents[0].name;
	char **from = xcalloc(k, sizeof(*from)), **real = xcalloc(k, sizeof(*real));
	struct src *sub = NULL;
	int *isdir = xcalloc(k, sizeof(*isdir)), alldirs = 1, same = 1, r = 0, fd = -1;
	size_t f = 0, g = 0;
	char q[128];

	for (size_t x = 0; x < k; x++) {
		struct stat st;
		from[x] = join(srcs[ents[x].src].dir, name);
		real[x] = realpath(from[x], NULL);
		isdir[x] = real[x] && stat(real[x], &st) == 0 && S_ISDIR(st.st_mode) &&
			under_roots(c, real[x]);
		alldirs &= isdir[x];
	}
	/* One file (or directory) reached through several names. */
	for (size_t x = 1; x < k; x++)
		if (strcmp(from[x], from[0]) &&
		    (!real[x] || !real[0] || strcmp(real[x], real[0])))
			same = 0;
	if (same) {
		r = make_link(c, outfd, name, from[0]);
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
		struct strbuf a = STRBUF_INIT, b = STRBUF_INIT;
		strbuf_add_quoted(&a, c->pkgs.v[srcs[ents[f < g ? f : g].src].pkg],
				  strlen(c->pkgs.v[srcs[ents[f < g ? f : g].src].pkg]));
		strbuf_add_quoted(&b, c->pkgs.v[srcs[ents[f < g ? g : f].src].pkg],
				  strlen(c->pkgs.v[srcs[ents[f < g ? g : f].src].pkg]));
		r = cix_error(c->err, -CIX_EEXIST, "conflict: '%s' is in both '%s' and '%s'",
			      cix_quote(q, sizeof(q), c->rel.buf, c->rel.len), a.buf, b.buf);
		strbuf_release(&a);
		strbuf_release(&b);
		goto out;
	}
	if (depth + 1 > PROFILE_MAX_DEPTH) {
		r = cix_error(c->err, -CIX_ELIMIT, "'%s' is nested more than %d deep",
			      cix_quote(q, sizeof(q), c->rel.buf, c->rel.len), PROFILE_MAX_DEPTH);
		goto out;
	}
	/* Never through a link: the name was made here, now, as a directory. */
	if (mkdirat(outfd, name, 0755) < 0 ||
	    (fd = openat(outfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0 ||
	    fchmod(fd, 0755) < 0) {
		r = cix_error_errno(c->err, -errno, "cannot create the directory '%s'",
				    cix_quote(q, sizeof(q), c->rel.buf, c->rel.len));
		goto out;
	}
	sub = xcalloc(k, sizeof(*sub));
	for (size_t x = 0; x < k; x++) {
		sub[x].pkg = srcs[ents[x].src].pkg;
		sub[x].dir = from[x];
	}
	r = merge(c, fd, sub, k, depth + 1);
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

/* Make in outfd (c->rel below OUT) the union of the directories srcs[0..n). */
static int merge(struct union_ctx *c, int outfd, const struct src *srcs, size_t n, int depth)
{
	struct ent *v = NULL;
	size_t nr = 0, len = c->rel.len;
	int r = read_sources(c, srcs, n, depth == 0, &v, &nr);

	for (size_t i = 0, j; !r && i < nr; i = j) {
		for (j = i + 1; j < nr && !strcmp(v[j].name, v[i].name); j++)
			;
		if (len)
			strbuf_addch(&c->rel, '/');
		strbuf_addstr(&c->rel, v[i].name);
		if (j - i == 1) {
			char *from = join(srcs[v[i].src].dir, v[i].name);
			r = make_link(c, outfd, v[i].name, from);
			free(from);
		} else {
			r = merge_name(c, outfd, srcs, v + i, j - i, depth);
		}
		strbuf_setlen(&c->rel, len);
	}
	ents_free(v, nr);
	return r;
}

/* The listed paths into c->pkgs, and the directories holding them into c->roots. */
static int parse_paths(struct union_ctx *c, const char *paths)
{
	const char *p = paths, *line;
	size_t len;
	char q[128];

	while ((line = next_line(&p, &len))) {
		struct stat st;
		char *path, *dir, *slash, *real;
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
		dir = path;
		slash = strrchr(dir, '/');
		if (slash == dir)
			slash[1] = '\0';
		else
			*slash = '\0';
		real = realpath(dir, NULL);
		if (!real) {
			int e = errno;
			free(path);
			return cix_error_errno(c->err, -e, "cannot resolve the directory of '%s'",
					       cix_quote(q, sizeof(q), line, len));
		}
		free(path);
		strvec_insert_sorted(&c->roots, real);
		free(real);
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
	struct union_ctx c = { STRVEC_INIT, STRVEC_INIT, STRBUF_INIT, err };
	struct src *srcs = NULL;
	struct stat st;
	int outfd = -1, r;

	if ((r = parse_paths(&c, paths)) < 0)
		goto out;
	if (lstat(out, &st) == 0) {
		r = cix_error(err, -CIX_EEXIST, "'%s' exists", out);
		goto out;
	}
	if (errno != ENOENT) {
		r = cix_error_errno(err, -errno, "cannot stat '%s'", out);
		goto out;
	}
	if (mkdir(out, 0755) < 0) {
		r = cix_error_errno(err, -errno, "cannot create '%s'", out);
		goto out;
	}
	outfd = open(out, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (outfd < 0 || fchmod(outfd, 0755) < 0) {
		r = cix_error_errno(err, -errno, "cannot open '%s'", out);
		goto out;
	}
	srcs = xcalloc(c.pkgs.nr + 1, sizeof(*srcs));
	for (size_t i = 0; i < c.pkgs.nr; i++) {
		srcs[i].pkg = i;
		srcs[i].dir = c.pkgs.v[i];
	}
	if ((r = merge(&c, outfd, srcs, c.pkgs.nr, 0)) < 0)
		goto out;
	r = write_manifest(outfd, out, manifest, err);
out:
	if (outfd >= 0)
		close(outfd);
	free(srcs);
	strvec_clear(&c.pkgs);
	strvec_clear(&c.roots);
	strbuf_release(&c.rel);
	return r;
}

/* ---- the builder, for lib/build.c ---- */

int cix_build_run_profile(const struct cix_drv *drv, const char *drv_path,
			  const char *store_dir, const char *root,
			  const struct cix_db_graph *inputs, struct cix_err *err)
{
	const char *o = cix_drv_getenv(drv, "out");
	const char *paths = cix_drv_getenv(drv, "paths");
	const char *manifest = cix_drv_getenv(drv, "manifest");
	const char *p, *line;
	size_t sl = strlen(store_dir), len;
	struct strbuf out = STRBUF_INIT;
	int r = 0;

	if (!o || strncmp(o, store_dir, sl) || o[sl] != '/' || !o[sl + 1] ||
	    strchr(o + sl + 1, '/'))
		return cix_error(err, -CIX_EFORMAT, "'%s' has no output 'out' in the store",
				 drv_path);
	if (!paths)
		return cix_error(err, -CIX_EINVAL, "attribute 'paths' missing");
	/* Only what the build may see: its input closure. */
	for (p = paths; (line = next_line(&p, &len)); ) {
		size_t i = 0;
		if (!len)
			continue;
		while (i < inputs->nr && (strlen(inputs->paths[i]) != len ||
					  memcmp(inputs->paths[i], line, len)))
			i++;
		if (i == inputs->nr) {
			strbuf_add_quoted(&out, line, len);
			r = cix_error(err, -CIX_EINVAL, "'%s' is not an input of '%s'", out.buf,
				      drv_path);
			strbuf_release(&out);
			return r;
		}
	}
	/* ROOT/STORE_DIR, as the sandbox would have made it. */
	strbuf_addf(&out, "%s%s", root, store_dir);
	if (!(r = cix_mkdirs(out.buf, err))) {
		strbuf_addstr(&out, o + sl);
		r = cix_builtin_profile(paths, manifest ? manifest : "", out.buf, err);
	}
	strbuf_release(&out);
	return r;
}
