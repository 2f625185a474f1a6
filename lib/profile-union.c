/* profile-union.c - packages' trees joined as symlinks, level by level */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "profile-union.h"
#include "quote.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Directories of OUT nested in one another, at most. */
#define UNION_MAX_DEPTH 64

int cix_union_under_roots(const struct union_ctx *c, const char *real)
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

char *cix_union_join(const char *dir, const char *name)
{
	struct strbuf sb = STRBUF_INIT;
	size_t n = strlen(dir);
	strbuf_addstr(&sb, dir);
	if (!n || dir[n - 1] != '/')
		strbuf_addch(&sb, '/');
	strbuf_addstr(&sb, name);
	return strbuf_detach(&sb, NULL);
}

void cix_union_pkg_name(const struct union_ctx *c, size_t pkg, struct strbuf *sb)
{
	strbuf_add_quoted(sb, c->pkgs.v[pkg], strlen(c->pkgs.v[pkg]));
}

static int cmp_ent(const void *a, const void *b)
{
	const struct union_ent *x = a, *y = b;
	int c = strcmp(x->name, y->name);
	if (c)
		return c;
	return x->src < y->src ? -1 : x->src > y->src;
}

static void ents_free(struct union_ent *v, size_t nr)
{
	for (size_t i = 0; i < nr; i++)
		free(v[i].name);
	free(v);
}

static int read_error(struct union_ctx *c, const char *what, const char *dir)
{
	char q[128];
	int e = errno;
	return cix_error_errno(c->err, -e, "cannot %s '%s'", what,
			       cix_quote(q, sizeof(q), dir, strlen(dir)));
}

/* The names of one source, appended to *v. */
static int read_source(struct union_ctx *c, const struct union_src *src, size_t i, int depth,
		       struct union_ent **v, size_t *nr, size_t *alloc)
{
	int fd = open(src->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC), r = 0;
	DIR *d = fd < 0 ? NULL : fdopendir(fd);
	struct dirent *de;
	if (!d) {
		r = read_error(c, "open", src->dir);
		if (fd >= 0)
			close(fd);
		return r;
	}
	for (;;) {
		errno = 0;
		if (!(de = readdir(d))) {
			if (errno)
				r = read_error(c, "read", src->dir);
			break;
		}
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, "..") ||
		    c->skip(c, de->d_name, depth))
			continue;
		ALLOC_GROW(*v, *nr + 1, *alloc);
		(*v)[*nr].name = xstrdup(de->d_name);
		(*v)[(*nr)++].src = i;
	}
	closedir(d);
	return r;
}

/* The names in the sources, sorted by name, then in the packages' order. */
static int read_sources(struct union_ctx *c, const struct union_src *srcs, size_t n, int depth,
			struct union_ent **out, size_t *out_nr)
{
	struct union_ent *v = NULL;
	size_t nr = 0, alloc = 0;
	int r = 0;
	for (size_t i = 0; !r && i < n; i++)
		r = read_source(c, &srcs[i], i, depth, &v, &nr, &alloc);
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

int cix_union_link(struct union_ctx *c, int outfd, const char *name, const char *target)
{
	char q[128];
	if (symlinkat(target, outfd, name) < 0)
		return cix_error_errno(c->err, -errno, "cannot create the link '%s'",
				       cix_quote(q, sizeof(q), c->rel.buf, c->rel.len));
	return 0;
}

int cix_union_subdir(struct union_ctx *c, int outfd, const char *name, int depth)
{
	char q[128];
	int fd = -1;
	if (depth + 1 > UNION_MAX_DEPTH)
		return cix_error(c->err, -CIX_ELIMIT, "'%s' is nested more than %d deep",
				 cix_quote(q, sizeof(q), c->rel.buf, c->rel.len), UNION_MAX_DEPTH);
	/* Never through a link: the name was made here, now, as a directory. */
	if (mkdirat(outfd, name, 0755) < 0 ||
	    (fd = openat(outfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0 ||
	    fchmod(fd, 0755) < 0) {
		int r = cix_error_errno(c->err, -errno, "cannot create the directory '%s'",
					cix_quote(q, sizeof(q), c->rel.buf, c->rel.len));
		if (fd >= 0)
			close(fd);
		return r;
	}
	return fd;
}

int cix_union_merge(struct union_ctx *c, int outfd, const struct union_src *srcs, size_t n,
		    int depth)
{
	struct union_ent *v = NULL;
	size_t nr = 0, len = c->rel.len;
	int r = read_sources(c, srcs, n, depth, &v, &nr);

	for (size_t i = 0, j; !r && i < nr; i = j) {
		for (j = i + 1; j < nr && !strcmp(v[j].name, v[i].name); j++)
			;
		if (len)
			strbuf_addch(&c->rel, '/');
		strbuf_addstr(&c->rel, v[i].name);
		r = c->merge_name(c, outfd, srcs, v + i, j - i, depth);
		strbuf_setlen(&c->rel, len);
	}
	ents_free(v, nr);
	return r;
}

int cix_union_add_root(struct union_ctx *c, const char *path)
{
	char *dir = xstrdup(path), *slash = strrchr(dir, '/'), *real, q[128];
	if (slash == dir)
		slash[1] = '\0';
	else if (slash)
		*slash = '\0';
	real = realpath(dir, NULL);
	int e = errno;
	free(dir);
	if (!real)
		return cix_error_errno(c->err, -e, "cannot resolve the directory of '%s'",
				       cix_quote(q, sizeof(q), path, strlen(path)));
	strvec_insert_sorted(&c->roots, real);
	free(real);
	return 0;
}

int cix_union_make_out(const char *out, struct cix_err *err)
{
	struct stat st;
	int fd;
	if (lstat(out, &st) == 0)
		return cix_error(err, -CIX_EEXIST, "'%s' exists", out);
	if (errno != ENOENT)
		return cix_error_errno(err, -errno, "cannot stat '%s'", out);
	if (mkdir(out, 0755) < 0)
		return cix_error_errno(err, -errno, "cannot create '%s'", out);
	fd = open(out, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 || fchmod(fd, 0755) < 0) {
		int r = cix_error_errno(err, -errno, "cannot open '%s'", out);
		if (fd >= 0)
			close(fd);
		return r;
	}
	return fd;
}

void cix_union_release(struct union_ctx *c)
{
	strvec_clear(&c->pkgs);
	strvec_clear(&c->roots);
	strbuf_release(&c->rel);
}

int cix_union_out_path(const struct cix_drv *drv, const char *drv_path, const char *store_dir,
		       const char *root, struct strbuf *out, struct cix_err *err)
{
	const char *o = cix_drv_getenv(drv, "out");
	size_t sl = strlen(store_dir);
	int r;
	if (!o || strncmp(o, store_dir, sl) || o[sl] != '/' || !o[sl + 1] ||
	    strchr(o + sl + 1, '/'))
		return cix_error(err, -CIX_EFORMAT, "'%s' has no output 'out' in the store",
				 drv_path);
	strbuf_addf(out, "%s%s", root, store_dir);
	if ((r = cix_mkdirs(out->buf, err)) < 0)
		return r;
	strbuf_addstr(out, o + sl);
	return 0;
}

int cix_build_is_input(const struct cix_db_graph *inputs, const char *path, size_t len)
{
	for (size_t i = 0; i < inputs->nr; i++)
		if (strlen(inputs->paths[i]) == len && !memcmp(inputs->paths[i], path, len))
			return 1;
	return 0;
}
