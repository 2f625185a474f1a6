/* json-value.c - parse JSON into a tree, print it back as nlohmann::json does */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "json-value.h"
#include "util.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct jp {
	const char *p, *start, *end;
	struct cix_err *err;
};

static int bad(struct jp *j, const char *what)
{
	return cix_error(j->err, -CIX_EFORMAT, "at byte %zu: %s", (size_t)(j->p - j->start), what);
}

static void skip_ws(struct jp *j)
{
	while (j->p < j->end && (*j->p == ' ' || *j->p == '\t' || *j->p == '\n' || *j->p == '\r'))
		j->p++;
}

static int literal(struct jp *j, const char *word)
{
	size_t n = strlen(word);
	if ((size_t)(j->end - j->p) < n || memcmp(j->p, word, n))
		return bad(j, "unexpected character");
	j->p += n;
	return 0;
}

static int hex4(struct jp *j, unsigned *out)
{
	*out = 0;
	if (j->end - j->p < 4)
		return bad(j, "short \\u escape");
	for (int i = 0; i < 4; i++) {
		char c = *j->p++;
		unsigned d = c >= '0' && c <= '9' ? (unsigned)(c - '0')
			: c >= 'a' && c <= 'f' ? (unsigned)(c - 'a' + 10)
			: c >= 'A' && c <= 'F' ? (unsigned)(c - 'A' + 10) : 16;
		if (d == 16)
			return bad(j, "bad \\u escape");
		*out = *out * 16 + d;
	}
	return 0;
}

static void add_utf8(struct strbuf *sb, unsigned c)
{
	if (c < 0x80) {
		strbuf_addch(sb, (int)c);
	} else if (c < 0x800) {
		strbuf_addch(sb, (int)(0xc0 | c >> 6));
		strbuf_addch(sb, (int)(0x80 | (c & 0x3f)));
	} else if (c < 0x10000) {
		strbuf_addch(sb, (int)(0xe0 | c >> 12));
		strbuf_addch(sb, (int)(0x80 | ((c >> 6) & 0x3f)));
		strbuf_addch(sb, (int)(0x80 | (c & 0x3f)));
	} else {
		strbuf_addch(sb, (int)(0xf0 | c >> 18));
		strbuf_addch(sb, (int)(0x80 | ((c >> 12) & 0x3f)));
		strbuf_addch(sb, (int)(0x80 | ((c >> 6) & 0x3f)));
		strbuf_addch(sb, (int)(0x80 | (c & 0x3f)));
	}
}

/* A \uXXXX escape, with its low surrogate when it is a high one. */
static int unicode_escape(struct jp *j, struct strbuf *sb)
{
	unsigned c, lo;
	int r;
	if ((r = hex4(j, &c)) < 0)
		return r;
	if (c >= 0xdc00 && c <= 0xdfff)
		return bad(j, "lone low surrogate");
	if (c >= 0xd800 && c <= 0xdbff) {
		if (j->end - j->p < 2 || j->p[0] != '\\' || j->p[1] != 'u')
			return bad(j, "lone high surrogate");
		j->p += 2;
		if ((r = hex4(j, &lo)) < 0)
			return r;
		if (lo < 0xdc00 || lo > 0xdfff)
			return bad(j, "bad low surrogate");
		c = 0x10000 + ((c - 0xd800) << 10) + (lo - 0xdc00);
	}
	add_utf8(sb, c);
	return 0;
}

/* After the opening quote; the string goes to sb. */
static int parse_string(struct jp *j, struct strbuf *sb)
{
	static const char esc_in[] = "\"\\/bfnrt", esc_out[] = "\"\\/\b\f\n\r\t";
	while (j->p < j->end) {
		unsigned char c = (unsigned char)*j->p++;
		const char *e;
		if (c == '"')
			return 0;
		if (c < 0x20)
			return bad(j, "control character in string");
		if (c != '\\') {
			strbuf_addch(sb, c);
			continue;
		}
		if (j->p >= j->end)
			break;
		c = (unsigned char)*j->p++;
		if (c == 'u') {
			int r = unicode_escape(j, sb);
			if (r < 0)
				return r;
		} else if (c && (e = strchr(esc_in, c))) {
			strbuf_addch(sb, esc_out[e - esc_in]);
		} else {
			return bad(j, "bad escape");
		}
	}
	return bad(j, "unterminated string");
}

/* An integer when it is one that fits 64 bits, as nlohmann; else a double. */
static int parse_number(struct jp *j, struct cix_jv *v)
{
	const char *s = j->p;
	int is_float = 0;
	char buf[512];
	if (j->p < j->end && *j->p == '-')
		j->p++;
	if (j->p >= j->end || *j->p < '0' || *j->p > '9')
		return bad(j, "bad number");
	if (*j->p == '0')
		j->p++;
	else
		while (j->p < j->end && *j->p >= '0' && *j->p <= '9')
			j->p++;
	if (j->p < j->end && *j->p == '.') {
		is_float = 1;
		if (++j->p >= j->end || *j->p < '0' || *j->p > '9')
			return bad(j, "bad number");
		while (j->p < j->end && *j->p >= '0' && *j->p <= '9')
			j->p++;
	}
	if (j->p < j->end && (*j->p == 'e' || *j->p == 'E')) {
		is_float = 1;
		j->p++;
		if (j->p < j->end && (*j->p == '+' || *j->p == '-'))
			j->p++;
		if (j->p >= j->end || *j->p < '0' || *j->p > '9')
			return bad(j, "bad number");
		while (j->p < j->end && *j->p >= '0' && *j->p <= '9')
			j->p++;
	}
	if ((size_t)(j->p - s) >= sizeof(buf))
		return bad(j, "number too long");
	memcpy(buf, s, (size_t)(j->p - s));
	buf[j->p - s] = '\0';
	if (!is_float) {
		errno = 0;
		v->neg = buf[0] == '-';
		v->u = strtoull(buf + v->neg, NULL, 10);
		if (!errno && (!v->neg || v->u <= 1ULL << 63)) {
			v->type = CIX_JV_INT;
			if (!v->u)
				v->neg = 0;
			return 0;
		}
	}
	v->type = CIX_JV_FLOAT;
	v->d = strtod(buf, NULL);
	return 0;
}

static int parse_value(struct jp *j, struct cix_jv *v, int depth);

static int key_cmp(const struct cix_jv *x, const struct cix_jv *y)
{
	size_t n = x->key_len < y->key_len ? x->key_len : y->key_len;
	int c = memcmp(x->key, y->key, n);
	return c ? c : (x->key_len > y->key_len) - (x->key_len < y->key_len);
}

/* By key, then by position: the sort is stable. */
static int cmp_index(const void *a, const void *b, void *items)
{
	const struct cix_jv *base = items;
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	int c = key_cmp(&base[x], &base[y]);
	return c ? c : (x > y) - (x < y);
}

static void free_contents(struct cix_jv *v);

/* Sort the members by key; of a repeated key the last value stays. */
static void sort_members(struct cix_jv *v)
{
	size_t *ix = xcalloc(v->nr + 1, sizeof(*ix)), k = 0;
	struct cix_jv *items = xcalloc(v->nr + 1, sizeof(*items));

	for (size_t i = 0; i < v->nr; i++)
		ix[i] = i;
	qsort_r(ix, v->nr, sizeof(*ix), cmp_index, v->items);
	for (size_t i = 0; i < v->nr; i++) {
		struct cix_jv *m = &v->items[ix[i]];
		if (i + 1 < v->nr && !key_cmp(m, &v->items[ix[i + 1]])) {
			free_contents(m);
			continue;
		}
		items[k++] = *m;
	}
	free(v->items);
	free(ix);
	v->items = items;
	v->nr = k;
	v->alloc = v->nr + 1;
}

static int parse_members(struct jp *j, struct cix_jv *v, int depth)
{
	struct strbuf key = STRBUF_INIT;
	int r;
	skip_ws(j);
	if (j->p < j->end && *j->p == '}') {
		j->p++;
		return 0;
	}
	for (;;) {
		struct cix_jv *m;
		skip_ws(j);
		if (j->p >= j->end || *j->p != '"')
			return bad(j, "expected a key");
		j->p++;
		strbuf_reset(&key);
		if ((r = parse_string(j, &key)) < 0)
			break;
		skip_ws(j);
		if (j->p >= j->end || *j->p++ != ':') {
			r = bad(j, "expected ':'");
			break;
		}
		ALLOC_GROW(v->items, v->nr + 1, v->alloc);
		m = &v->items[v->nr++];
		memset(m, 0, sizeof(*m));
		m->key_len = key.len;
		m->key = strbuf_detach(&key, NULL);
		if ((r = parse_value(j, m, depth + 1)) < 0)
			break;
		skip_ws(j);
		if (j->p < j->end && *j->p == ',') {
			j->p++;
			continue;
		}
		if (j->p < j->end && *j->p == '}') {
			j->p++;
			break;
		}
		r = bad(j, "expected ',' or '}'");
		break;
	}
	strbuf_release(&key);
	return r;
}

static int parse_elements(struct jp *j, struct cix_jv *v, int depth)
{
	int r;
	skip_ws(j);
	if (j->p < j->end && *j->p == ']') {
		j->p++;
		return 0;
	}
	for (;;) {
		ALLOC_GROW(v->items, v->nr + 1, v->alloc);
		memset(&v->items[v->nr], 0, sizeof(*v->items));
		if ((r = parse_value(j, &v->items[v->nr++], depth + 1)) < 0)
			return r;
		skip_ws(j);
		if (j->p < j->end && *j->p == ',') {
			j->p++;
			continue;
		}
		if (j->p < j->end && *j->p == ']') {
			j->p++;
			return 0;
		}
		return bad(j, "expected ',' or ']'");
	}
}

static int parse_value(struct jp *j, struct cix_jv *v, int depth)
{
	struct strbuf sb = STRBUF_INIT;
	int r;
	if (depth > CIX_JV_MAX_DEPTH)
		return bad(j, "nested too deeply");
	skip_ws(j);
	if (j->p >= j->end)
		return bad(j, "unexpected end");
	switch (*j->p) {
	case '{':
		j->p++;
		v->type = CIX_JV_OBJECT;
		r = parse_members(j, v, depth);
		if (!r)
			sort_members(v);
		return r;
	case '[':
		j->p++;
		v->type = CIX_JV_ARRAY;
		return parse_elements(j, v, depth);
	case '"':
		j->p++;
		v->type = CIX_JV_STRING;
		r = parse_string(j, &sb);
		v->s = strbuf_detach(&sb, &v->len);
		return r;
	case 't':
		v->type = CIX_JV_BOOL;
		v->b = 1;
		return literal(j, "true");
	case 'f':
		v->type = CIX_JV_BOOL;
		return literal(j, "false");
	case 'n':
		v->type = CIX_JV_NULL;
		return literal(j, "null");
	default:
		return parse_number(j, v);
	}
}

int cix_jv_parse(const char *buf, size_t len, struct cix_jv **out, struct cix_err *err)
{
	struct jp j = { buf, buf, buf + len, err };
	struct cix_jv *v = xcalloc(1, sizeof(*v));
	int r = parse_value(&j, v, 0);
	if (!r) {
		skip_ws(&j);
		if (j.p != j.end)
			r = bad(&j, "garbage after the value");
	}
	if (r < 0) {
		cix_jv_free(v);
		v = NULL;
	}
	*out = v;
	return r;
}

static void free_contents(struct cix_jv *v)
{
	for (size_t i = 0; i < v->nr; i++)
		free_contents(&v->items[i]);
	free(v->items);
	free(v->key);
	free(v->s);
	memset(v, 0, sizeof(*v));
}

void cix_jv_free(struct cix_jv *v)
{
	if (!v)
		return;
	free_contents(v);
	free(v);
}

struct cix_jv *cix_jv_get(const struct cix_jv *v, const char *key)
{
	if (!v || v->type != CIX_JV_OBJECT)
		return NULL;
	for (size_t i = 0; i < v->nr; i++)
		if (v->items[i].key_len == strlen(key) && !memcmp(v->items[i].key, key, v->items[i].key_len))
			return &v->items[i];
	return NULL;
}

struct cix_jv *cix_jv_set(struct cix_jv *v, const char *key)
{
	struct cix_jv *m = cix_jv_get(v, key);
	if (m) {
		char *k = m->key;
		m->key = NULL;
		free_contents(m);
		m->key = k;
		m->key_len = strlen(k);
		return m;
	}
	ALLOC_GROW(v->items, v->nr + 1, v->alloc);
	m = &v->items[v->nr++];
	memset(m, 0, sizeof(*m));
	m->key = xstrdup(key);
	m->key_len = strlen(key);
	sort_members(v);
	return cix_jv_get(v, key);
}

void cix_jv_set_string(struct cix_jv *v, const char *key, const char *s)
{
	struct cix_jv *m = cix_jv_set(v, key);
	m->type = CIX_JV_STRING;
	m->s = xstrdup(s);
	m->len = strlen(s);
}

void cix_jv_quote(struct strbuf *sb, const char *s, size_t len)
{
	strbuf_addch(sb, '"');
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		const char *e = c == '"' ? "\\\"" : c == '\\' ? "\\\\" : c == '\b' ? "\\b"
			: c == '\f' ? "\\f" : c == '\n' ? "\\n" : c == '\r' ? "\\r"
			: c == '\t' ? "\\t" : NULL;
		if (e)
			strbuf_addstr(sb, e);
		else if (c < 0x20)
			strbuf_addf(sb, "\\u%04x", c);
		else
			strbuf_addch(sb, c);
	}
	strbuf_addch(sb, '"');
}

/* The shortest form that reads back the same, ".0" added to a whole one. */
static void print_double(struct strbuf *sb, double d)
{
	char buf[64];
	if (!isfinite(d)) {
		strbuf_addstr(sb, "null");
		return;
	}
	for (int prec = 1; prec <= 17; prec++) {
		snprintf(buf, sizeof(buf), "%.*g", prec, d);
		if (strtod(buf, NULL) == d)
			break;
	}
	strbuf_addstr(sb, buf);
	if (!strpbrk(buf, ".eEn"))
		strbuf_addstr(sb, ".0");
}

void cix_jv_print(struct strbuf *sb, const struct cix_jv *v)
{
	switch (v->type) {
	case CIX_JV_NULL:
		strbuf_addstr(sb, "null");
		break;
	case CIX_JV_BOOL:
		strbuf_addstr(sb, v->b ? "true" : "false");
		break;
	case CIX_JV_INT:
		strbuf_addf(sb, "%s%llu", v->neg ? "-" : "", v->u);
		break;
	case CIX_JV_FLOAT:
		print_double(sb, v->d);
		break;
	case CIX_JV_STRING:
		cix_jv_quote(sb, v->s, v->len);
		break;
	case CIX_JV_ARRAY:
	case CIX_JV_OBJECT:
		strbuf_addch(sb, v->type == CIX_JV_ARRAY ? '[' : '{');
		for (size_t i = 0; i < v->nr; i++) {
			if (i)
				strbuf_addch(sb, ',');
			if (v->type == CIX_JV_OBJECT) {
				cix_jv_quote(sb, v->items[i].key, v->items[i].key_len);
				strbuf_addch(sb, ':');
			}
			cix_jv_print(sb, &v->items[i]);
		}
		strbuf_addch(sb, v->type == CIX_JV_ARRAY ? ']' : '}');
		break;
	}
}
