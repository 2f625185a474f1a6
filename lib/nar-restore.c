/* nar-restore.c - materialise a NAR on disk, safely, through directory fds */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "quote.h"
#include "remove.h"
#include "nar-read.h"
#include "strbuf.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/*
 * The parser (nar-read.c) announces only validated items, so by the time a
 * callback below runs, the name is a single component that sorts after
 * every sibling already created. Every file system call is relative to a
 * directory fd we opened ourselves with O_NOFOLLOW|O_DIRECTORY, on a single
 * name, and creates exclusively (mkdirat, O_CREAT|O_EXCL|O_NOFOLLOW,
 * symlinkat): nothing is ever written through a symlink, and a name that
 * already exists is an error, never reused.
 */

struct restore {
	int fds[CIX_NAR_MAX_DEPTH + 2]; /* fds[0]: target's parent */
	int nfds;
	const char *pending;            /* name of the next node in fds[top] */
	int file_fd;
	int created;                    /* the target exists and is ours */
	struct strbuf path;             /* target + relative path, for messages */
	int canonical;                  /* CIX_RESTORE_CANONICAL */
	int writeback;                  /* CIX_RESTORE_WRITEBACK */
	mode_t file_mode;               /* canonical mode of the open file */
	uint64_t file_size;             /* of the open file */
	size_t lens[CIX_NAR_MAX_DEPTH + 2];
};

static int cur_fd(struct restore *rs)
{
	return rs->fds[rs->nfds - 1];
}

static int fs_error(struct restore *rs, int e, const char *what,
		    struct cix_err *err)
{
	if (e == EEXIST)
		return cix_error(err, -CIX_EEXIST, "cannot %s '%s': it exists",
				 what, rs->path.buf);
	return cix_error_errno(err, -e, "cannot %s '%s'", what, rs->path.buf);
}

static void created(struct restore *rs)
{
	if (rs->nfds == 1)
		rs->created = 1;
}

static int r_entry(void *opaque, const char *name, size_t len,
		   struct cix_err *err)
{
	struct restore *rs = opaque;
	strbuf_setlen(&rs->path, rs->lens[rs->nfds - 1]);
	strbuf_addch(&rs->path, '/');
	strbuf_add_quoted(&rs->path, name, len);
	rs->pending = name; /* valid until the node's first event */
	return 0;
}

static int r_dir_start(void *opaque, struct cix_err *err)
{
	struct restore *rs = opaque;
	int fd;

	if ((size_t)rs->nfds >= ARRAY_SIZE(rs->fds))
		BUG("NAR depth not bounded by the parser");
	if (mkdirat(cur_fd(rs), rs->pending, 0755) < 0)
		return fs_error(rs, errno, "create directory", err);
	created(rs);
	fd = openat(cur_fd(rs), rs->pending,
		    O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return fs_error(rs, errno, "open directory", err);
	rs->lens[rs->nfds] = rs->path.len;
	rs->fds[rs->nfds++] = fd;
	rs->pending = NULL;
	return 0;
}

static const struct timespec epoch1[2] = { { 1, 0 }, { 1, 0 } };

/* Store metadata, set on the descriptor once the content is complete. */
static int canonical_fd(struct restore *rs, int fd, mode_t mode, struct cix_err *err)
{
	if (fchmod(fd, mode) < 0 || futimens(fd, epoch1) < 0)
		return fs_error(rs, errno, "set metadata of", err);
	return 0;
}

static int r_dir_end(void *opaque, struct cix_err *err)
{
	struct restore *rs = opaque;
	int fd = rs->fds[--rs->nfds], r = 0;
	if (rs->canonical)
		r = canonical_fd(rs, fd, 0555, err);
	strbuf_setlen(&rs->path, rs->lens[rs->nfds]);
	if (r < 0) {
		close(fd);
		return r;
	}
	if (close(fd) < 0)
		return fs_error(rs, errno, "close directory", err);
	return 0;
}

static int r_file_start(void *opaque, int executable, uint64_t size,
			struct cix_err *err)
{
	struct restore *rs = opaque;
	int fd = openat(cur_fd(rs), rs->pending,
			O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY,
			executable ? 0755 : 0644);
	if (fd < 0)
		return fs_error(rs, errno, "create file", err);
	created(rs);
	rs->file_fd = fd;
	rs->file_mode = executable ? 0555 : 0444;
	rs->file_size = size;
	rs->pending = NULL;
	return 0;
}

static int r_file_data(void *opaque, const void *data, size_t len,
		       struct cix_err *err)
{
	struct restore *rs = opaque;
	int r = cix_write_full(rs->file_fd, data, len);
	return r < 0 ? fs_error(rs, -r, "write", err) : 0;
}

/* Below this, a file waits for the flush: a call each would cost more than it gains. */
#define WRITEBACK_MIN (256 * 1024)

static int r_file_end(void *opaque, struct cix_err *err)
{
	struct restore *rs = opaque;
	int fd = rs->file_fd, r = 0;
	rs->file_fd = -1;
	if (rs->writeback && rs->file_size >= WRITEBACK_MIN)
		(void)sync_file_range(fd, 0, 0, SYNC_FILE_RANGE_WRITE);   /* a hint only */
	if (rs->canonical)
		r = canonical_fd(rs, fd, rs->file_mode, err);
	if (close(fd) < 0 && !r)
		r = fs_error(rs, errno, "close", err);
	return r;
}

static int r_symlink(void *opaque, const char *target, size_t len,
		     struct cix_err *err)
{
	struct restore *rs = opaque;
	if (symlinkat(target, cur_fd(rs), rs->pending) < 0)
		return fs_error(rs, errno, "create symlink", err);
	created(rs);
	if (rs->canonical &&
	    utimensat(cur_fd(rs), rs->pending, epoch1, AT_SYMLINK_NOFOLLOW) < 0)
		return fs_error(rs, errno, "set metadata of", err);
	rs->pending = NULL;
	return 0;
}

static const struct cix_nar_visitor restore_visitor = {
	.dir_start = r_dir_start,
	.entry = r_entry,
	.dir_end = r_dir_end,
	.file_start = r_file_start,
	.file_data = r_file_data,
	.file_end = r_file_end,
	.symlink = r_symlink,
};

/* Whether name can be made in a directory: one component, not empty, "." or "..". */
static int new_name(const char *name)
{
	return *name && !strchr(name, '/') && strcmp(name, ".") && strcmp(name, "..");
}

/*
 * Split target into its parent directory (opened) and last component. The
 * last component must be a real name: not empty, "." or "..".
 */
static int open_parent(const char *target, int *fd, char **base,
		       struct cix_err *err)
{
	size_t len = strlen(target);
	char *t, *slash;
	const char *dir;

	while (len > 1 && target[len - 1] == '/')
		len--;
	t = xstrndup(target, len);
	slash = strrchr(t, '/');
	if (slash) {
		*slash = '\0';
		*base = slash + 1;
		dir = slash == t ? "/" : t;
	} else {
		*base = t;
		dir = ".";
	}
	if (!new_name(*base)) {
		free(t);
		return cix_error(err, -CIX_EINVAL,
				 "cannot restore to '%s': not a new file name", target);
	}
	*fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (*fd < 0) {
		int r = cix_error_errno(err, -errno, "cannot open directory '%s'", dir);
		free(t);
		return r;
	}
	/* *base points into t; shift it to the start so the caller frees t. */
	memmove(t, *base, strlen(*base) + 1);
	*base = t;
	return 0;
}

int cix_nar_restore(cix_source_fn src, void *opaque, const char *target,
		    struct cix_hash *hash, uint64_t *size, struct cix_err *err)
{
	return cix_nar_restore_flags(src, opaque, target, 0, hash, size, err);
}

/* The restore itself, into the name base of the directory pfd (not closed here). */
static int restore_in(cix_source_fn src, void *opaque, int pfd, const char *base,
		      const char *shown, int flags, struct cix_hash *hash, uint64_t *size,
		      struct cix_err *err)
{
	struct restore rs = { .file_fd = -1, .canonical = !!(flags & CIX_RESTORE_CANONICAL),
			      .writeback = !!(flags & CIX_RESTORE_WRITEBACK) };
	int r;

	cix_err_clear(err);
	/* Everything is created exclusively: an existing target is an error (EEXIST). */
	rs.fds[0] = pfd;
	rs.nfds = 1;
	rs.pending = base;
	strbuf_addstr(&rs.path, shown);
	rs.lens[0] = rs.path.len;

	r = cix_nar_parse(src, opaque, &restore_visitor, &rs, hash, size, err);

	if (rs.file_fd >= 0)
		close(rs.file_fd);
	while (rs.nfds > 1)
		close(rs.fds[--rs.nfds]);
	if (r < 0 && rs.created)
		cix_remove_tree_at(pfd, base, NULL);
	strbuf_release(&rs.path);
	return r;
}

int cix_nar_restore_flags(cix_source_fn src, void *opaque, const char *target, int flags,
			  struct cix_hash *hash, uint64_t *size, struct cix_err *err)
{
	char *base = NULL;
	int pfd = -1, r;

	if ((r = open_parent(target, &pfd, &base, err)) < 0)
		return r;
	r = restore_in(src, opaque, pfd, base, target, flags, hash, size, err);
	close(pfd);
	free(base);
	return r;
}

int cix_nar_restore_at(cix_source_fn src, void *opaque, int dir_fd, const char *name,
		       int flags, struct cix_hash *hash, uint64_t *size, struct cix_err *err)
{
	if (!new_name(name))
		return cix_error(err, -CIX_EINVAL, "cannot restore to '%s': not a new file name",
				 name);
	return restore_in(src, opaque, dir_fd, name, name, flags, hash, size, err);
}

int cix_source_expect_end(cix_source_fn src, void *opaque, struct cix_err *err)
{
	char c;
	ssize_t n = src(opaque, &c, 1);
	if (n < 0)
		return cix_error_errno(err, (int)n, "cannot read after the archive");
	if (n > 0)
		return cix_error(err, -CIX_EFORMAT, "unexpected data after the archive");
	return 0;
}
