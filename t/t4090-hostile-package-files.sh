#!/bin/sh
# t4090-hostile-package-files.sh - package files, expressions and manifests made to hurt the reader
# SPDX-License-Identifier: GPL-3.0-or-later
test_description='doc/security.md item 35: a Scheme file (cix build -f, -e, cix package -m) with deep nesting, an unterminated string, a 1 GB literal, a list of millions, bytes that are no UTF-8: a one-line error placed in the text and a non-zero exit, before Guile reads it (50,000 parentheses ran for minutes)'
. "$(dirname "$0")/test-lib.sh"

test_private_store

# repeat N TEXT: TEXT N times, on one line.
repeat () {
	awk -v n="$1" -v t="$2" 'BEGIN { s = t; while (length(s) < n * length(t)) s = s s;
		printf "%s", substr(s, 1, n * length(t)) }'
}

# refused PATTERN COMMAND...: COMMAND fails (within a bounded time, were
# the reader left to itself) with one line matching PATTERN.
refused () {
	pattern=$1 && shift &&
	test_expect_code 1 timeout 120 "$@" 2>err &&
	test_line_count = 1 err && grep -q "$pattern" err || { cat err; false; }
}

test_expect_success '50,000 nested parentheses: nesting deeper than 1000, placed' '
	{ repeat 50000 "(" && repeat 50000 ")"; } >deep.scm &&
	refused "^cix build: deep.scm:1:1001: nesting deeper than 1000$" cix build -d -f deep.scm
'

test_expect_success 'the same in an expression, in vectors, in quotes' '
	refused "<expression>:1:1001: nesting deeper than 1000" \
		cix build -d -e "$(repeat 50000 "(")" &&
	repeat 50000 "#(" >vectors.scm &&
	refused "vectors.scm:1:2001: nesting deeper than 1000" cix build -d -f vectors.scm &&
	{ repeat 50000 "\`" && echo x; } >quotes.scm &&
	refused "quotes.scm:1:1001: nesting deeper than 1000" cix build -d -f quotes.scm
'

test_expect_success 'parentheses in strings, comments and characters are not nesting' '
	{ echo "(define s \"$(repeat 5000 "(")\")" &&
	  echo "; $(repeat 5000 "(")" && echo "#| $(repeat 5000 "(") |#" &&
	  echo "(define c (list $(repeat 2000 "#\\( ")))" && echo "(string-length s)"; } >flat.scm &&
	test_expect_code 1 cix build -d -f flat.scm 2>err &&
	grep -q "5000 is not a package" err
'

test_expect_success 'an unterminated string: where it starts' '
	printf "(define x 1)\n(define y \"abc\n%s\n" "$(repeat 1000 "(")" >string.scm &&
	refused "^cix build: string.scm:2:11: unterminated string$" cix build -d -f string.scm &&
	printf "(a #| b\n" >comment.scm &&
	refused "comment.scm:1:4: unterminated #| comment" cix build -d -f comment.scm
'

test_expect_success 'a 1 GB string literal, a file without end: larger than 16 MiB' '
	printf "\"" >huge.scm && truncate -s 1G huge.scm &&
	refused "^cix build: huge.scm: larger than 16 MiB$" cix build -d -f huge.scm &&
	refused "^cix build: /dev/zero: larger than 16 MiB$" cix build -d -f /dev/zero
'

test_expect_success 'a list of 4 million: a form of more than 500000 data' '
	{ printf "(quote (" && repeat 4000000 "a " && echo "))"; } >long.scm &&
	refused "long.scm:1:1000005: a form of more than 500000 data" cix build -d -f long.scm
'

test_expect_success 'bytes that are no UTF-8' '
	printf "(define x \"caf\351\")\n" >latin1.scm &&
	refused "latin1.scm:1:15: not UTF-8" cix build -d -f latin1.scm
'

test_expect_success 'a manifest (cix package -m): the same checks' '
	{ echo "(specifications->manifest (list" && repeat 5000 "(" && echo "))"; } >m.scm &&
	refused "m.scm:2:999: nesting deeper than 1000" cix package -p prof -m m.scm &&
	test_path_is_missing prof
'

command -v git >/dev/null && test_set_prereq GIT
test_expect_success GIT 'a module that cix pull brings: checked before Guile loads any' '
	mkdir -p repo/scheme && cp -R "$CIX_SRC_DIR/scheme/modules" repo/scheme/modules &&
	cp -R "$CIX_SRC_DIR/distro" "$CIX_SRC_DIR/builder" repo/ &&
	{ echo "(define-module (gnu packages deep))" && cat deep.scm; } \
		>repo/distro/gnu/packages/deep.scm &&
	(cd repo && git init -q -b main && git add -A &&
	 git -c user.name=t -c user.email=t@example.org commit -q -m deep) &&
	test_expect_code 1 env HOME="$TRASH_DIRECTORY/home" XDG_CONFIG_HOME= XDG_CACHE_HOME= \
		timeout 120 cix pull --url="$TRASH_DIRECTORY/repo" 2>err &&
	grep -q "is broken .*gnu/packages/deep.scm:2:1001: nesting deeper than 1000" err
'

test_done
