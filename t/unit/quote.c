/* quote.c - unit tests for quoting untrusted bytes in messages */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "tap.h"
#include "quote.h"

int main(void)
{
	char b[96], big[200];
	struct strbuf sb = STRBUF_INIT;

	is_str(cix_quote(b, sizeof(b), "a\nb\x01\\", 5), "a\\x0ab\\x01\\x5c",
	       "control bytes and backslash escaped");
	is_str(cix_quote(b, sizeof(b), "caf\xc3\xa9", 5), "caf\xc3\xa9", "UTF-8 kept");
	memset(big, 'x', sizeof(big));
	cix_quote(b, sizeof(b), big, sizeof(big));
	ok(strlen(b) == 80 && !strcmp(b + 77, "..."), "long strings cut to 80 with ...");
	cix_quote(b, sizeof(b), big, 80);
	ok(strlen(b) == 80 && b[79] == 'x', "exactly 80 bytes fit uncut");
	memset(big, '\n', sizeof(big));
	cix_quote(b, sizeof(b), big, sizeof(big));
	ok(strlen(b) <= 80 && !strcmp(b + strlen(b) - 3, "...") && !strchr(b, '\n'),
	   "escapes never split, result on one line");
	is_str(cix_quote(b, 5, "abcdef", 6), "a...", "small buffer");

	strbuf_add_quoted(&sb, "dir/\tname\x7f", 10);
	is_str(sb.buf, "dir/\\x09name\\x7f", "strbuf_add_quoted");
	strbuf_release(&sb);
	return done_testing();
}
