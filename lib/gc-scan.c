/* gc-scan.c - the garbage collector's permanent roots: the symlinks below STATE/gcroots */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "gc-int.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <search.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/*
 * Users write in some of the directories the walk reads (their profiles'
 * directories) and choose the files that others lead to (the links of
 * their indirect roots). Whatever they put there, the walk stays linear
 * in what it finds:
 *  - no directory is read twice (its device and inode are remembered);
 *    each is entered through a descriptor of its parent, never through a
 *    symlink put in its place;
 *  - a symlink is followed through at most MAX_HOPS links, and makes a
 *    root when it ends in the store;
 *  - a symlink leads into a directory (to be read) only when that
 *    directory is in the state directory and every link on the way lies
 *    in a trusted directory: one that only the store's owners can change
 *    (root, the collector's user, the state directory's owner), other
 *    than gcroots/auto, whose links lead to files of the users' choosing.
 *    So a user's symlink, in their profile's directory say, is a root
 *    only when it leads into the store.
 * Real subdirectories are read down to MAX_DEPTH.
 */

#define MAX_DEPTH 32
#define MAX_HOPS 8
#define CHECK_EVERY 64   /* entries read between two looks at roots->cancelled */

struct dir_id {
	dev_t dev;
	ino_t ino;
};

struct scan {
	struct cix_store *s;
	struct cix_gc_roots *roots;
	uid_t owners[3];   /* the users a trusted directory may belong to */
	void *seen;        /* the directories read: a tsearch tree of struct dir_id */
	size_t entries;
	int stop;
};

static void scan_dir(struct scan *sc, int fd, const char *path, int depth, int trusted);

static int cmp_dir_id(const void *a, const void *b)
{
	const struct dir_id *x = a, *y = b;
	if (x->dev != y->dev)
		return x->dev < y->dev ? -1 : 1;
	return x->ino < y->ino ? -1 : x->ino > y->ino;
}

/* Remember the directory; 1 if it was read before (or cannot be remembered). */
static int seen_before(struct scan *sc, const struct stat *st)
{
	struct dir_id *id = xmalloc(sizeof(*id));
	id->dev = st->st_dev;
	id->ino = st->st_ino;
	struct dir_id **found = tsearch(id, &sc->seen, cmp_dir_id);
	if (found && *found == id)
		return 0;
	free(id);
	return 1;
}

/* Can only the store's owners make, remove or replace its entries? */
static int trusted_dir(const struct scan *sc, const struct stat *st)
{
	if (st->st_mode & (S_IWGRP | S_IWOTH))
		return 0;
	for (size_t i = 0; i < sizeof(sc->owners) / sizeof(sc->owners[0]); i++)
		if (st->st_uid == sc->owners[i])
			return 1;
	return 0;
}

static int in_dir(const char *path, const char *dir)
{
	size_t n = strlen(dir);
	return !strncmp(path, dir, n) && path[n] == '/';
}

/* Is path below the state directory, with no "." or ".." to lead it out? */
static int in_state_dir(const struct scan *sc, const char *path)
{
	const char *c = path + strlen(sc->s->state_dir);
	if (!in_dir(path, sc->s->state_dir))
		return 0;
	while (*c) {
		const char *next = strchrnul(c + 1, '/');
		size_t len = (size_t)(next - c - 1);
		if ((len == 1 || len == 2) && !strncmp(c + 1, "..", len))
			return 0;
		c = next;
	}
	return 1;
}

/* The target of the link at link (a name), absolute, without trailing slashes. */
static int absolute_target(const char *link, const char *target, struct strbuf *out)
{
	strbuf_reset(out);
	if (target[0] != '/') {
		const char *slash = strrchr(link, '/');
		if (!slash)
			return -1;
		strbuf_add(out, link, (size_t)(slash - link + 1));
	}
	strbuf_addstr(out, target);
	while (out->len > 1 && out->buf[out->len - 1] == '/')
		strbuf_setlen(out, out->len - 1);
	return out->len < PATH_MAX ? 0 : -1;
}

/*
 * Where the link named name in the directory dfd (whose name is dir)
 * leads: a root when the store, a walk of a directory when every link
 * on the way is trusted, else nothing.
 */
static void follow(struct scan *sc, int dfd, const char *dir, const char *name, int depth,
		   int trusted)
{
	struct strbuf link = STRBUF_INIT, target = STRBUF_INIT;
	char buf[PATH_MAX];
	int at = dfd, parent = -1;
	const char *base = name;
	strbuf_addf(&link, "%s/%s", dir, name);
	for (int hop = 0; hop < MAX_HOPS; hop++) {
		struct stat st;
		ssize_t n = readlinkat(at, base, buf, sizeof(buf) - 1);
		if (n <= 0)
			break;
		buf[n] = '\0';
		if (absolute_target(link.buf, buf, &target) < 0)
			break;
		if (in_dir(target.buf, sc->s->store_dir)) {
			/* The last link before the store is the one that keeps it. */
			cix_gc_roots_add(sc->s, link.buf, target.buf, sc->roots);
			break;
		}
		char *slash = strrchr(target.buf, '/');
		if (!slash[1])
			break;   /* "/" */
		*slash = '\0';
		parent = open(slash == target.buf ? "/" : target.buf,
			      O_PATH | O_DIRECTORY | O_CLOEXEC);
		*slash = '/';
		if (at != dfd)
			close(at);
		at = parent;
		if (at < 0 || fstatat(at, slash + 1, &st, AT_SYMLINK_NOFOLLOW) < 0)
			break;
		if (S_ISDIR(st.st_mode)) {
			int fd;
			if (trusted && depth < MAX_DEPTH && in_state_dir(sc, target.buf) &&
			    (fd = openat(at, slash + 1, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
					 O_CLOEXEC)) >= 0)
				scan_dir(sc, fd, target.buf, depth + 1, 1);
			break;
		}
		if (!S_ISLNK(st.st_mode) || fstat(at, &st) < 0)
			break;
		/* The next link, in its own directory. */
		trusted = trusted && trusted_dir(sc, &st);
		strbuf_reset(&link);
		strbuf_addstr(&link, target.buf);
		base = link.buf + (slash - target.buf) + 1;
	}
	if (at >= 0 && at != dfd)
		close(at);
	strbuf_release(&link);
	strbuf_release(&target);
}

static int is_dot(const char *name)
{
	return name[0] == '.' && (!name[1] || (name[1] == '.' && !name[2]));
}

/* Read the directory fd (whose name is path), closing fd. */
static void scan_dir(struct scan *sc, int fd, const char *path, int depth, int trusted)
{
	struct strbuf child = STRBUF_INIT;
	struct stat st;
	struct dirent *de;
	DIR *d;
	if (fstat(fd, &st) < 0 || !S_ISDIR(st.st_mode) || seen_before(sc, &st) ||
	    !(d = fdopendir(fd))) {
		close(fd);
		return;
	}
	trusted = trusted && trusted_dir(sc, &st);
	while (!sc->stop && (de = readdir(d))) {
		if (is_dot(de->d_name))
			continue;
		if (++sc->entries % CHECK_EVERY == 0 && cix_gc_roots_cancelled(sc->roots)) {
			sc->stop = 1;
			break;
		}
		strbuf_reset(&child);
		strbuf_addf(&child, "%s/%s", path, de->d_name);
		if (child.len >= PATH_MAX ||
		    fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
			continue;
		/* gcroots/auto: the links that users' indirect roots lead to. */
		int t = trusted && !(depth == 0 && !strcmp(de->d_name, "auto"));
		if (S_ISLNK(st.st_mode)) {
			follow(sc, dirfd(d), path, de->d_name, depth, t);
		} else if (S_ISDIR(st.st_mode) && depth < MAX_DEPTH) {
			int sub = openat(dirfd(d), de->d_name,
					 O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			if (sub >= 0)
				scan_dir(sc, sub, child.buf, depth + 1, t);
		}
	}
	closedir(d);
	strbuf_release(&child);
}

int cix_gc_scan_links(struct cix_store *s, struct cix_gc_roots *roots, struct cix_err *err)
{
	struct scan sc = { .s = s, .roots = roots, .owners = { 0, geteuid(), geteuid() } };
	struct strbuf dir = STRBUF_INIT;
	struct stat st;
	int fd;
	if (stat(s->state_dir, &st) == 0)
		sc.owners[2] = st.st_uid;
	strbuf_addf(&dir, "%s/gcroots", s->state_dir);
	if ((fd = open(dir.buf, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) >= 0)
		scan_dir(&sc, fd, dir.buf, 0, 1);
	tdestroy(sc.seen, free);
	strbuf_release(&dir);
	if (sc.stop)
		return cix_error(err, -ECANCELED, "the search for roots was cancelled");
	return 0;
}
