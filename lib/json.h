/* json.h - a small JSON writer into a strbuf, formatted as Nix prints JSON */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef CIX_JSON_H
#define CIX_JSON_H

#include <stddef.h>
#include "strbuf.h"

/*
 * Strings are escaped as Nix 2.8 does: \" \\ \n \r \t, other bytes below
 * 0x20 as \u00XX (lowercase hex), everything else (DEL, bytes >= 0x80)
 * as is. With pretty set, each member or element goes on its own line,
 * indented by two spaces per level; empty containers print as {} and [].
 * Calls must nest properly; nesting deeper than CIX_JSON_MAX_DEPTH, or a
 * value without a key inside an object, is a BUG().
 */
#define CIX_JSON_MAX_DEPTH 32

struct cix_json {
	struct strbuf *sb;
	int pretty;
	int depth;
	unsigned char empty[CIX_JSON_MAX_DEPTH];     /* no member yet */
	unsigned char is_object[CIX_JSON_MAX_DEPTH];
	int after_key;
};

void cix_json_init(struct cix_json *j, struct strbuf *sb, int pretty);
void cix_json_begin_object(struct cix_json *j);
void cix_json_end_object(struct cix_json *j);
void cix_json_begin_array(struct cix_json *j);
void cix_json_end_array(struct cix_json *j);
/* The key of the next member of the current object. */
void cix_json_key(struct cix_json *j, const char *key);
void cix_json_string(struct cix_json *j, const char *s);
void cix_json_string_len(struct cix_json *j, const char *s, size_t len);
void cix_json_bool(struct cix_json *j, int v);
void cix_json_int(struct cix_json *j, long long v);
void cix_json_null(struct cix_json *j);

/* Append s (len bytes) as a quoted, escaped JSON string. */
void cix_json_quote(struct strbuf *sb, const char *s, size_t len);

#endif
