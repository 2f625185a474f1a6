/* canonical.c - give store content its canonical metadata */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "store.h"
#include "nar.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

/*
 * What a store path records is its NAR: contents, the executable bit and
 * symlink targets. Everything else is made the same for every path, so
 * that nothing outside the NAR can differ or leak: mtime 1 (as Nix),
 * modes 0444 or 0555 (no setuid, setgid, sticky or write bits), no extended
 * attributes, owner root when run as root. Hard links out of the tree are
 * refused: a link count above one means the file is shared with
 * something else.
 */

static int drop_xattrs(int fd, const char *name, struct cix_err *err)
{
	char list[4096];
	ssize_t n = flistxattr(fd, list, sizeof(list));
	if (n < 0)
		return errno == ENOTSUP ? 0 :
		       cix_error_errno(err, -errno, "cannot list attributes of '%s'", name);
	for (ssize_t i = 0; i < n; i += (ssize_t)strlen(list + i) + 1)
		if (fremovexattr(fd, list + i) < 0 && errno != ENODATA && errno != ENOTSUP)
			return cix_error_errno(err, -errno, "cannot remove attribute of '%s'", name);
	return 0;
}

static int canon_fd(int fd, const struct stat *st, const char *name, struct cix_err *err)
{
	static const struct timespec times[2] = { { 1, 0 }, { 1, 0 } };
	mode_t mode = (st->st_mode & 0111) || S_ISDIR(st->st_mode) ? 0555 : 0444;
	int r;

	if ((r = drop_xattrs(fd, name, err)) < 0)
		return r;
	if (geteuid() == 0 && (st->st_uid || st->st_gid) && fchown(fd, 0, 0) < 0)
		return cix_error_errno(err, -errno, "cannot change owner of '%s'", name);
	if ((st->st_mode & 07777) != mode && fchmod(fd, mode) < 0)
		return cix_error_errno(err, -errno, "cannot change mode of '%s'", name);
	if (futimens(fd, times) < 0)
		return cix_error_errno(err, -errno, "cannot set time of '%s'", name);
	return 0;
}

/* A file with several links: all of them must be in the tree. */
struct linked {
	dev_t dev;
	ino_t ino;
	nlink_t nlink;
	char *name;
};

struct canon {
	uid_t owner;             /* (uid_t)-1: anyone */
	int links_ok;            /* second pass: the hard links were checked */
	struct linked *links;
	size_t nr, alloc;
};

static void saw_link(struct canon *c, const struct stat *st, const char *name)
{
	ALLOC_GROW(c->links, c->nr + 1, c->alloc);
	c->links[c->nr++] = (struct linked){ st->st_dev, st->st_ino, st->st_nlink,
					     xstrdup(name) };
}

static int cmp_linked(const void *a, const void *b)
{
	const struct linked *x = a, *y = b;
	if (x->dev != y->dev)
		return x->dev < y->dev ? -1 : 1;
	return x->ino < y->ino ? -1 : x->ino > y->ino;
}

static int canon_node(int dirfd, const char *name, int depth, struct canon *c, struct cix_err *err);

static int canon_dir(int fd, const char *name, int depth, struct canon *c, struct cix_err *err)
{
	DIR *d = cix_fdopendir_dup(fd);
	struct dirent *de;
	int r = 0;
	if (!d)
		return cix_error_errno(err, -errno, "cannot read directory '%s'", name);
	while (!r && (errno = 0, de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		r = canon_node(fd, de->d_name, depth + 1, c, err);
	}
	if (!r && errno)
		r = cix_error_errno(err, -errno, "cannot read directory '%s'", name);
	closedir(d);
	return r;
}

static int canon_node(int dirfd, const char *name, int depth, struct canon *c, struct cix_err *err)
{
	static const struct timespec times[2] = { { 1, 0 }, { 1, 0 } };
	struct stat st;
	int fd, r;

	if (depth > CIX_NAR_MAX_DEPTH)
		return cix_error(err, -CIX_ELIMIT, "'%s' is nested too deep", name);
	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return cix_error_errno(err, -errno, "cannot stat '%s'", name);
	if (c->owner != (uid_t)-1 && st.st_uid != c->owner)
		return cix_error(err, -CIX_EUNSUPPORTED, "'%s' is not owned by the build user", name);
	if (S_ISLNK(st.st_mode)) {
		/* Symlinks have no mode of their own; owner and time do matter. */
		if (geteuid() == 0 && (st.st_uid || st.st_gid) &&
		    fchownat(dirfd, name, 0, 0, AT_SYMLINK_NOFOLLOW) < 0)
			return cix_error_errno(err, -errno, "cannot change owner of '%s'", name);
		if (utimensat(dirfd, name, times, AT_SYMLINK_NOFOLLOW) < 0)
			return cix_error_errno(err, -errno, "cannot set time of '%s'", name);
		return 0;
	}
	if (!S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode))
		return cix_error(err, -CIX_EUNSUPPORTED, "'%s' is not a file, directory or symlink",
				 name);
	if (S_ISREG(st.st_mode) && st.st_nlink > 1 && !c->links_ok) {
		/* Untouched until all its links are known to be in the tree. */
		if (c->nr > 100000)
			return cix_error(err, -CIX_ELIMIT, "too many hard links in the tree");
		saw_link(c, &st, name);
		return 0;
	}
	fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC |
		    (S_ISDIR(st.st_mode) ? O_DIRECTORY : 0));
	if (fd < 0)
		return cix_error_errno(err, -errno, "cannot open '%s'", name);
	struct stat st2;
	if (fstat(fd, &st2) < 0 || st2.st_ino != st.st_ino || st2.st_dev != st.st_dev)
		r = cix_error(err, -CIX_EMISMATCH, "'%s' changed while being canonicalised", name);
	else if (S_ISDIR(st.st_mode) && (r = canon_dir(fd, name, depth, c, err)) < 0)
		;
	else
		r = canon_fd(fd, &st, name, err); /* after the children: keeps mtime 1 */
	close(fd);
	return r;
}

/*
 * Hard links between files of the tree are fine (they stay, as a build
 * made them); a link from elsewhere (the file's link count is higher than
 * the names found in the tree) is refused, before anything is done to the
 * file: it is shared with something outside (doc/security.md item 1). Files
 * with several links are left for a second pass, once that is known.
 */
static int canonicalise(int dirfd, const char *name, uid_t owner, struct cix_err *err)
{
	struct canon c = { .owner = owner };
	int r = canon_node(dirfd, name, 0, &c, err);
	if (c.nr)
		qsort(c.links, c.nr, sizeof(*c.links), cmp_linked);
	for (size_t i = 0, k; !r && i < c.nr; i = k) {
		for (k = i; k < c.nr && !cmp_linked(&c.links[i], &c.links[k]); k++)
			;
		if ((nlink_t)(k - i) != c.links[i].nlink)
			r = cix_error(err, -CIX_EUNSUPPORTED, "'%s' has other hard links",
				      c.links[i].name);
	}
	if (!r && c.nr) {
		/*
		 * Every node's owner was checked by the first pass, which made
		 * those without several links root's already.
		 */
		c.links_ok = 1;
		c.owner = (uid_t)-1;
		r = canon_node(dirfd, name, 0, &c, err);
	}
	for (size_t i = 0; i < c.nr; i++)
		free(c.links[i].name);
	free(c.links);
	return r;
}

int cix_canonicalise_at(int dirfd, const char *name, struct cix_err *err)
{
	return canonicalise(dirfd, name, (uid_t)-1, err);
}

int cix_canonicalise_owned_at(int dirfd, const char *name, uid_t owner, struct cix_err *err)
{
	return canonicalise(dirfd, name, owner, err);
}
