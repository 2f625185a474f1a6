/* nar-write.c - serialise a file system tree as a Nix ARchive */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "nar.h"
#include "nar-writer.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/*
 * The walk writes into a buffer owned by the writer and, for file contents,
 * read()s straight into that buffer: no intermediate copy, and a whole small
 * file plus its framing usually costs one read() and no flush. Whoever owns
 * the writer decides what a flush does (call a sink, or hand the buffer to a
 * hashing thread, see nar-hash.c).
 */

static int w_bytes(struct nar_writer *w, const void *p, size_t n)
{
	const unsigned char *s = p;
	while (n) {
		if (w->len == w->cap) {
			int r = w->flush(w);
			if (r < 0)
				return r;
		}
		size_t k = w->cap - w->len < n ? w->cap - w->len : n;
		memcpy(w->buf + w->len, s, k);
		w->len += k;
		s += k;
		n -= k;
	}
	return 0;
}

static int w_u64(struct nar_writer *w, uint64_t v)
{
	unsigned char b[8];
	cix_put_u64le(b, v);
	return w_bytes(w, b, 8);
}

static int w_pad(struct nar_writer *w, uint64_t len)
{
	static const unsigned char zero[8];
	return len % 8 ? w_bytes(w, zero, 8 - len % 8) : 0;
}

static int w_str(struct nar_writer *w, const char *s, size_t n)
{
	int r = w_u64(w, n);
	if (!r)
		r = w_bytes(w, s, n);
	if (!r)
		r = w_pad(w, n);
	return r;
}

#define W_LIT(w, lit) w_str((w), (lit), sizeof(lit) - 1)

/* The fixed token sequences, pre-serialised. */
static int w_toks(struct nar_writer *w, const char *const *toks)
{
	for (; *toks; toks++) {
		int r = w_str(w, *toks, strlen(*toks));
		if (r < 0)
			return r;
	}
	return 0;
}

static int dump_contents(struct nar_writer *w, int fd, uint64_t size,
			 const char *name, struct cix_err *err)
{
	uint64_t left = size;
	int r = w_u64(w, size);
	if (r < 0)
		return r;
	while (left) {
		if (w->len == w->cap && (r = w->flush(w)) < 0)
			return r;
		size_t room = w->cap - w->len;
		size_t want = left < room ? (size_t)left : room;
		ssize_t n = read(fd, w->buf + w->len, want);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return cix_error_errno(err, -errno, "cannot read '%s'", name);
		}
		if (n == 0)
			return cix_error(err, -CIX_EMISMATCH,
					 "file '%s' shrank while being archived", name);
		w->len += (size_t)n;
		left -= (uint64_t)n;
	}
	/* A file that grew would make the NAR disagree with its header. */
	char extra;
	ssize_t n;
	while ((n = read(fd, &extra, 1)) < 0 && errno == EINTR)
		;
	if (n > 0)
		return cix_error(err, -CIX_EMISMATCH,
				 "file '%s' grew while being archived", name);
	return w_pad(w, size);
}

struct ent {
	char *name;
	size_t len;
};

static int ent_cmp(const void *a, const void *b)
{
	const struct ent *x = a, *y = b;
	size_t n = x->len < y->len ? x->len : y->len;
	int c = memcmp(x->name, y->name, n);
	return c ? c : (x->len > y->len) - (x->len < y->len);
}

static int dump_node(struct nar_writer *w, int dirfd, const char *name,
		     const char *display, int depth, struct cix_err *err);

static int dump_dir(struct nar_writer *w, int fd, const char *display,
		    int depth, struct cix_err *err)
{
	static const char *const head[] = { "type", "directory", NULL };
	static const char *const entry[] = { "entry", "(", "name", NULL };
	struct ent *ents = NULL;
	size_t nr = 0, alloc = 0;
	int r;
	DIR *d = fdopendir(fd);

	if (!d) {
		r = cix_error_errno(err, -errno, "cannot read directory '%s'", display);
		close(fd);
		return r;
	}
	for (;;) {
		errno = 0;
		struct dirent *de = readdir(d);
		if (!de) {
			if (errno) {
				r = cix_error_errno(err, -errno, "cannot read directory '%s'", display);
				goto out;
			}
			break;
		}
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		ALLOC_GROW(ents, nr + 1, alloc);
		ents[nr].len = strlen(de->d_name);
		ents[nr].name = xmemdup(de->d_name, ents[nr].len + 1);
		nr++;
	}
	qsort(ents, nr, sizeof(*ents), ent_cmp);

	r = w_toks(w, head);
	for (size_t i = 0; !r && i < nr; i++) {
		r = w_toks(w, entry);
		if (!r)
			r = w_str(w, ents[i].name, ents[i].len);
		if (!r)
			r = W_LIT(w, "node");
		if (!r) {
			char *sub = xmalloc(strlen(display) + ents[i].len + 2);
			strcpy(sub, display);
			strcat(sub, "/");
			strcat(sub, ents[i].name);
			r = dump_node(w, dirfd(d), ents[i].name, sub, depth + 1, err);
			free(sub);
		}
		if (!r)
			r = W_LIT(w, ")");
	}
out:
	for (size_t i = 0; i < nr; i++)
		free(ents[i].name);
	free(ents);
	closedir(d);
	return r;
}

static int dump_node(struct nar_writer *w, int dirfd, const char *name,
		     const char *display, int depth, struct cix_err *err)
{
	struct stat st;
	int r, fd;

	if (depth > CIX_NAR_MAX_DEPTH)
		return cix_error(err, -CIX_ELIMIT,
				 "'%s' is nested more than %d directories deep",
				 display, CIX_NAR_MAX_DEPTH);
	/*
	 * Open first, then fstat, so that the type we check is the type of
	 * what we read. O_PATH|O_NOFOLLOW opens symlinks and special files
	 * without side effects (a FIFO would block a plain open).
	 */
	fd = openat(dirfd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return cix_error_errno(err, -errno, "cannot open '%s'", display);
	if (fstat(fd, &st) < 0) {
		r = cix_error_errno(err, -errno, "cannot stat '%s'", display);
		close(fd);
		return r;
	}
	if ((r = W_LIT(w, "(")) < 0)
		goto out;

	if (S_ISREG(st.st_mode)) {
		static const char *const reg[] = { "type", "regular", NULL };
		static const char *const exe[] = { "executable", "", NULL };
		int rfd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY);
		if (rfd < 0) {
			r = cix_error_errno(err, -errno, "cannot open '%s'", display);
			goto out;
		}
		struct stat st2;
		if (fstat(rfd, &st2) < 0 || st2.st_ino != st.st_ino || st2.st_dev != st.st_dev) {
			close(rfd);
			r = cix_error(err, -CIX_EMISMATCH, "'%s' changed while being archived", display);
			goto out;
		}
		r = w_toks(w, reg);
		if (!r && (st.st_mode & S_IXUSR))
			r = w_toks(w, exe);
		if (!r)
			r = W_LIT(w, "contents");
		if (!r)
			r = dump_contents(w, rfd, (uint64_t)st.st_size, display, err);
		close(rfd);
	} else if (S_ISLNK(st.st_mode)) {
		static const char *const lnk[] = { "type", "symlink", "target", NULL };
		char target[CIX_NAR_MAX_TARGET + 1];
		ssize_t n = readlinkat(fd, "", target, sizeof(target));
		if (n < 0) {
			r = cix_error_errno(err, -errno, "cannot read symlink '%s'", display);
			goto out;
		}
		if ((size_t)n > CIX_NAR_MAX_TARGET) {
			r = cix_error(err, -CIX_ELIMIT, "symlink '%s' has a target longer than %d bytes",
				      display, CIX_NAR_MAX_TARGET);
			goto out;
		}
		r = w_toks(w, lnk);
		if (!r)
			r = w_str(w, target, (size_t)n);
	} else if (S_ISDIR(st.st_mode)) {
		int dfd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (dfd < 0) {
			r = cix_error_errno(err, -errno, "cannot open directory '%s'", display);
			goto out;
		}
		r = dump_dir(w, dfd, display, depth, err); /* closes dfd */
	} else {
		const char *what = S_ISSOCK(st.st_mode) ? "socket" :
				   S_ISFIFO(st.st_mode) ? "FIFO" :
				   S_ISCHR(st.st_mode) ? "character device" :
				   S_ISBLK(st.st_mode) ? "block device" : "special file";
		r = cix_error(err, -CIX_EUNSUPPORTED,
			      "cannot archive '%s': it is a %s", display, what);
		goto out;
	}
	if (!r)
		r = W_LIT(w, ")");
out:
	close(fd);
	if (r < 0 && err && !err->msg[0])
		cix_error_errno(err, r, "cannot archive '%s'", display);
	return r;
}

int nar_writer_dump_at(struct nar_writer *w, int dirfd, const char *path,
		       struct cix_err *err)
{
	int r = W_LIT(w, "nix-archive-1");
	if (!r)
		r = dump_node(w, dirfd, path, path, 0, err);
	if (!r && w->len)
		r = w->flush(w);
	return r;
}

/* ---- Writer over a plain sink ---- */

struct sink_writer {
	struct nar_writer w;
	cix_sink_fn sink;
	void *opaque;
};

static int sink_flush(struct nar_writer *w)
{
	struct sink_writer *sw = (struct sink_writer *)w;
	int r = w->len ? sw->sink(sw->opaque, w->buf, w->len) : 0;
	w->len = 0;
	return r;
}

int cix_nar_dump_at(int dirfd, const char *path, cix_sink_fn sink,
		    void *opaque, struct cix_err *err)
{
	struct sink_writer sw = { .sink = sink, .opaque = opaque };
	int r;
	sw.w.cap = 256 * 1024;
	sw.w.buf = xmalloc(sw.w.cap);
	sw.w.flush = sink_flush;
	cix_err_clear(err);
	r = nar_writer_dump_at(&sw.w, dirfd, path, err);
	free(sw.w.buf);
	return r;
}

int cix_nar_dump(const char *path, cix_sink_fn sink, void *opaque,
		 struct cix_err *err)
{
	return cix_nar_dump_at(AT_FDCWD, path, sink, opaque, err);
}
