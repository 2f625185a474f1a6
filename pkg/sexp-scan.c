/* sexp-scan.c - bounds on Scheme source text, checked before Guile reads it */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "sexp-scan.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define STR_(x) #x
#define STR(x) STR_(x)

/*
 * The scanner is between data (where Guile's reader skips whitespace and
 * comments and dispatches on the next character) or inside a token (a
 * symbol or number, ended by a delimiter only: "a#|" is one symbol).
 * The places below follow ice-9/read.scm of Guile 3.0.
 *
 * The depth counts open lists and the prefixes waiting for their datum
 * ('x is (quote x): 80,000 quotes take seconds to expand as well), on a
 * stack: a datum ends the prefixes above it up to the first #; (which it
 * ends too: the next datum is for the prefixes below).
 */
enum frame { LIST, PREFIX, COMMENT };

struct scan {
	const unsigned char *p;
	size_t len, i;
	unsigned depth, max_depth;
	unsigned char *stack;   /* depth frames (enum frame), max_depth at most */
	size_t items;   /* data (and closes) seen in the current top-level form */
	int curly;      /* #!curly-infix: braces are lists and delimiters */
	int in_token;
	const char *name;
	struct cix_err *err;
};

/* A one-line error placed at byte at: its line, and its column in characters. */
static int fail(const struct scan *s, size_t at, int code, const char *what)
{
	size_t line = 1, col = 1;
	for (size_t k = 0; k < at && k < s->len; k++) {
		if (s->p[k] == '\n') {
			line++;
			col = 1;
		} else if ((s->p[k] & 0xc0) != 0x80) {
			col++;
		}
	}
	return cix_error(s->err, code, "%s:%zu:%zu: %s", s->name, line, col, what);
}

/* The byte k ahead of the current one, or -1 past the end. */
static int peek(const struct scan *s, size_t k)
{
	return s->i + k < s->len ? s->p[s->i + k] : -1;
}

/* The length of the UTF-8 sequence at p (n bytes left), or 0: not one (RFC 3629). */
static size_t utf8_seq(const unsigned char *p, size_t n)
{
	unsigned c = p[0], cp, min;
	size_t len;
	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		len = 2, cp = c & 0x1f, min = 0x80;
	else if ((c & 0xf0) == 0xe0)
		len = 3, cp = c & 0x0f, min = 0x800;
	else if (c >= 0xf0 && c <= 0xf4)
		len = 4, cp = c & 0x07, min = 0x10000;
	else
		return 0;
	if (n < len)
		return 0;
	for (size_t k = 1; k < len; k++) {
		if ((p[k] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (p[k] & 0x3f);
	}
	if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return len;
}

/* Where the text stops being UTF-8, or len. */
static size_t utf8_end(const unsigned char *p, size_t len)
{
	size_t i = 0, n;
	while (i < len && (n = utf8_seq(p + i, len - i)))
		i += n;
	return i;
}

static int is_delimiter(const struct scan *s, int c)
{
	switch (c) {
	case '(': case ')': case '[': case ']': case ';': case '"':
	case ' ': case '\t': case '\n': case '\r': case '\f':
		return 1;
	case '{': case '}':
		return s->curly;
	default:
		return 0;
	}
}

/* One frame more, its first byte at at. */
static int push(struct scan *s, enum frame f, size_t at)
{
	if (s->depth == s->max_depth) {
		char what[64];
		snprintf(what, sizeof(what), "nesting deeper than %u", s->max_depth);
		return fail(s, at, -CIX_ELIMIT, what);
	}
	s->stack[s->depth++] = f;
	return 0;
}

/* A list opens at the current byte, width bytes long ("(", "#(", "#vu8("). */
static int open_list(struct scan *s, size_t width)
{
	s->i += width;
	return push(s, LIST, s->i - width);
}

/* ' ` , ,@ #' #` #, #,@ #: and #; : the datum after it is read within. */
static int prefix(struct scan *s, enum frame f, size_t width)
{
	s->i += width;
	return push(s, f, s->i - width);
}

/* A datum ends: so do the prefixes waiting for it, up to a #; that takes it. */
static int datum_done(struct scan *s)
{
	while (s->depth && s->stack[s->depth - 1] != LIST)
		if (s->stack[--s->depth] == COMMENT)
			break;
	return 0;
}

/* A close too many is Guile's error to report; it never lowers the count below 0. */
static int close_list(struct scan *s)
{
	s->i++;
	while (s->depth && s->stack[--s->depth] != LIST)
		;
	return datum_done(s);
}

static int skip_line_comment(struct scan *s)
{
	while (s->i < s->len && s->p[s->i] != '\n')
		s->i++;
	return 0;
}

/* #| ... |#, nested as in R6RS. */
static int skip_block_comment(struct scan *s)
{
	size_t at = s->i, level = 1;
	s->i += 2;
	while (level) {
		int c = peek(s, 0), d = peek(s, 1);
		if (c < 0)
			return fail(s, at, -CIX_EFORMAT, "unterminated #| comment");
		if ((c == '|' && d == '#') || (c == '#' && d == '|')) {
			if (c == '#')
				level++;
			else
				level--;
			s->i += 2;
		} else {
			s->i++;
		}
		if (level > s->max_depth)
			return fail(s, s->i - 2, -CIX_ELIMIT, "comments nested too deep");
	}
	return 0;
}

static int is_directive_char(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '-';
}

static int known_directive(const unsigned char *name, size_t len, int *curly)
{
	static const char *const known[] = { "r6rs", "fold-case", "no-fold-case", "curly-infix",
					     "curly-infix-and-bracket-lists" };
	for (size_t k = 0; k < sizeof(known) / sizeof(known[0]); k++) {
		if (strlen(known[k]) == len && !memcmp(known[k], name, len)) {
			*curly = k >= 3;
			return 1;
		}
	}
	return 0;
}

/*
 * #!NAME: a reader directive when NAME is one Guile knows, else a comment
 * up to !#. Guile's NAME goes on with any letter or digit of Unicode: a
 * known name followed by a non-ASCII character could be either.
 */
static int shebang(struct scan *s)
{
	size_t at = s->i, start = s->i + 2, end = start;
	int curly = 0;
	while (end < s->len && is_directive_char(s->p[end]))
		end++;
	if (known_directive(s->p + start, end - start, &curly)) {
		if (end < s->len && s->p[end] >= 0x80)
			return fail(s, at, -CIX_EFORMAT, "a reader directive run into other letters");
		s->curly |= curly;
		s->i = end;
		return 0;
	}
	for (s->i = end; s->i + 1 < s->len; s->i++) {
		if (s->p[s->i] == '!' && s->p[s->i + 1] == '#') {
			s->i += 2;
			return 0;
		}
	}
	return fail(s, at, -CIX_EFORMAT, "unterminated #! comment");
}

static int skip_string(struct scan *s)
{
	size_t at = s->i++;
	for (;;) {
		int c = peek(s, 0);
		if (c < 0 || (c == '\\' && peek(s, 1) < 0))
			return fail(s, at, -CIX_EFORMAT, "unterminated string");
		s->i += c == '\\' ? 2 : 1;
		if (c == '"')
			return datum_done(s);
	}
}

/* #{ ... }#, where a backslash escapes the next character. */
static int skip_extended_symbol(struct scan *s)
{
	size_t at = s->i;
	s->i += 2;
	for (;;) {
		int c = peek(s, 0), d = peek(s, 1);
		if (c < 0 || (c == '\\' && d < 0))
			return fail(s, at, -CIX_EFORMAT, "unterminated #{ symbol");
		if (c == '}' && d == '#') {
			s->i += 2;
			return datum_done(s);
		}
		s->i += c == '\\' ? 2 : 1;
	}
}

/* #\C...: the first character is taken whatever it is, a token may follow. */
static int character(struct scan *s)
{
	s->i += 2;
	if (s->i < s->len && is_delimiter(s, s->p[s->i])) {
		s->i++;
		return datum_done(s);
	}
	s->in_token = 1;
	return 0;
}

/* #t, #true, #f, #fals...: Guile takes what matches of the tail, no delimiter needed. */
static int boolean(struct scan *s, const char *tail)
{
	s->i += 2;
	for (; *tail; tail++) {
		int c = peek(s, 0);
		if (c < 0 || (c | 0x20) != *tail)
			break;
		s->i++;
	}
	return datum_done(s);
}

static void skip_digits(struct scan *s)
{
	while (s->i < s->len && s->p[s->i] >= '0' && s->p[s->i] <= '9')
		s->i++;
}

/*
 * #RANK TAG SHAPE (ELEMENTS), as #2u8@1:2((1 2)) or #s16(1): the tag is
 * every character up to "(", "@" or ":", whatever they are.
 */
static int array(struct scan *s)
{
	s->i++;
	skip_digits(s);
	while (s->i < s->len && !memchr("(@:", s->p[s->i], 3))
		s->i++;
	while (peek(s, 0) == '@' || peek(s, 0) == ':') {
		s->i++;
		if (peek(s, 0) == '-')
			s->i++;
		skip_digits(s);
	}
	return peek(s, 0) == '(' ? open_list(s, 1) : 0;
}

static int sharp(struct scan *s)
{
	int c = peek(s, 1), c2 = peek(s, 2);
	switch (c) {
	case '!': return shebang(s);
	case '|': return skip_block_comment(s);
	case '\\': return character(s);
	case '(': return open_list(s, 2);
	case '{': return skip_extended_symbol(s);
	case ';':
		return prefix(s, COMMENT, 2);
	case '\'': case '`': case ':':
		return prefix(s, PREFIX, 2);
	case ',':
		return prefix(s, PREFIX, c2 == '@' ? 3 : 2);
	case '*':
		s->i += 2;
		while (peek(s, 0) == '0' || peek(s, 0) == '1')
			s->i++;
		return datum_done(s);
	case 't': case 'T': return boolean(s, "rue");
	case 'F': return boolean(s, "alse");
	case 'f':
		return c2 == '3' || c2 == '6' ? array(s) : boolean(s, "alse");
	case 's': case 'u': case 'c': case '@':
	case '0': case '1': case '2': case '3': case '4':
	case '5': case '6': case '7': case '8': case '9':
		return array(s);
	case 'v':
		if (s->i + 5 <= s->len && !memcmp(s->p + s->i + 2, "u8(", 3)) {
			s->i += 4;
			return open_list(s, 1);
		}
		break;
	}
	/* #x1F, #e1.5, #nil: a token; anything else, an error of Guile's. */
	s->in_token = 1;
	s->i++;
	return 0;
}

/* Between data: what Guile's reader does with the next character. */
static int datum_start(struct scan *s)
{
	switch (s->p[s->i]) {
	case ' ': case '\t': case '\n': case '\r': case '\f':
		s->i++;
		return 0;
	case ';': return skip_line_comment(s);
	case '(': case '[': return open_list(s, 1);
	case ')': case ']': return close_list(s);
	case '"': return skip_string(s);
	case '#': return sharp(s);
	case '\'': case '`':
		return prefix(s, PREFIX, 1);
	case ',':
		return prefix(s, PREFIX, peek(s, 1) == '@' ? 2 : 1);
	case '{':
		if (s->curly)
			return open_list(s, 1);
		break;
	case '}':
		if (s->curly)
			return close_list(s);
		break;
	}
	s->in_token = 1;
	s->i++;
	return 0;
}

static int scan_text(struct scan *s)
{
	int r;
	while (s->i < s->len) {
		if (s->in_token) {
			if (!is_delimiter(s, s->p[s->i])) {
				s->i++;
				continue;
			}
			s->in_token = 0;
			datum_done(s);
		}
		if (s->depth && !memchr(" \t\n\r\f;", s->p[s->i], 6) &&
		    ++s->items > CIX_SEXP_MAX_ITEMS)
			return fail(s, s->i, -CIX_ELIMIT, "a form of more than "
				    STR(CIX_SEXP_MAX_ITEMS) " data");
		if ((r = datum_start(s)) < 0)
			return r;
		if (!s->depth)
			s->items = 0;
	}
	return 0;
}

int cix_sexp_scan(const char *name, const char *text, size_t len, unsigned max_depth,
		  struct cix_err *err)
{
	struct scan s = { .p = (const unsigned char *)text, .len = len, .max_depth = max_depth,
			  .name = name, .err = err };
	size_t bad;
	int r;

	if (len > CIX_SEXP_MAX_SIZE)
		return cix_error(err, -CIX_ELIMIT, "%s: larger than %zu MiB", name,
				 CIX_SEXP_MAX_SIZE >> 20);
	if ((bad = utf8_end(s.p, len)) < len)
		return fail(&s, bad, -CIX_EFORMAT, "not UTF-8");
	/* Guile may or may not skip it: either way would be a guess. */
	if (len >= 3 && !memcmp(text, "\xef\xbb\xbf", 3))
		return fail(&s, 0, -CIX_EFORMAT, "a byte order mark (source is UTF-8 without one)");
	s.stack = xmalloc(max_depth ? max_depth : 1);
	r = scan_text(&s);
	free(s.stack);
	return r;
}

int cix_sexp_read_file(const char *path, struct strbuf *sb, struct cix_err *err)
{
	int r = strbuf_read_file(sb, path, CIX_SEXP_MAX_SIZE);
	if (r == -CIX_ELIMIT)
		return cix_error(err, r, "%s: larger than %zu MiB", path, CIX_SEXP_MAX_SIZE >> 20);
	if (r == -ENOENT)
		return cix_error(err, r, "%s: no such file", path);
	if (r < 0)
		return cix_error_errno(err, r, "%s", path);
	return cix_sexp_scan(path, sb->buf, sb->len, CIX_SEXP_MAX_DEPTH, err);
}
