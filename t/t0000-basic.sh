#!/bin/sh
# t0000-basic.sh - the cix front-end: help, version, usage errors
# SPDX-License-Identifier: GPL-3.0-or-later
test_description='cix --help, --version, every command has -h, usage errors exit 2'
. "$(dirname "$0")/test-lib.sh"

# Every command of main.c's table; keep in step with it.
commands='archive build derivation download gc hash package publish pull refresh store'

test_expect_success 'cix --help prints usage and lists every command' '
	cix --help >out 2>err &&
	test ! -s err &&
	grep "^Usage: cix " out &&
	for c in $commands; do
		grep "^  $c " out || { echo "command $c not listed"; exit 1; }
	done
'

test_expect_success 'cix -h is --help' '
	cix --help >expect &&
	cix -h >actual &&
	test_cmp expect actual
'

test_expect_success 'cix --version prints one line with the version' '
	cix --version >out 2>err &&
	test ! -s err &&
	test_line_count = 1 out &&
	grep "^cix (cix) [0-9][0-9]*\.[0-9][0-9]*" out &&
	cix -V >out2 &&
	test_cmp out out2
'

for c in $commands; do
	test_expect_success "cix $c --help exits 0 and prints Usage:" "
		cix $c --help >out 2>err &&
		test ! -s err &&
		grep '^Usage: cix $c' out
	"
	test_expect_success "cix $c -h is cix $c --help" "
		cix $c --help >expect &&
		cix $c -h >actual &&
		test_cmp expect actual
	"
	test_expect_success "cix $c --version exits 0" "
		cix $c --version >out 2>err &&
		test ! -s err &&
		test_line_count = 1 out &&
		grep '^cix $c (cix) ' out
	"
	test_expect_success "cix $c --no-such-option is a usage error" "
		{ cix $c --no-such-option >out 2>err; ret=\$?; } &&
		test \$ret -eq 2 &&
		test ! -s out &&
		test_line_count = 2 err &&
		head -n 1 err | grep '^cix $c: ' &&
		tail -n 1 err | grep -- '--help'
	"
done

test_expect_success 'cix alone is a usage error' '
	{ cix >out 2>err; ret=$?; } &&
	test $ret -eq 2 &&
	test ! -s out &&
	grep "^Usage: cix " err
'

test_expect_success 'an unknown command exits 2 with one line and the hint' '
	{ cix no-such-command >out 2>err; ret=$?; } &&
	test $ret -eq 2 &&
	test ! -s out &&
	test_line_count = 2 err &&
	head -n 1 err | grep "^cix: .*no-such-command" &&
	tail -n 1 err | grep -- "cix --help"
'

test_expect_success 'an unknown option of cix itself exits 2' '
	{ cix --no-such-option >out 2>err; ret=$?; } &&
	test $ret -eq 2 &&
	test ! -s out &&
	test_line_count = 2 err &&
	head -n 1 err | grep "^cix: .*--no-such-option" &&
	tail -n 1 err | grep -- "--help"
'

test_expect_success 'a command is not recognised by a prefix' '
	{ cix has >out 2>err; ret=$?; } &&
	test $ret -eq 2
'

test_expect_success 'writing to a full stdout fails cleanly' '
	test -w /dev/full || exit 0
	{ cix --help >/dev/full 2>err; ret=$?; } &&
	test $ret -ne 0 && test $ret -lt 128
'

test_done
