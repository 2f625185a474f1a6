/* json-value.h - JSON documents in memory: parse and print, as Nix 2.8's nlohmann::json */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef CIX_JSON_VALUE_H
#define CIX_JSON_VALUE_H

#include <stddef.h>
#include "err.h"
#include "strbuf.h"

/*
 * What structured attributes (__json of a derivation) need. Objects keep
 * their members sorted by key bytes, a repeated key's last value winning,
 * and print compactly: the order and form of nlohmann::json::dump().
 */
enum cix_jv_type {
	CIX_JV_NULL, CIX_JV_BOOL, CIX_JV_INT, CIX_JV_FLOAT,
	CIX_JV_STRING, CIX_JV_ARRAY, CIX_JV_OBJECT,
};

struct cix_jv {
	enum cix_jv_type type;
	char *key;                 /* member of an object: its key (NUL-terminated) */
	size_t key_len;
	int b;                     /* BOOL */
	int neg;                   /* INT: -u (u > 0) when set */
	unsigned long long u;      /* INT: the magnitude */
	double d;                  /* FLOAT */
	char *s;                   /* STRING, NUL-terminated; may hold NUL bytes */
	size_t len;
	struct cix_jv *items;      /* ARRAY elements, OBJECT members */
	size_t nr, alloc;
};

/* Nesting deeper than this is refused. */
#define CIX_JV_MAX_DEPTH 128

/* Parse the whole of buf; -CIX_EFORMAT with "at byte N: ..." on bad input. */
int cix_jv_parse(const char *buf, size_t len, struct cix_jv **out, struct cix_err *err);
void cix_jv_free(struct cix_jv *v);
/* The member of object v named key, or NULL (v not an object: NULL). */
struct cix_jv *cix_jv_get(const struct cix_jv *v, const char *key);
/* Set (or replace) the member key of object v to a string. */
void cix_jv_set_string(struct cix_jv *v, const char *key, const char *s);
/* A member key of object v, replaced or new, holding a null to fill in. */
struct cix_jv *cix_jv_set(struct cix_jv *v, const char *key);
/* Append v, compact, as dump() prints it. */
void cix_jv_print(struct strbuf *sb, const struct cix_jv *v);
/* Append s (len bytes) as a JSON string, escaped as dump() does. */
void cix_jv_quote(struct strbuf *sb, const char *s, size_t len);

#endif
