/* remove.c - deleting a tree without following symlinks, at any depth */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "remove.h"
#include "err.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/*
 * Every name is taken relative to an open directory (unlinkat, openat
 * with O_NOFOLLOW): a component swapped for a symlink meanwhile is
 * unlinked as a symlink, never followed. Only the current directory is
 * open, so depth is bounded by memory, not by file descriptors or
 * PATH_MAX; each level remembers its device and inode, and going up
 * through ".." must land on them again.
 */

#define MAX_LEVELS (1u << 20)

struct level {
	dev_t dev;
	ino_t ino;
	char *name;   /* its name in the level above */
};

static void count(const struct stat *st, uint64_t *freed)
{
	if (freed && (S_ISDIR(st->st_mode) || st->st_nlink == 1))
		*freed += (uint64_t)st->st_blocks * 512;
}

/* Store directories are read-only (0555): make room to empty them. */
static void make_writable(int fd)
{
	struct stat st;
	if (fstat(fd, &st) == 0 && (st.st_mode & 0700) != 0700)
		fchmod(fd, (st.st_mode & 07777) | 0700);
}

/*
 * Empty dir of everything but directories; the first subdirectory found
 * is returned in *sub (malloc'd), NULL when dir is empty.
 */
static int empty_files(int fd, char **sub, uint64_t *freed, const char *where,
		       struct cix_err *err)
{
	int dup_fd = dup(fd), again = 1, r = 0;
	DIR *d;
	*sub = NULL;
	if (dup_fd < 0 || !(d = fdopendir(dup_fd))) {
		r = cix_error_errno(err, -errno, "cannot read directory '%s'", where);
		if (dup_fd >= 0)
			close(dup_fd);
		return r;
	}
	/* Deleting while reading may skip entries: rescan until a pass finds none. */
	while (again && !r && !*sub) {
		struct dirent *de;
		again = 0;
		rewinddir(d);
		while (!r && !*sub && (errno = 0, de = readdir(d))) {
			struct stat st;
			if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
				continue;
			again = 1;
			if (fstatat(fd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
				if (errno != ENOENT)
					r = cix_error_errno(err, -errno, "cannot stat '%s'", de->d_name);
				continue;
			}
			if (S_ISDIR(st.st_mode)) {
				*sub = xstrdup(de->d_name);
				break;
			}
			if (unlinkat(fd, de->d_name, 0) == 0)
				count(&st, freed);
			else if (errno == EISDIR)
				*sub = xstrdup(de->d_name);
			else if (errno != ENOENT)
				r = cix_error_errno(err, -errno, "cannot remove '%s'", de->d_name);
		}
		if (!r && !*sub && errno)
			r = cix_error_errno(err, -errno, "cannot read directory '%s'", where);
	}
	closedir(d);
	return r;
}

int cix_remove_tree_counted(int parent, const char *name, uint64_t *freed, struct cix_err *err)
{
	struct level *lv = NULL;
	size_t n = 0, alloc = 0;
	struct stat st;
	int cur, r = 0;

	if (fstatat(parent, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return errno == ENOENT ? 0 : cix_error_errno(err, -errno, "cannot stat '%s'", name);
	if (!S_ISDIR(st.st_mode)) {
		if (unlinkat(parent, name, 0) < 0 && errno != ENOENT)
			return cix_error_errno(err, -errno, "cannot remove '%s'", name);
		count(&st, freed);
		return 0;
	}
	cur = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (cur < 0)
		return errno == ENOENT ? 0 : cix_error_errno(err, -errno,
							     "cannot open directory '%s'", name);
	if (fstat(cur, &st) < 0) {
		r = cix_error_errno(err, -errno, "cannot stat '%s'", name);
		close(cur);
		return r;
	}
	ALLOC_GROW(lv, n + 1, alloc);
	lv[n++] = (struct level){ st.st_dev, st.st_ino, xstrdup(name) };
	while (!r) {
		char *sub;
		make_writable(cur);
		if ((r = empty_files(cur, &sub, freed, lv[n - 1].name, err)) < 0)
			break;
		if (sub) {
			if (n >= MAX_LEVELS) {
				r = cix_error(err, -CIX_ELIMIT, "cannot remove '%s': nested too deep", name);
				free(sub);
				break;
			}
			int fd = openat(cur, sub, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			if (fd < 0 || fstat(fd, &st) < 0) {
				if (fd < 0 && errno == ENOENT) {
					free(sub);
					continue;   /* gone meanwhile */
				}
				r = cix_error_errno(err, -errno, "cannot open directory '%s'", sub);
				if (fd >= 0)
					close(fd);
				free(sub);
				break;
			}
			ALLOC_GROW(lv, n + 1, alloc);
			lv[n++] = (struct level){ st.st_dev, st.st_ino, sub };
			close(cur);
			cur = fd;
			continue;
		}
		/* cur is empty: go up and remove it. */
		if (fstat(cur, &st) == 0)
			count(&st, freed);
		if (n == 1) {
			close(cur);
			cur = -1;
			if (unlinkat(parent, name, AT_REMOVEDIR) < 0 && errno != ENOENT)
				r = cix_error_errno(err, -errno, "cannot remove directory '%s'", name);
			break;
		}
		int up = openat(cur, "..", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (up < 0 || fstat(up, &st) < 0 || st.st_dev != lv[n - 2].dev ||
		    st.st_ino != lv[n - 2].ino) {
			r = up < 0 ? cix_error_errno(err, -errno, "cannot open '..' of '%s'", lv[n - 1].name)
				   : cix_error(err, -CIX_EMISMATCH,
					       "'%s' was moved while it was being deleted", name);
			if (up >= 0)
				close(up);
			break;
		}
		close(cur);
		cur = up;
		if (unlinkat(cur, lv[n - 1].name, AT_REMOVEDIR) < 0 && errno != ENOENT)
			r = cix_error_errno(err, -errno, "cannot remove directory '%s'", lv[n - 1].name);
		free(lv[--n].name);
	}
	if (cur >= 0)
		close(cur);
	for (size_t i = 0; i < n; i++)
		free(lv[i].name);
	free(lv);
	return r;
}

int cix_remove_tree_at(int parent, const char *name, struct cix_err *err)
{
	return cix_remove_tree_counted(parent, name, NULL, err);
}
