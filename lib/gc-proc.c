/* gc-proc.c - runtime roots: the store paths that running processes use */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "gc-int.h"
#include "db.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/*
 * A running program's files may be deleted while it runs, and its libraries
 * while it still maps them, but a program started later from a path that
 * was collected under it would fail. As Nix does, the collector reads
 * /proc: for every process, the links exe, cwd and fd/N, and the store
 * paths named in maps and environ. Processes set their environment and
 * choose their files' names, so all of it is read as hostile: links with
 * readlinkat (nothing is opened through them), files in bounded chunks
 * (a long line or variable never holds more than the chunk), and only
 * names of valid store paths count. Processes that end, or that we may
 * not read, are skipped.
 */

#define CHUNK 65536
/* A store path's name is at most 211 characters after its hash and dash. */
#define MAX_STORE_NAME (32 + 1 + 211)
#define PROC_CHECK_EVERY 32   /* processes read between two looks at cancelled */

struct proc_scan {
	struct cix_store *s;
	struct cix_gc_roots found;   /* (link, path) pairs, unchecked */
	struct strbuf link;          /* /proc/PID/..., the current file */
};

static int name_char(int c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c && strchr("+-._?=", c));
}

static void readlink_root(struct proc_scan *ps, int dfd, const char *name)
{
	char buf[PATH_MAX];
	/* Too long: truncated, but its start (the store path) is what counts. */
	ssize_t n = readlinkat(dfd, name, buf, sizeof(buf) - 1);
	if (n <= 0 || buf[0] != '/')
		return;
	buf[n] = '\0';
	cix_gc_roots_add(ps->s, ps->link.buf, buf, &ps->found);
}

/*
 * The store paths named in buf[0..len): each occurrence of STORE/ and the
 * name characters after it. With more to come, returns how many bytes at
 * the end may start a name cut by the chunk's end (to be read again).
 */
static size_t scan_names(struct proc_scan *ps, const char *buf, size_t len, int more)
{
	const char *dir = ps->s->store_dir;
	size_t dl = strlen(dir), i = 0, keep_from = len > dl ? len - dl : 0;
	char path[PATH_MAX];

	while (i + dl < len) {
		const char *hit = memmem(buf + i, len - i, dir, dl);
		if (!hit || (size_t)(hit - buf) + dl >= len)
			break;
		size_t at = (size_t)(hit - buf), end = at + dl + 1;
		i = at + 1;
		if (buf[at + dl] != '/')
			continue;
		while (end < len && name_char((unsigned char)buf[end]) && end - at - dl <= MAX_STORE_NAME + 1)
			end++;
		if (end == len && more) {
			keep_from = at < keep_from ? at : keep_from;
			break;
		}
		if (end - at < sizeof(path)) {
			memcpy(path, buf + at, end - at);
			path[end - at] = '\0';
			cix_gc_roots_add(ps->s, ps->link.buf, path, &ps->found);
		}
		i = end;
	}
	return more ? len - keep_from : 0;
}

/* The store paths named in the file name of the directory pfd, read in chunks. */
static void scan_file(struct proc_scan *ps, int pfd, const char *name)
{
	int fd = openat(pfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	char *buf;
	size_t len = 0;
	ssize_t n;
	if (fd < 0)
		return;
	buf = xmalloc(CHUNK);
	for (;;) {
		while ((n = read(fd, buf + len, CHUNK - len)) < 0 && errno == EINTR)
			;
		if (n <= 0) {
			scan_names(ps, buf, len, 0);
			break;
		}
		len += (size_t)n;
		size_t keep = scan_names(ps, buf, len, 1);
		memmove(buf, buf + len - keep, keep);
		len = keep;
	}
	free(buf);
	close(fd);
}

static void set_link(struct proc_scan *ps, const char *pid, const char *what)
{
	strbuf_reset(&ps->link);
	strbuf_addf(&ps->link, "/proc/%s/%s", pid, what);
}

static void scan_fds(struct proc_scan *ps, int pfd, const char *pid)
{
	DIR *d = cix_opendir_at(pfd, "fd");
	struct dirent *de;
	if (!d)
		return;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.' || strlen(de->d_name) > 16)
			continue;
		strbuf_reset(&ps->link);
		strbuf_addf(&ps->link, "/proc/%s/fd/%s", pid, de->d_name);
		readlink_root(ps, dirfd(d), de->d_name);
	}
	closedir(d);
}

static void scan_process(struct proc_scan *ps, int proc, const char *pid)
{
	int pfd = openat(proc, pid, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (pfd < 0)
		return;
	set_link(ps, pid, "exe");
	readlink_root(ps, pfd, "exe");
	set_link(ps, pid, "cwd");
	readlink_root(ps, pfd, "cwd");
	scan_fds(ps, pfd, pid);
	set_link(ps, pid, "maps");
	scan_file(ps, pfd, "maps");
	set_link(ps, pid, "environ");
	scan_file(ps, pfd, "environ");
	close(pfd);
}

static int cmp_root(const void *a, const void *b)
{
	const struct cix_gc_root *x = a, *y = b;
	int c = strcmp(x->path, y->path);
	return c ? c : strcmp(x->link, y->link);
}

/*
 * Sort f->v[from..nr) and drop the pairs found twice: a process's maps
 * name each of its libraries on many lines.
 */
static void dedupe(struct cix_gc_roots *f, size_t from)
{
	size_t n = from;
	if (f->nr - from > 1)
		qsort(f->v + from, f->nr - from, sizeof(*f->v), cmp_root);
	for (size_t i = from; i < f->nr; i++) {
		if (n > from && !cmp_root(&f->v[n - 1], &f->v[i])) {
			free(f->v[i].link);
			free(f->v[i].path);
			continue;
		}
		f->v[n++] = f->v[i];
	}
	f->nr = n;
}

/* Each (link, path) pair found once, moved to roots when its path is valid. */
static void keep_valid(struct proc_scan *ps, struct cix_gc_roots *roots)
{
	struct cix_gc_roots *f = &ps->found;
	int valid = 0;
	dedupe(f, 0);
	for (size_t i = 0; i < f->nr; i++) {
		struct cix_gc_root *r = &f->v[i];
		if (!i || strcmp(r->path, f->v[i - 1].path))
			valid = cix_db_is_valid(ps->s->db, r->path, NULL) > 0;
		if (!valid)
			continue;
		ALLOC_GROW(roots->v, roots->nr + 1, roots->alloc);
		roots->v[roots->nr++] = (struct cix_gc_root){ .link = xstrdup(r->link),
							      .path = xstrdup(r->path), .runtime = 1 };
	}
}

int cix_gc_runtime_roots(struct cix_store *s, struct cix_gc_roots *roots, struct cix_err *err)
{
	struct proc_scan ps = { .s = s, .link = STRBUF_INIT };
	int proc = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = proc >= 0 ? fdopendir(proc) : NULL;
	struct dirent *de;
	size_t nr = 0;
	int r = 0;
	if (!d) {
		if (proc >= 0)
			close(proc);
		return 0;   /* no /proc: no runtime roots, as on systems without one */
	}
	while ((de = readdir(d))) {
		char *end;
		long pid = strtol(de->d_name, &end, 10);
		if (*end || pid <= 0 || de->d_name[0] == '0')
			continue;
		if (++nr % PROC_CHECK_EVERY == 0 && cix_gc_roots_cancelled(roots)) {
			r = cix_error(err, -ECANCELED, "the search for roots was cancelled");
			break;
		}
		size_t from = ps.found.nr;
		scan_process(&ps, dirfd(d), de->d_name);
		dedupe(&ps.found, from);
	}
	closedir(d);
	if (!r)
		keep_valid(&ps, roots);
	cix_gc_roots_release(&ps.found);
	strbuf_release(&ps.link);
	return r;
}
