/* nar-write.c - serialise a file system tree as a Nix ARchive */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "quote.h"
#include "nar.h"
#include "nar-writer.h"
#include "strbuf.h"

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

/*
 * Copy size bytes of fd into the NAR. Reads ask for one byte more than
 * remains whenever the buffer has room, so a short read proves end of
 * file without an extra system call; a file that changes size while being
 * read would make the NAR disagree with its header, and is refused.
 */
static int dump_contents(struct nar_writer *w, int fd, uint64_t size,
			 const char *name, struct cix_err *err)
{
	uint64_t left = size;
	int r = w_u64(w, size), at_eof = 0;
	if (r < 0)
		return r;
	while (!at_eof) {
		if (w->len == w->cap && (r = w->flush(w)) < 0)
			return r;
		size_t room = w->cap - w->len;
		size_t want = left < room ? (size_t)left + 1 : room;
		ssize_t n = read(fd, w->buf + w->len, want);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return cix_error_errno(err, -errno, "cannot read '%s'", name);
		}
		if ((uint64_t)n > left)
			return cix_error(err, -CIX_EMISMATCH,
					 "file '%s' grew while being archived", name);
		if (n == 0 && left)
			return cix_error(err, -CIX_EMISMATCH,
					 "file '%s' shrank while being archived", name);
		w->len += (size_t)n;
		left -= (uint64_t)n;
		at_eof = n == 0 || (size_t)n < want;
	}
	if (left)
		return cix_error(err, -CIX_EMISMATCH,
				 "file '%s' shrank while being archived", name);
	return w_pad(w, size);
}

struct ent {
	char *name;
	size_t len;
	unsigned char type; /* d_type */
};

static int ent_cmp(const void *a, const void *b)
{
	const struct ent *x = a, *y = b;
	size_t n = x->len < y->len ? x->len : y->len;
	int c = memcmp(x->name, y->name, n);
	return c ? c : (x->len > y->len) - (x->len < y->len);
}

struct walk {
	struct nar_writer *w;
	struct strbuf path; /* for messages only */
	struct cix_err *err;
};

static int dump_node(struct walk *wk, int dirfd, const char *name,
		     unsigned char dtype, int depth);

/* Read every entry of the directory fd with getdents64, sorted bytewise. */
static int read_dir(struct walk *wk, int fd, struct ent **out, size_t *nr_out)
{
	struct ent *ents = NULL;
	size_t nr = 0, alloc = 0;
	char buf[32768];

	for (;;) {
		ssize_t n = getdents64(fd, buf, sizeof(buf));
		if (n < 0) {
			if (errno == EINTR)
				continue;
			int r = cix_error_errno(wk->err, -errno, "cannot read directory '%s'",
						wk->path.buf);
			for (size_t i = 0; i < nr; i++)
				free(ents[i].name);
			free(ents);
			return r;
		}
		if (n == 0)
			break;
		for (ssize_t off = 0; off < n;) {
			struct dirent64 *de = (struct dirent64 *)(buf + off);
			off += de->d_reclen;
			if (de->d_name[0] == '.' && (!de->d_name[1] ||
			    (de->d_name[1] == '.' && !de->d_name[2])))
				continue;
			ALLOC_GROW(ents, nr + 1, alloc);
			ents[nr].len = strlen(de->d_name);
			ents[nr].name = xmemdup(de->d_name, ents[nr].len + 1);
			ents[nr].type = de->d_type;
			nr++;
		}
	}
	if (nr > 1)
		qsort(ents, nr, sizeof(*ents), ent_cmp);
	*out = ents;
	*nr_out = nr;
	return 0;
}

static int dump_dir(struct walk *wk, int fd, int depth)
{
	static const char *const entry[] = { "entry", "(", "name", NULL };
	struct nar_writer *w = wk->w;
	struct ent *ents = NULL;
	size_t nr = 0, base = wk->path.len;
	int r = read_dir(wk, fd, &ents, &nr);
	if (r < 0)
		return r;
	for (size_t i = 0; !r && i < nr; i++) {
		r = w_toks(w, entry);
		if (!r)
			r = w_str(w, ents[i].name, ents[i].len);
		if (!r)
			r = W_LIT(w, "node");
		if (!r) {
			strbuf_addch(&wk->path, '/');
			strbuf_add_quoted(&wk->path, ents[i].name, ents[i].len);
			r = dump_node(wk, fd, ents[i].name, ents[i].type, depth + 1);
			strbuf_setlen(&wk->path, base);
		}
		if (!r)
			r = W_LIT(w, ")");
	}
	for (size_t i = 0; i < nr; i++)
		free(ents[i].name);
	free(ents);
	return r;
}

static const char *type_name(mode_t mode)
{
	return S_ISSOCK(mode) ? "socket" : S_ISFIFO(mode) ? "FIFO" :
	       S_ISCHR(mode) ? "character device" :
	       S_ISBLK(mode) ? "block device" : "special file";
}

static int changed(struct walk *wk)
{
	return cix_error(wk->err, -CIX_EMISMATCH, "'%s' changed while being archived",
			 wk->path.buf);
}

/*
 * The type comes from the directory entry where the file system gives one
 * (saving an lstat per file), else from fstatat. Regular files and
 * directories are then opened with O_NOFOLLOW and checked with fstat, so
 * what is archived is what was opened, and a symlink is never followed.
 */
static int dump_node(struct walk *wk, int dirfd, const char *name,
		     unsigned char dtype, int depth)
{
	static const char *const reg[] = { "type", "regular", NULL };
	static const char *const exe[] = { "executable", "", NULL };
	static const char *const lnk[] = { "type", "symlink", "target", NULL };
	static const char *const dir[] = { "type", "directory", NULL };
	struct nar_writer *w = wk->w;
	const char *display = wk->path.buf;
	struct stat st;
	mode_t type;
	int r, fd;

	if (depth > CIX_NAR_MAX_DEPTH)
		return cix_error(wk->err, -CIX_ELIMIT,
				 "'%s' is nested more than %d directories deep",
				 display, CIX_NAR_MAX_DEPTH);
	switch (dtype) {
	case DT_REG: type = S_IFREG; break;
	case DT_DIR: type = S_IFDIR; break;
	case DT_LNK: type = S_IFLNK; break;
	default:
		if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
			return cix_error_errno(wk->err, -errno, "cannot stat '%s'", display);
		type = st.st_mode & S_IFMT;
	}

	if ((r = W_LIT(w, "(")) < 0)
		return r;
	if (type == S_IFLNK) {
		char target[CIX_NAR_MAX_TARGET + 1];
		ssize_t n = readlinkat(dirfd, name, target, sizeof(target));
		if (n < 0)
			return errno == EINVAL ? changed(wk) :
			       cix_error_errno(wk->err, -errno, "cannot read symlink '%s'", display);
		if ((size_t)n > CIX_NAR_MAX_TARGET)
			return cix_error(wk->err, -CIX_ELIMIT,
					 "symlink '%s' has a target longer than %d bytes",
					 display, CIX_NAR_MAX_TARGET);
		r = w_toks(w, lnk);
		if (!r)
			r = w_str(w, target, (size_t)n);
	} else if (type == S_IFREG || type == S_IFDIR) {
		int flags = O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC;
		fd = openat(dirfd, name, flags | (type == S_IFDIR ? O_DIRECTORY : 0));
		if (fd < 0)
			return errno == ELOOP || errno == ENOTDIR ? changed(wk) :
			       cix_error_errno(wk->err, -errno, "cannot open '%s'", display);
		if (fstat(fd, &st) < 0) {
			r = cix_error_errno(wk->err, -errno, "cannot stat '%s'", display);
		} else if ((st.st_mode & S_IFMT) != type) {
			r = changed(wk);
		} else if (type == S_IFREG) {
			r = w_toks(w, reg);
			if (!r && (st.st_mode & S_IXUSR))
				r = w_toks(w, exe);
			if (!r)
				r = W_LIT(w, "contents");
			if (!r)
				r = dump_contents(w, fd, (uint64_t)st.st_size, display, wk->err);
		} else {
			r = w_toks(w, dir);
			if (!r)
				r = dump_dir(wk, fd, depth);
		}
		close(fd);
	} else {
		return cix_error(wk->err, -CIX_EUNSUPPORTED,
				 "cannot archive '%s': it is a %s", display, type_name(type));
	}
	if (!r)
		r = W_LIT(w, ")");
	if (r < 0 && wk->err && !wk->err->msg[0])
		cix_error_errno(wk->err, r, "cannot archive '%s'", display);
	return r;
}

int nar_writer_dump_at(struct nar_writer *w, int dirfd, const char *path,
		       struct cix_err *err)
{
	struct walk wk = { .w = w, .err = err };
	int r;
	strbuf_init(&wk.path, 256);
	strbuf_add_quoted(&wk.path, path, strlen(path));
	r = W_LIT(w, "nix-archive-1");
	if (!r)
		r = dump_node(&wk, dirfd, path, DT_UNKNOWN, 0);
	if (!r && w->len)
		r = w->flush(w);
	strbuf_release(&wk.path);
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
