/* local-select.c - a local file's selection (#:select?) copied into a tree of its own */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "local-select.h"
#include "err.h"
#include "remove.h"
#include "strbuf.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A relative name of plain components: no "", ".", ".." nor a leading "/". */
static int plain_relative(const char *rel)
{
	const char *p = rel;
	if (!*rel || *rel == '/' || strlen(rel) >= PATH_MAX)
		return 0;
	while (*p) {
		const char *end = strchrnul(p, '/');
		size_t n = (size_t)(end - p);
		if (!n || (n == 1 && p[0] == '.') || (n == 2 && p[0] == '.' && p[1] == '.'))
			return 0;
		p = *end ? end + 1 : end;
	}
	return rel[strlen(rel) - 1] != '/';
}

/* The contents of the regular file from into the new file to (its mode kept executable or not). */
static int copy_regular(int from, const struct stat *st, const char *to, struct cix_err *err)
{
	char buf[65536];
	ssize_t n;
	int out = open(to, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		       (st->st_mode & 0111) ? 0755 : 0644);
	if (out < 0)
		return cix_error_errno(err, -errno, "cannot create '%s'", to);
	while ((n = read(from, buf, sizeof(buf))) > 0)
		if (cix_write_full(out, buf, (size_t)n) < 0)
			break;
	if (n != 0 || close(out) < 0) {
		int e = errno;
		if (n != 0)
			close(out);
		return cix_error_errno(err, -e, "cannot copy into '%s'", to);
	}
	return 0;
}

/* top/rel copied to dest/rel: a regular file or a symlink, nothing followed. */
static int copy_one(const char *top, const char *rel, const char *dest, struct cix_err *err)
{
	struct strbuf src = STRBUF_INIT, dst = STRBUF_INIT;
	struct stat st;
	int fd = -1, r = 0;

	strbuf_addf(&src, "%s/%s", top, rel);
	strbuf_addf(&dst, "%s/%s", dest, rel);
	{
		char *slash = strrchr(dst.buf, '/');
		*slash = 0;
		r = cix_mkdirs(dst.buf, err);
		*slash = '/';
	}
	if (!r && lstat(src.buf, &st) < 0)
		r = cix_error_errno(err, -errno, "cannot stat '%s'", src.buf);
	if (!r && S_ISLNK(st.st_mode)) {
		char target[PATH_MAX];
		ssize_t n = readlink(src.buf, target, sizeof(target) - 1);
		if (n < 0)
			r = cix_error_errno(err, -errno, "cannot read the link '%s'", src.buf);
		else if ((target[n] = 0, symlink(target, dst.buf) < 0))
			r = cix_error_errno(err, -errno, "cannot create '%s'", dst.buf);
	} else if (!r && S_ISREG(st.st_mode)) {
		if ((fd = open(src.buf, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) < 0)
			r = cix_error_errno(err, -errno, "cannot open '%s'", src.buf);
		else
			r = copy_regular(fd, &st, dst.buf, err);
	} else if (!r) {
		r = cix_error(err, -CIX_EINVAL, "'%s' is neither a file nor a symlink", src.buf);
	}
	if (fd >= 0)
		close(fd);
	strbuf_release(&src);
	strbuf_release(&dst);
	return r;
}

int cix_local_selection_tree(const char *top, const struct strvec *sel, const char *name,
			     char **tmp_out, char **tree_out, struct cix_err *err)
{
	struct strbuf tmp = STRBUF_INIT, tree = STRBUF_INIT;
	const char *tmpdir = getenv("TMPDIR");
	size_t i;
	int r = 0;

	*tmp_out = *tree_out = NULL;
	if (!name || !*name || strchr(name, '/') || !strcmp(name, ".") || !strcmp(name, ".."))
		return cix_error(err, -CIX_EINVAL, "local-file: bad name for a selection of '%s'", top);
	strbuf_addf(&tmp, "%s/cix-select.XXXXXX", tmpdir && *tmpdir ? tmpdir : "/tmp");
	if (!mkdtemp(tmp.buf)) {
		r = cix_error_errno(err, -errno, "cannot create a directory in '%s'",
				    tmpdir && *tmpdir ? tmpdir : "/tmp");
		strbuf_release(&tmp);
		return r;
	}
	strbuf_addf(&tree, "%s/%s", tmp.buf, name);
	if (mkdir(tree.buf, 0755) < 0)
		r = cix_error_errno(err, -errno, "cannot create '%s'", tree.buf);
	for (i = 0; !r && i < sel->nr; i++) {
		if (!plain_relative(sel->v[i]))
			r = cix_error(err, -CIX_EINVAL, "local-file: bad selected name '%s'", sel->v[i]);
		else
			r = copy_one(top, sel->v[i], tree.buf, err);
	}
	if (r) {
		struct cix_err ignored = { 0 };
		cix_remove_tree_at(AT_FDCWD, tmp.buf, &ignored);
		strbuf_release(&tmp);
		strbuf_release(&tree);
		return r;
	}
	*tmp_out = strbuf_detach(&tmp, NULL);
	*tree_out = strbuf_detach(&tree, NULL);
	return 0;
}
