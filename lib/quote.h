/* quote.h - untrusted bytes made safe for one-line messages */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef CIX_QUOTE_H
#define CIX_QUOTE_H

#include <stddef.h>
#include "strbuf.h"

/*
 * Names, paths and tokens read from hostile input may hold any byte. In
 * messages, control bytes, DEL and backslash are written as \xNN, so that
 * an error stays on one line and cannot drive the terminal; other bytes,
 * UTF-8 included, are kept.
 */
void strbuf_add_quoted(struct strbuf *sb, const void *s, size_t len);

/*
 * The same into buf (size bytes), cut to at most 80 characters with "..."
 * at the end; returns buf.
 */
const char *cix_quote(char *buf, size_t size, const void *s, size_t len);

#endif
