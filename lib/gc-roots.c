/* gc-roots.c - the garbage collector's roots: links below gcroots, temporary roots */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "gc-int.h"
#include "encoding.h"
#include "store-backend.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_TEMP_FILE (64u << 20)

/* ---- Temporary roots ---- */

static pthread_mutex_t temp_mutex = PTHREAD_MUTEX_INITIALIZER;

/* An open file description lock on the whole file (atomic up- and downgrades). */
static int ofd_lock(int fd, short type, int wait)
{
	struct flock fl = { .l_type = type, .l_whence = SEEK_SET };
	int r;
	while ((r = fcntl(fd, wait ? F_OFD_SETLKW : F_OFD_SETLK, &fl)) < 0 && errno == EINTR)
		;
	return r < 0 ? -errno : 0;
}

/* STATE/gc.lock, opened; the collector holds it exclusively while it runs. */
static int open_gc_lock(struct cix_store *s, struct cix_err *err)
{
	struct strbuf p = STRBUF_INIT;
	strbuf_addf(&p, "%s/gc.lock", s->state_dir);
	int fd = open(p.buf, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		cix_error_errno(err, -errno, "cannot open '%s'", p.buf);
	strbuf_release(&p);
	return fd < 0 ? -errno : fd;
}

/*
 * Make this process's file, read-locked. It is made while holding the GC
 * lock shared, so not while a collector runs (which would not know it);
 * a stale one of an earlier process with our PID is replaced.
 */
static int open_temp_file(struct cix_store *s, struct cix_err *err)
{
	struct strbuf p = STRBUF_INIT;
	int gc = -1, fd = -1, r;
	strbuf_addf(&p, "%s/temproots", s->state_dir);
	if (mkdir(p.buf, 0755) < 0 && errno != EEXIST) {
		r = cix_error_errno(err, -errno, "cannot create '%s'", p.buf);
		goto out;
	}
	strbuf_addf(&p, "/%ld", (long)getpid());
	if ((gc = open_gc_lock(s, err)) < 0) {
		r = gc;
		goto out;
	}
	while (flock(gc, LOCK_SH) < 0)
		if (errno != EINTR) {
			r = cix_error_errno(err, -errno, "cannot lock the garbage collector's lock");
			goto out;
		}
	unlink(p.buf);
	fd = open(p.buf, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0) {
		r = cix_error_errno(err, -errno, "cannot create '%s'", p.buf);
		goto out;
	}
	if ((r = ofd_lock(fd, F_RDLCK, 1)) < 0) {
		cix_error_errno(err, r, "cannot lock '%s'", p.buf);
		close(fd);
		unlink(p.buf);
		fd = -1;
		goto out;
	}
	r = fd;
out:
	if (gc >= 0)
		close(gc);
	strbuf_release(&p);
	return r;
}

int cix_local_add_temp_roots(struct cix_store *s, const char *const *paths, size_t n,
			     struct cix_err *err)
{
	int r = 0;
	if (!n)
		return 0;
	struct strbuf data = STRBUF_INIT;
	for (size_t i = 0; i < n; i++)
		strbuf_add(&data, paths[i], strlen(paths[i]) + 1);
	pthread_mutex_lock(&temp_mutex);
	if (s->temproots_fd < 0 && (r = open_temp_file(s, err)) >= 0) {
		s->temproots_fd = r;
		r = 0;
	}
	if (!r) {
		/* Waits while a collector holds its read lock: it would not see the root. */
		if ((r = ofd_lock(s->temproots_fd, F_WRLCK, 1)) < 0)
			cix_error_errno(err, r, "cannot lock the temporary roots");
		else {
			off_t end = lseek(s->temproots_fd, 0, SEEK_END);
			if (end < 0 || (r = cix_write_full(s->temproots_fd, data.buf, data.len)) < 0)
				r = cix_error_errno(err, end < 0 ? -errno : r,
						    "cannot write the temporary roots");
			ofd_lock(s->temproots_fd, F_RDLCK, 1);
		}
	}
	pthread_mutex_unlock(&temp_mutex);
	strbuf_release(&data);
	return r;
}

int cix_store_add_temp_root(struct cix_store *s, const char *path, struct cix_err *err)
{
	return cix_store_add_temp_roots(s, &path, 1, err);
}

void cix_store_drop_temp_roots(struct cix_store *s)
{
	if (s->temproots_fd < 0)
		return;
	struct strbuf p = STRBUF_INIT;
	strbuf_addf(&p, "%s/temproots/%ld", s->state_dir, (long)getpid());
	unlink(p.buf);
	strbuf_release(&p);
	close(s->temproots_fd);
	s->temproots_fd = -1;
}

void cix_store_clean_temp_roots(struct cix_store *s)
{
	struct strbuf p = STRBUF_INIT;
	DIR *d = NULL;
	struct dirent *de;
	strbuf_addf(&p, "%s/gc.lock", s->state_dir);
	int gc = open(p.buf, O_RDWR | O_NOFOLLOW | O_CLOEXEC);
	strbuf_reset(&p);
	strbuf_addf(&p, "%s/temproots", s->state_dir);
	if (gc >= 0 && flock(gc, LOCK_EX | LOCK_NB) == 0 && (d = opendir(p.buf))) {
		while ((de = readdir(d))) {
			if (de->d_name[0] == '.')
				continue;
			int fd = openat(dirfd(d), de->d_name, O_RDWR | O_NOFOLLOW | O_CLOEXEC);
			if (fd < 0)
				continue;
			if (ofd_lock(fd, F_WRLCK, 0) == 0)
				unlinkat(dirfd(d), de->d_name, 0);
			close(fd);
		}
		closedir(d);
	}
	if (gc >= 0)
		close(gc);
	strbuf_release(&p);
}

/* ---- Indirect roots ---- */

int cix_local_add_indirect_root(struct cix_store *s, const char *link, struct cix_err *err)
{
	struct strbuf dir = STRBUF_INIT, tmp = STRBUF_INIT;
	struct cix_hash h;
	int r;
	/* link is absolute: cix_store_add_indirect_root checked it for every kind of store. */
	cix_hash_buf(CIX_HASH_SHA256, link, strlen(link), &h);
	strbuf_addf(&dir, "%s/gcroots/auto", s->state_dir);
	if ((r = cix_mkdirs(dir.buf, err)) < 0)
		goto out;
	strbuf_addch(&dir, '/');
	cix_nixbase32_encode(&dir, h.bytes, 20);
	strbuf_addf(&tmp, "%s.tmp-%ld", dir.buf, (long)getpid());
	unlink(tmp.buf);
	if (symlink(link, tmp.buf) < 0 || rename(tmp.buf, dir.buf) < 0) {
		r = cix_error_errno(err, -errno, "cannot create '%s'", dir.buf);
		unlink(tmp.buf);
	}
out:
	strbuf_release(&dir);
	strbuf_release(&tmp);
	return r;
}

/* ---- Finding the roots ---- */

void cix_gc_roots_add(struct cix_store *s, const char *link, const char *p,
		      struct cix_gc_roots *roots)
{
	size_t n = strlen(s->store_dir);
	if (strncmp(p, s->store_dir, n) || p[n] != '/' || !p[n + 1])
		return;
	const char *end = strchrnul(p + n + 1, '/');
	char *path = xstrndup(p, (size_t)(end - p));
	if (cix_store_check_path(s, path, NULL) == 0) {
		ALLOC_GROW(roots->v, roots->nr + 1, roots->alloc);
		roots->v[roots->nr++] = (struct cix_gc_root){ .link = xstrdup(link), .path = path };
	} else {
		free(path);
	}
}

int cix_gc_roots_cancelled(const struct cix_gc_roots *roots)
{
	return roots->cancelled && roots->cancelled(roots->cancel_opaque);
}

/* Is the file's owner alive (it holds a lock on it)? */
static int held(int fd)
{
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
	return fcntl(fd, F_OFD_GETLK, &fl) == 0 && fl.l_type != F_UNLCK;
}

static void read_temp_file(struct cix_store *s, int dfd, const char *name, int lock,
			   struct cix_gc_roots *roots)
{
	int fd = openat(dfd, name, O_RDWR | O_NOFOLLOW | O_CLOEXEC);
	struct strbuf data = STRBUF_INIT, link = STRBUF_INIT;
	if (fd < 0)
		return;
	if (atol(name) == (long)getpid()) {
		/* our own: read as it is (locking it would wait for ourselves) */
	} else if (lock) {
		if (ofd_lock(fd, F_WRLCK, 0) == 0) {
			/* nobody holds it: its process is gone */
			unlinkat(dfd, name, 0);
			close(fd);
			return;
		}
		/* Its owner may add no more roots until the collector is done. */
		if (ofd_lock(fd, F_RDLCK, 1) < 0) {
			close(fd);
			return;
		}
	} else if (!held(fd)) {
		close(fd);
		return;
	}
	char buf[65536];
	ssize_t n;
	while ((n = pread(fd, buf, sizeof(buf), (off_t)data.len)) > 0 && data.len < MAX_TEMP_FILE)
		strbuf_add(&data, buf, (size_t)n);
	strbuf_addf(&link, "{temp:%s}", name);
	for (size_t i = 0; i < data.len; i += strlen(data.buf + i) + 1)
		cix_gc_roots_add(s, link.buf, data.buf + i, roots);
	if (lock) {
		ALLOC_GROW(roots->fds, roots->nr_fds + 1, roots->alloc_fds);
		roots->fds[roots->nr_fds++] = fd;
	} else {
		close(fd);
	}
	strbuf_release(&data);
	strbuf_release(&link);
}

static void temp_roots(struct cix_store *s, int lock, struct cix_gc_roots *roots)
{
	struct strbuf dir = STRBUF_INIT;
	DIR *d;
	struct dirent *de;
	strbuf_addf(&dir, "%s/temproots", s->state_dir);
	if (!(d = opendir(dir.buf))) {
		strbuf_release(&dir);
		return;
	}
	while ((de = readdir(d))) {
		char *end;
		long pid = strtol(de->d_name, &end, 10);
		if (*end || pid <= 0)
			continue;
		read_temp_file(s, dirfd(d), de->d_name, lock, roots);
	}
	closedir(d);
	strbuf_release(&dir);
}

int cix_gc_find_roots(struct cix_store *s, int lock_temp, struct cix_gc_roots *roots,
		      struct cix_err *err)
{
	/*
	 * Temporary roots first: a process that makes a permanent root drops
	 * its temporary one only after, so one of the two is seen.
	 */
	temp_roots(s, lock_temp, roots);
	int r = cix_gc_scan_links(s, roots, err);
	return r < 0 ? r : cix_gc_runtime_roots(s, roots, err);
}

void cix_gc_roots_release(struct cix_gc_roots *roots)
{
	for (size_t i = 0; i < roots->nr; i++) {
		free(roots->v[i].link);
		free(roots->v[i].path);
	}
	free(roots->v);
	for (size_t i = 0; i < roots->nr_fds; i++)
		close(roots->fds[i]);
	free(roots->fds);
	memset(roots, 0, sizeof(*roots));
}

int cix_gc_roots(struct cix_store *s, struct strvec *out, struct cix_err *err)
{
	struct cix_gc_roots roots = { 0 };
	int r = cix_gc_find_roots(s, 0, &roots, err);
	for (size_t i = 0; !r && i < roots.nr; i++)
		strvec_push(out, roots.v[i].path);
	cix_gc_roots_release(&roots);
	strvec_sort_unique(out);
	return r;
}
