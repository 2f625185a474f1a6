/* quote.c - untrusted bytes made safe for one-line messages */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "quote.h"

#include <stdio.h>

static int needs_escape(unsigned char c)
{
	return c < 0x20 || c == 0x7f || c == '\\';
}

void strbuf_add_quoted(struct strbuf *sb, const void *s, size_t len)
{
	const unsigned char *p = s;
	for (size_t i = 0; i < len;) {
		size_t run = i;
		while (run < len && !needs_escape(p[run]))
			run++;
		strbuf_add(sb, p + i, run - i);   /* the plain run at once */
		if (run < len)
			strbuf_addf(sb, "\\x%02x", p[run++]);
		i = run;
	}
}

const char *cix_quote(char *buf, size_t size, const void *s, size_t len)
{
	const unsigned char *p = s;
	size_t max = size ? size - 1 : 0, full = 0, n = 0;
	if (!size)
		return "";
	if (max > 80)
		max = 80;
	for (size_t i = 0; i < len; i++)
		full += needs_escape(p[i]) ? 4 : 1;
	/* When it does not all fit, keep room for "...". */
	size_t room = full <= max ? max : (max >= 3 ? max - 3 : 0);
	for (size_t i = 0; i < len; i++) {
		size_t w = needs_escape(p[i]) ? 4 : 1;
		if (n + w > room)
			break;
		if (w == 4)
			snprintf(buf + n, 5, "\\x%02x", p[i]);
		else
			buf[n] = (char)p[i];
		n += w;
	}
	if (full > max)
		while (n < max && n < room + 3)
			buf[n++] = '.';
	buf[n] = '\0';
	return buf;
}
