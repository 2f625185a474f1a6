/* source-edit.c - a package's version and source hash rewritten in its module's text */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "source-edit.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- reading Scheme text as tokens ---- */

enum tok_kind { T_END, T_OPEN, T_CLOSE, T_STRING, T_ATOM, T_DATUM_COMMENT, T_ERROR };

struct tok {
	enum tok_kind kind;
	size_t start, end;   /* a string's contents, an atom's bytes */
	int escaped;         /* the string holds a backslash */
};

struct scan {
	const char *s;
	size_t len, pos;
};

static int is_space(int c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

static int delimiter(int c)
{
	return is_space(c) || (c && strchr("()[]\";", c));
}

static int at(const struct scan *sc, size_t i)
{
	return sc->pos + i < sc->len ? (unsigned char)sc->s[sc->pos + i] : 0;
}

/* Whitespace, comments and quote marks. */
static void skip_space(struct scan *sc)
{
	while (sc->pos < sc->len) {
		int c = at(sc, 0);
		if (is_space(c) || c == '\'' || c == '`' || c == ',' || c == '@') {
			sc->pos++;
		} else if (c == ';') {
			while (sc->pos < sc->len && sc->s[sc->pos] != '\n')
				sc->pos++;
		} else if (c == '#' && at(sc, 1) == '|') {
			int nest = 1;
			sc->pos += 2;
			while (sc->pos < sc->len && nest) {
				if (at(sc, 0) == '|' && at(sc, 1) == '#') {
					nest--;
					sc->pos += 2;
				} else if (at(sc, 0) == '#' && at(sc, 1) == '|') {
					nest++;
					sc->pos += 2;
				} else {
					sc->pos++;
				}
			}
		} else {
			return;
		}
	}
}

static void next(struct scan *sc, struct tok *t)
{
	memset(t, 0, sizeof(*t));
	skip_space(sc);
	if (sc->pos >= sc->len) {
		t->kind = T_END;
		return;
	}
	int c = at(sc, 0);
	t->start = sc->pos;
	if (c == '(' || c == '[' || (c == '#' && at(sc, 1) == '(')) {
		t->kind = T_OPEN;
		sc->pos += c == '#' ? 2 : 1;
	} else if (c == ')' || c == ']') {
		t->kind = T_CLOSE;
		sc->pos++;
	} else if (c == '"') {
		t->start = ++sc->pos;
		while (sc->pos < sc->len && sc->s[sc->pos] != '"') {
			if (sc->s[sc->pos] == '\\') {
				t->escaped = 1;
				sc->pos++;
			}
			sc->pos++;
		}
		if (sc->pos >= sc->len) {
			t->kind = T_ERROR;
			return;
		}
		t->kind = T_STRING;
		t->end = sc->pos++;
	} else if (c == '#' && at(sc, 1) == ';') {
		t->kind = T_DATUM_COMMENT;
		sc->pos += 2;
	} else {
		/* An atom; #\x takes its first character whatever it is. */
		t->kind = T_ATOM;
		if (c == '#' && at(sc, 1) == '\\')
			sc->pos += sc->pos + 2 < sc->len ? 3 : 2;
		while (sc->pos < sc->len && !delimiter(at(sc, 0)))
			sc->pos++;
	}
	if (t->kind != T_STRING)
		t->end = sc->pos;
}

/* ---- finding the fields ---- */

#define MAX_DEPTH 256
enum { IN_URI = 1, IGNORED = 2 };

struct edit {
	struct scan sc;
	const struct cix_pkg_edit *e;
	size_t ver_start, ver_end;
	int versions, bad_version;
	size_t hash_start;
	int hashes;
	int uri_names_version;
	struct cix_err *err;
};

static int tok_is(const struct edit *ed, const struct tok *t, const char *s)
{
	size_t n = strlen(s);
	return t->end - t->start == n && !memcmp(ed->sc.s + t->start, s, n);
}

static int tok_has(const struct edit *ed, const struct tok *t, const char *s)
{
	size_t n = strlen(s);
	for (size_t i = t->start; n && i + n <= t->end; i++)
		if (!memcmp(ed->sc.s + i, s, n))
			return 1;
	return 0;
}

/* The datum that starts with t, at depth (the package form's is 0). */
static int walk(struct edit *ed, const struct tok *t, int depth, int flags)
{
	struct tok head, x;
	const char *field = NULL;

	if (t->kind == T_STRING) {
		if ((flags & (IN_URI | IGNORED)) == IN_URI && tok_has(ed, t, ed->e->old_version))
			ed->uri_names_version = 1;
		return 0;
	}
	if (t->kind == T_ATOM)
		return 0;
	if (t->kind == T_DATUM_COMMENT) {
		next(&ed->sc, &x);
		return walk(ed, &x, depth, flags | IGNORED);
	}
	if (t->kind != T_OPEN)
		return cix_error(ed->err, -CIX_EFORMAT, "the package form is not well formed");
	if (depth >= MAX_DEPTH)
		return cix_error(ed->err, -CIX_ELIMIT, "the package form is nested too deep");
	next(&ed->sc, &head);
	if (head.kind == T_ATOM) {
		if (tok_is(ed, &head, "version") && depth == 1)
			field = "version";
		else if (tok_is(ed, &head, "base32"))
			field = "base32";
		else if (tok_is(ed, &head, "uri"))
			flags |= IN_URI;
	}
	for (size_t i = 0;; i++) {
		if (i == 0)
			x = head;
		else
			next(&ed->sc, &x);
		if (x.kind == T_CLOSE)
			return 0;
		if (x.kind == T_END || x.kind == T_ERROR)
			return cix_error(ed->err, -CIX_EFORMAT, "the package form does not end");
		if (i == 1 && field && !(flags & IGNORED)) {
			int literal = x.kind == T_STRING && !x.escaped;
			if (field[0] == 'v') {
				ed->versions++;
				if (literal && tok_is(ed, &x, ed->e->old_version)) {
					ed->ver_start = x.start;
					ed->ver_end = x.end;
				} else {
					ed->bad_version = 1;
				}
			} else if (literal && tok_is(ed, &x, ed->e->old_hash)) {
				ed->hashes++;
				ed->hash_start = x.start;
			}
		}
		int r = walk(ed, &x, depth + 1, flags);
		if (r < 0)
			return r;
	}
}

/* The byte offset of line:column, as Guile counts them; or -1. */
static long offset_of(const char *text, size_t len, unsigned long line, unsigned long column)
{
	size_t i = 0;
	unsigned long l = 1, col = 0;
	while (i < len && l < line)
		if (text[i++] == '\n')
			l++;
	if (l != line)
		return -1;
	for (; i < len && text[i] != '\n'; i++) {
		unsigned char c = (unsigned char)text[i];
		if ((c & 0xc0) == 0x80)
			continue;   /* inside a UTF-8 character */
		if (col == column)
			return (long)i;
		col = c == '\t' ? col + 8 - col % 8 : col + 1;
	}
	return -1;
}

int cix_source_edit_package(const char *text, size_t len, unsigned long line,
			    unsigned long column, const struct cix_pkg_edit *e,
			    struct strbuf *out, struct cix_err *err)
{
	struct edit ed = { .sc = { text, len, 0 }, .e = e, .err = err };
	struct tok t, head;
	long off = offset_of(text, len, line, column);
	int r;

	if (strpbrk(e->new_version, "\"\\\n") || strpbrk(e->new_hash, "\"\\\n") ||
	    !*e->old_version || !*e->old_hash)
		return cix_error(err, -CIX_EINVAL, "bad version or hash to write");
	if (off < 0 || text[off] != '(')
		return cix_error(err, -CIX_EFORMAT, "no form starts at line %lu, column %lu",
				 line, column);
	ed.sc.pos = (size_t)off;
	next(&ed.sc, &t);
	struct scan peek = ed.sc;
	next(&peek, &head);
	if (head.kind != T_ATOM || !tok_is(&ed, &head, "package"))
		return cix_error(err, -CIX_EFORMAT, "line %lu, column %lu: not a (package ...) form",
				 line, column);
	if ((r = walk(&ed, &t, 0, 0)) < 0)
		return r;
	if (ed.versions != 1 || ed.bad_version)
		return cix_error(err, -CIX_EFORMAT,
				 "the package has no field (version \"%s\") to change", e->old_version);
	if (ed.hashes != 1)
		return cix_error(err, -CIX_EFORMAT, "the package has %s (base32 \"%s\")",
				 ed.hashes ? "more than one" : "no", e->old_hash);
	if (ed.uri_names_version)
		return cix_error(err, -CIX_EFORMAT,
				 "the package's uri spells out version %s: write it with `version'",
				 e->old_version);

	/* The two strings replaced, in the order they come. */
	size_t hash_end = ed.hash_start + strlen(e->old_hash);
	size_t a0 = ed.ver_start, a1 = ed.ver_end, b0 = ed.hash_start, b1 = hash_end;
	const char *as = e->new_version, *bs = e->new_hash;
	if (b0 < a0) {
		a0 = ed.hash_start, a1 = hash_end, b0 = ed.ver_start, b1 = ed.ver_end;
		as = e->new_hash, bs = e->new_version;
	}
	strbuf_add(out, text, a0);
	strbuf_addstr(out, as);
	strbuf_add(out, text + a1, b0 - a1);
	strbuf_addstr(out, bs);
	strbuf_add(out, text + b1, len - b1);
	return 0;
}

/* ---- the file ---- */

#define MAX_SOURCE (64UL << 20)

static int same_file(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino && a->st_size == b->st_size &&
	       a->st_mtim.tv_sec == b->st_mtim.tv_sec && a->st_mtim.tv_nsec == b->st_mtim.tv_nsec;
}

int cix_source_edit_file(const char *file, unsigned long line, unsigned long column,
			 const struct cix_pkg_edit *e, struct cix_err *err)
{
	struct strbuf text = STRBUF_INIT, out = STRBUF_INIT, tmp = STRBUF_INIT;
	char *real = realpath(file, NULL), *dir = NULL;
	struct stat st, now;
	int fd = -1, tfd = -1, r;

	if (!real)
		return cix_error_errno(err, -errno, "cannot find '%s'", file);
	if ((fd = open(real, O_RDONLY | O_CLOEXEC)) < 0 || fstat(fd, &st) < 0) {
		r = cix_error_errno(err, -errno, "cannot open '%s'", real);
		goto out;
	}
	if (!S_ISREG(st.st_mode) || (uint64_t)st.st_size > MAX_SOURCE) {
		r = cix_error(err, -CIX_EINVAL, "'%s' is not a regular file of at most 64 MiB", real);
		goto out;
	}
	if ((r = strbuf_read_fd(&text, fd)) < 0) {
		r = cix_error_errno(err, r, "cannot read '%s'", real);
		goto out;
	}
	if ((r = cix_source_edit_package(text.buf, text.len, line, column, e, &out, err)) < 0) {
		char msg[CIX_ERR_MSG_MAX];
		snprintf(msg, sizeof(msg), "%s", err ? err->msg : "");
		r = cix_error(err, r, "%s:%lu:%lu: %s", file, line, column, msg);
		goto out;
	}
	const char *slash = strrchr(real, '/');
	dir = xstrndup(real, (size_t)(slash - real));
	strbuf_addf(&tmp, "%s/.%s.cix-XXXXXX", dir, slash + 1);
	if ((tfd = mkostemp(tmp.buf, O_CLOEXEC)) < 0) {
		r = cix_error_errno(err, -errno, "cannot create a file beside '%s'", real);
		strbuf_reset(&tmp);
		goto out;
	}
	if (fchmod(tfd, st.st_mode & 07777) < 0 || (r = cix_write_full(tfd, out.buf, out.len)) < 0 ||
	    fsync(tfd) < 0 || close(tfd) < 0) {
		tfd = -1;
		r = cix_error_errno(err, -errno, "cannot write '%s'", tmp.buf);
		goto out;
	}
	tfd = -1;
	if (stat(real, &now) < 0 || !same_file(&st, &now)) {
		r = cix_error(err, -CIX_EEXIST, "'%s' changed while it was being edited", real);
		goto out;
	}
	if (rename(tmp.buf, real) < 0) {
		r = cix_error_errno(err, -errno, "cannot rename '%s' to '%s'", tmp.buf, real);
		goto out;
	}
	strbuf_reset(&tmp);
	r = 0;
out:
	if (tfd >= 0)
		close(tfd);
	if (tmp.len)
		unlink(tmp.buf);
	if (fd >= 0)
		close(fd);
	free(dir);
	free(real);
	strbuf_release(&text);
	strbuf_release(&out);
	strbuf_release(&tmp);
	return r;
}
