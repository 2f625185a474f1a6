#!/bin/sh
# t1010-store-verify.sh - cix store --verify, --verify-path
# SPDX-License-Identifier: GPL-3.0-or-later
test_description='verifying the store: tampered and vanished paths are found'
. "$(dirname "$0")/test-lib.sh"

test_private_store

test_expect_success 'a sound store verifies' '
	echo one >one && echo two >two && mkdir d && echo x >d/x &&
	p1=$(cix store --add one) && p2=$(cix store --add two) && p3=$(cix store --add d) &&
	echo "$p1 $p2 $p3" >paths &&
	cix store --verify 2>err && test_line_count = 0 err &&
	cix store --verify --check-contents 2>err && test_line_count = 0 err &&
	cix store --verify-path $p1 $p2 $p3
'

test_expect_success 'tampered content is reported by --check-contents only' '
	set -- $(cat paths) &&
	chmod u+w "$3" "$3/x" && echo y >"$3/x" &&
	cix store --verify 2>err &&
	test_expect_code 1 cix store --verify --check-contents 2>err &&
	test_line_count = 1 err &&
	grep -F "path '\''$3'\'' was modified" err &&
	test_expect_code 1 cix store --verify-path "$3" 2>err &&
	test_line_count = 1 err &&
	cix store --verify-path "$1" &&
	test_expect_code 1 cix store --verify --check-contents --repair 2>err &&
	grep "cannot repair" err
'

test_expect_success 'a vanished path is dropped from the database' '
	set -- $(cat paths) &&
	rm -f "$2" &&
	cix store --verify 2>err &&
	grep -F "path '\''$2'\'' disappeared" err &&
	test_expect_code 1 cix store --check-validity "$2" 2>/dev/null &&
	cix store --verify 2>err && test_line_count = 0 err
'

test_expect_success 'a path that is not valid cannot be verified' '
	test_expect_code 1 cix store --verify-path "$CIX_STORE_DIR/00000000000000000000000000000000-x" 2>err &&
	grep "not valid" err &&
	test_expect_code 1 cix store --verify-path /etc/passwd 2>err &&
	test_line_count = 1 err
'

test_expect_success '--optimise shares identical files and changes no NAR' '
	mkdir oa ob &&
	head -c 100000 /dev/urandom >oa/x && cp oa/x ob/x && cp oa/x ob/exe && chmod +x ob/exe &&
	echo small >oa/s && cp oa/s ob/s &&
	pa=$(cix store --add oa) && pb=$(cix store --add ob) &&
	cix store --dump "$pa" >a.before && cix store --dump "$pb" >b.before &&
	cix store --optimise 2>out &&
	grep "freed by hard-linking 2 files" out &&
	test "$(stat -c %i "$pa/x")" = "$(stat -c %i "$pb/x")" &&
	test "$(stat -c %i "$pa/s")" = "$(stat -c %i "$pb/s")" &&
	test "$(stat -c %i "$pb/exe")" != "$(stat -c %i "$pb/x")" &&
	cix store --dump "$pa" >a.after && cix store --dump "$pb" >b.after &&
	cmp a.before a.after && cmp b.before b.after &&
	test "$(stat -c "%a %Y" "$pa")" = "555 1" &&
	cix store --verify-path "$pa" "$pb" &&
	cix store --optimise 2>out &&
	grep "hard-linking 0 files" out
'

test_done
