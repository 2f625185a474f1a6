/* json.c - a small JSON writer into a strbuf, formatted as Nix prints JSON */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "json.h"

#include <string.h>

void cix_json_quote(struct strbuf *sb, const char *s, size_t len)
{
	static const char hex[] = "0123456789abcdef";
	size_t run = 0;

	strbuf_addch(sb, '"');
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		char esc[7];
		size_t n = 2;
		if (c == '"' || c == '\\') {
			esc[0] = '\\', esc[1] = (char)c;
		} else if (c == '\n') {
			esc[0] = '\\', esc[1] = 'n';
		} else if (c == '\r') {
			esc[0] = '\\', esc[1] = 'r';
		} else if (c == '\t') {
			esc[0] = '\\', esc[1] = 't';
		} else if (c < 0x20) {
			memcpy(esc, "\\u00", 4);
			esc[4] = hex[c >> 4];
			esc[5] = hex[c & 15];
			n = 6;
		} else {
			continue;
		}
		strbuf_add(sb, s + run, i - run);
		strbuf_add(sb, esc, n);
		run = i + 1;
	}
	strbuf_add(sb, s + run, len - run);
	strbuf_addch(sb, '"');
}

void cix_json_init(struct cix_json *j, struct strbuf *sb, int pretty)
{
	memset(j, 0, sizeof(*j));
	j->sb = sb;
	j->pretty = pretty;
}

static void newline(struct cix_json *j)
{
	if (!j->pretty)
		return;
	strbuf_addch(j->sb, '\n');
	for (int i = 0; i < j->depth; i++)
		strbuf_addstr(j->sb, "  ");
}

/* Separator and indentation before a member or element. */
static void before_item(struct cix_json *j)
{
	if (j->depth == 0)
		return;
	if (!j->empty[j->depth - 1])
		strbuf_addch(j->sb, ',');
	j->empty[j->depth - 1] = 0;
	newline(j);
}

/* Called before any value. */
static void before_value(struct cix_json *j)
{
	if (j->depth && j->is_object[j->depth - 1]) {
		if (!j->after_key)
			BUG("JSON value in an object without a key");
		j->after_key = 0;
		return;
	}
	before_item(j);
}

static void begin(struct cix_json *j, int object)
{
	before_value(j);
	if (j->depth >= CIX_JSON_MAX_DEPTH)
		BUG("JSON nested too deeply");
	strbuf_addch(j->sb, object ? '{' : '[');
	j->empty[j->depth] = 1;
	j->is_object[j->depth] = (unsigned char)object;
	j->depth++;
}

static void end(struct cix_json *j, int object)
{
	if (!j->depth || j->is_object[j->depth - 1] != object || j->after_key)
		BUG("unbalanced JSON");
	j->depth--;
	if (!j->empty[j->depth])
		newline(j);
	strbuf_addch(j->sb, object ? '}' : ']');
}

void cix_json_begin_object(struct cix_json *j) { begin(j, 1); }
void cix_json_end_object(struct cix_json *j) { end(j, 1); }
void cix_json_begin_array(struct cix_json *j) { begin(j, 0); }
void cix_json_end_array(struct cix_json *j) { end(j, 0); }

void cix_json_key(struct cix_json *j, const char *key)
{
	if (!j->depth || !j->is_object[j->depth - 1] || j->after_key)
		BUG("JSON key outside an object");
	before_item(j);
	cix_json_quote(j->sb, key, strlen(key));
	strbuf_addstr(j->sb, j->pretty ? ": " : ":");
	j->after_key = 1;
}

void cix_json_string_len(struct cix_json *j, const char *s, size_t len)
{
	before_value(j);
	cix_json_quote(j->sb, s, len);
}

void cix_json_string(struct cix_json *j, const char *s)
{
	cix_json_string_len(j, s, strlen(s));
}

void cix_json_bool(struct cix_json *j, int v)
{
	before_value(j);
	strbuf_addstr(j->sb, v ? "true" : "false");
}

void cix_json_int(struct cix_json *j, long long v)
{
	before_value(j);
	strbuf_addf(j->sb, "%lld", v);
}

void cix_json_null(struct cix_json *j)
{
	before_value(j);
	strbuf_addstr(j->sb, "null");
}
