/* strbuf.h - growable byte strings, after git's strbuf */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef CIX_STRBUF_H
#define CIX_STRBUF_H

#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include "util.h"

/*
 * buf is never NULL and always NUL-terminated (it may also hold NUL bytes
 * inside len). Initialise with STRBUF_INIT or strbuf_init().
 */
struct strbuf {
	size_t alloc;
	size_t len;
	char *buf;
};

extern char strbuf_slopbuf[];
#define STRBUF_INIT { 0, 0, strbuf_slopbuf }

void strbuf_init(struct strbuf *sb, size_t hint);
/* Free the contents and reset to empty. */
void strbuf_release(struct strbuf *sb);
/* Hand the buffer to the caller, who must free() it; sb is reset. */
char *strbuf_detach(struct strbuf *sb, size_t *len);
void strbuf_grow(struct strbuf *sb, size_t extra);
void strbuf_setlen(struct strbuf *sb, size_t len);
static inline void strbuf_reset(struct strbuf *sb) { strbuf_setlen(sb, 0); }

void strbuf_add(struct strbuf *sb, const void *data, size_t len);
static inline void strbuf_addstr(struct strbuf *sb, const char *s)
{
	strbuf_add(sb, s, strlen(s));
}
static inline void strbuf_addch(struct strbuf *sb, int c)
{
	strbuf_grow(sb, 1);
	sb->buf[sb->len++] = (char)c;
	sb->buf[sb->len] = '\0';
}
/*
 * s with backslash, tab and newline written \\, \t and \n: a field of the
 * tab-separated text files (the package index, manifests).
 */
void strbuf_add_tab_escaped(struct strbuf *sb, const char *s);
/*
 * The other way: LEN bytes of such a line (no newline in them), split at
 * its tabs into at most MAX unescaped malloc'd fields, *nr of them. NULL,
 * or what is wrong with the line (and then nothing is kept).
 */
const char *strbuf_tab_split(const char *p, size_t len, char **f, size_t max, size_t *nr);
/*
 * The lines of such a file (the package index, manifests, the evaluation
 * cache), each ended by a newline and at most max_line bytes: the first,
 * the file's magic, given whole to head; each other split at its tabs into
 * at most max_fields fields, given to body (the fields are freed after it).
 * head and body return NULL or what is wrong; so does strbuf_tab_lines,
 * with *lineno the line (0: the text is empty).
 */
const char *strbuf_tab_lines(const char *buf, size_t len, size_t max_line, size_t max_fields,
			     const char *(*head)(void *opaque, const char *line, size_t len),
			     const char *(*body)(void *opaque, char **f, size_t n),
			     void *opaque, size_t *lineno);
void strbuf_addf(struct strbuf *sb, const char *fmt, ...) CIX_PRINTF(2, 3);
void strbuf_vaddf(struct strbuf *sb, const char *fmt, va_list ap);

/* Append the whole of fd; returns 0 or -errno. */
int strbuf_read_fd(struct strbuf *sb, int fd);
/* Append the whole of a file, at most max bytes (0: no bound); 0 or -errno/-CIX_ELIMIT. */
int strbuf_read_file(struct strbuf *sb, const char *path, size_t max);

#endif
