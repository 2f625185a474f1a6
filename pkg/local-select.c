/* local-select.c - a local file's selection (#:select?) copied into a tree of its own */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "local-select.h"
#include "err.h"
#include "nar.h"
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

/*
 * top/rel copied to dest/rel as the store would take it: through its NAR
 * (a regular file, executable or not, or a symlink; nothing followed).
 */
static int copy_one(const char *top, const char *rel, const char *dest, struct cix_err *err)
{
	struct strbuf src = STRBUF_INIT, dst = STRBUF_INIT;
	int r;

	strbuf_addf(&src, "%s/%s", top, rel);
	strbuf_addf(&dst, "%s/%s", dest, rel);
	{
		char *slash = strrchr(dst.buf, '/');
		*slash = 0;
		r = cix_mkdirs(dst.buf, err);
		*slash = '/';
	}
	if (!r)
		r = cix_nar_copy_at(AT_FDCWD, src.buf, dst.buf, 0, NULL, NULL, err);
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
