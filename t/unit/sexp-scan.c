/* sexp-scan.c - unit tests for the bounds on Scheme source (pkg/sexp-scan.c) */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "tap.h"
#include "sexp-scan.h"

#include <errno.h>
#include <unistd.h>

/* The message of scanning text with max_depth, or "ok". */
static const char *scan(const char *text, unsigned max_depth)
{
	static struct cix_err err;
	cix_err_clear(&err);
	int r = cix_sexp_scan("f", text, strlen(text), max_depth, &err);
	return r < 0 ? err.msg : "ok";
}

static void accepted(void)
{
	is_str(scan("(define x \"a)(b\") ; ((((\n(display x)", 1), "ok",
	       "parentheses in strings and ; comments are not counted");
	is_str(scan("(#\\( #\\) #\\[ #\\\" #\\; #\\x28 #\\space)", 1), "ok",
	       "nor character literals");
	is_str(scan("#| ((( #| ((( |# ((( |# (a)", 2), "ok", "nor nested #| |# comments");
	is_str(scan("#!/bin/sh\nexec guile ((( \n!#\n(a)", 1), "ok", "nor a #! !# header");
	is_str(scan("(#{(}# #{a\\}#(}# \"\\\"(\")", 1), "ok", "nor #{ }# symbols, with escapes");
	is_str(scan("((a)) (b) ((c))", 2), "ok", "depth exactly the bound");
	is_str(scan("(a))))) ((b))", 2), "ok", "closes too many are Guile's error, not ours");
	is_str(scan("(caf\xc3\xa9 \"\xe2\x82\xac\" \xf0\x9f\x98\x80)", 1), "ok", "UTF-8");
	is_str(scan("", 1), "ok", "empty text");
}

static void depth(void)
{
	is_str(scan("(((", 2), "f:1:3: nesting deeper than 2", "too deep: where");
	is_str(scan("(a)\n\n  [(", 1), "f:3:4: nesting deeper than 1", "brackets, lines and columns");
	is_str(scan("\xc3\xa9((", 1), "f:1:3: nesting deeper than 1", "columns in characters");
	is_str(scan("#(#(", 1), "f:1:3: nesting deeper than 1", "vectors");
	is_str(scan("(#vu8(1))", 1), "f:1:6: nesting deeper than 1", "bytevectors");
	is_str(scan("#2((1))", 1), "f:1:4: nesting deeper than 1", "arrays");
	is_str(scan("(#s\")))((", 2), "f:1:9: nesting deeper than 2",
	       "an array's tag takes any character up to (");
	is_str(scan("(#;((a)))", 2), "f:1:4: nesting deeper than 2", "#; comments are read");
	is_str(scan("(,#;x((", 3), "f:1:7: nesting deeper than 3",
	       "a datum after #; is the comment's: the prefix before waits for the next");
	is_str(scan("''\'x", 2), "f:1:3: nesting deeper than 2", "quotes nest");
	is_str(scan("(`,@#'#`#,#,@x)", 6), "f:1:11: nesting deeper than 6", "every prefix nests");
	is_str(scan("'(a 'b '\"c\" '#\\( '#t '#{x}# '(d) ,e) 'f 'g", 4), "ok",
	       "a prefix ends with its datum");
}

/* Text that a wrong scanner would think is a comment, a string or a close. */
static void tokens(void)
{
	is_str(scan("(a#|(((|#", 2), "f:1:6: nesting deeper than 2",
	       "#| inside a symbol is no comment");
	is_str(scan("(#t#|)))|#((", 2), "f:1:12: nesting deeper than 2",
	       "#| right after #t is one: booleans need no delimiter");
	is_str(scan("(,@#|)|#((", 2), "f:1:9: nesting deeper than 2", "nor after ,@");
	is_str(scan("(#:#|)|#((", 2), "f:1:9: nesting deeper than 2", "nor after #:");
	is_str(scan("(#\\a((", 2), "f:1:6: nesting deeper than 2", "a character name ends at (");
	is_str(scan("(#\\((", 2), "ok", "#\\( is one character");
	is_str(scan("(#\\;((", 2), "f:1:6: nesting deeper than 2", "#\\; starts no comment");
	is_str(scan("(}(}(}", 2), "f:1:5: nesting deeper than 2", "} closes nothing by default");
	is_str(scan("({{", 2), "ok", "{ opens nothing by default");
	is_str(scan("#!curly-infix ({{", 2), "f:1:17: nesting deeper than 2",
	       "braces are lists after #!curly-infix");
	is_str(scan("#!fold-case(((", 2), "f:1:14: nesting deeper than 2",
	       "a directive is no comment");
	is_str(scan("#!foo ((( !# ((", 2), "ok", "another #! name is one");
	is_str(scan("|(((|", 2), "f:1:4: nesting deeper than 2", "| quotes nothing by default");
	is_str(scan("#!r6rs\xc3\xa9", 2), "f:1:1: a reader directive run into other letters",
	       "a directive followed by a letter Guile may take for part of its name");
}

static void unterminated(void)
{
	is_str(scan("(a \"b", 9), "f:1:4: unterminated string", "a string");
	is_str(scan("\"\\", 9), "f:1:1: unterminated string", "a string ending in a backslash");
	is_str(scan("x #| #| |#", 9), "f:1:3: unterminated #| comment", "a #| comment");
	is_str(scan("#!/bin/sh\n(", 9), "f:1:1: unterminated #! comment", "a #! comment");
	is_str(scan("#{abc}", 9), "f:1:1: unterminated #{ symbol", "a #{ symbol");
}

static void encoding(void)
{
	is_str(scan("(a \xff)", 9), "f:1:4: not UTF-8", "a byte that is no UTF-8");
	is_str(scan("\"\xc0\xa8\"", 9), "f:1:2: not UTF-8", "an overlong form");
	is_str(scan("\xed\xa0\x80", 9), "f:1:1: not UTF-8", "a surrogate");
	is_str(scan("\xf4\x90\x80\x80", 9), "f:1:1: not UTF-8", "above U+10FFFF");
	is_str(scan("\xe2\x82", 9), "f:1:1: not UTF-8", "a sequence cut short");
	is_str(scan("\xef\xbb\xbf(a)", 9), "f:1:1: a byte order mark (source is UTF-8 without one)",
	       "a byte order mark");
}

static void sizes(void)
{
	struct cix_err err = { 0 };
	size_t n = CIX_SEXP_MAX_SIZE + 1;
	char *big = malloc(n);
	memset(big, ' ', n);
	ok(cix_sexp_scan("f", big, n, 9, &err) == -CIX_ELIMIT &&
	   !strcmp(err.msg, "f: larger than 16 MiB"), "text larger than the bound: %s", err.msg);
	ok(cix_sexp_scan("f", big, n - 1, 9, &err) == 0, "text of the bound");

	big[0] = '(';
	for (size_t i = 1; i < 800000; i += 2)
		big[i] = 'a';
	ok(cix_sexp_scan("f", big, 800000, 9, &err) == 0, "a form of 400000 data");
	for (size_t i = 1; i < 1200000; i += 2)
		big[i] = 'a';
	ok(cix_sexp_scan("f", big, 1200000, 9, &err) == -CIX_ELIMIT &&
	   !strcmp(err.msg, "f:1:1000002: a form of more than 500000 data"),
	   "a form of more than 500000 data: %s", err.msg);
	free(big);
	struct strbuf forms = STRBUF_INIT;
	for (int k = 0; k < 6; k++) {
		strbuf_addch(&forms, '(');
		for (int i = 0; i < 100000; i++)
			strbuf_addstr(&forms, "a ");
		strbuf_addch(&forms, ')');
	}
	ok(cix_sexp_scan("f", forms.buf, forms.len, 9, &err) == 0, "as many data in many forms");
	strbuf_release(&forms);

	memset(big = malloc(2003), '#', 2003);
	for (size_t i = 1; i < 2003; i += 2)
		big[i] = '|';
	ok(cix_sexp_scan("f", big, 2003, 1000, &err) == -CIX_ELIMIT &&
	   !strcmp(err.msg, "f:1:2001: comments nested too deep"), "comments nested too deep");
	free(big);
}

static void files(void)
{
	char dir[256], path[300];
	struct strbuf sb = STRBUF_INIT;
	struct cix_err err = { 0 };
	if (tap_mkdtemp(dir, sizeof(dir), "sexp") < 0)
		exit(1);
	snprintf(path, sizeof(path), "%s/no", dir);
	ok(cix_sexp_read_file(path, &sb, &err) == -ENOENT && strstr(err.msg, ": no such file"),
	   "a missing file");
	snprintf(path, sizeof(path), "%s/big", dir);
	FILE *f = fopen(path, "w");
	fputs("\"", f);
	fclose(f);
	ok(truncate(path, 1L << 30) == 0, "a 1 GiB file, all a string");
	ok(cix_sexp_read_file(path, &sb, &err) == -CIX_ELIMIT && strstr(err.msg, "larger than"),
	   "is refused: %s", err.msg);
	unlink(path);
	snprintf(path, sizeof(path), "%s/ok", dir);
	f = fopen(path, "w");
	fputs("(a \"(\")\n", f);
	fclose(f);
	ok(cix_sexp_read_file(path, &sb, &err) == 0 && sb.len == 8, "a good file, read");
	unlink(path);
	rmdir(dir);
	strbuf_release(&sb);
}

int main(void)
{
	accepted();
	depth();
	tokens();
	unterminated();
	encoding();
	sizes();
	files();
	return done_testing();
}
