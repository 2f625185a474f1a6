#!/bin/sh
# t1030-gen-closure.sh - a synthetic closure queried in cix and in Nix
# SPDX-License-Identifier: GPL-3.0-or-later
test_description='gen-closure streams import alike into cix and Nix, and closures match'
. "$(dirname "$0")/test-lib.sh"

PATH=$CIX_BUILD_DIR/bench:$PATH
test_private_store
SD=$CIX_STORE_DIR
N="local?store=$SD&real=$TRASH_DIRECTORY/nixreal&state=$TRASH_DIRECTORY/nixstate&log=$TRASH_DIRECTORY/nixlog"
nixs () { nix-store --store "$N" "$@"; }

test_expect_success 'gen-closure is reproducible and depends on its seed' '
	gen-closure -p ends "$SD" 200 >s.exp &&
	gen-closure "$SD" 200 1 >s1.exp 2>ends1 &&
	cmp s.exp s1.exp && test_cmp ends ends1 &&
	gen-closure "$SD" 200 2 >s2.exp 2>/dev/null &&
	! cmp -s s.exp s2.exp &&
	test_line_count = 2 ends &&
	test_must_fail gen-closure "$SD" 0 >/dev/null 2>&1 &&
	test_must_fail gen-closure relative/dir 10 >/dev/null 2>&1
'

test_expect_success 'the stream is valid and imports into cix' '
	cix store --import <s.exp >c.imported &&
	test_line_count = 200 c.imported
'

test_expect_success NIX 'Nix imports the same paths' '
	nixs --import <s.exp >n.imported &&
	test_cmp n.imported c.imported
'

test_expect_success NIX 'closures answer as in Nix' '
	top=$(sed -n 1p ends) && bottom=$(sed -n 2p ends) &&
	cix store -qR "$top" >c && nixs -qR "$top" >n && test_cmp n c &&
	test $(wc -l <c) -gt 150 &&
	cix store -q --referrers-closure "$bottom" >c &&
	nixs -q --referrers-closure "$bottom" >n && test_cmp n c &&
	test $(wc -l <c) -gt 150 &&
	cix store -qR $(sed -n "1~7p" c.imported) >c &&
	nixs -qR $(sed -n "1~7p" c.imported) >n && test_cmp n c &&
	cix store -q --referrers-closure $(sed -n "3~11p" c.imported) >c &&
	nixs -q --referrers-closure $(sed -n "3~11p" c.imported) >n && test_cmp n c &&
	cix store -qR $(cat c.imported) "$top" >c &&
	nixs -qR $(cat c.imported) "$top" >n && test_cmp n c
'

test_expect_success NIX 'references and referrers answer as in Nix' '
	for p in $(sed -n "1~9p" c.imported); do
		for q in --references --referrers; do
			cix store -q $q $p >c && nixs -q $q $p >n &&
			test_cmp n c || return 1
		done
	done
'

test_expect_success NIX 'the export of the whole closure is what Nix exports' '
	cix store --export $(cat c.imported) >c.exp &&
	nixs --export $(cat c.imported) >n.exp &&
	cmp n.exp c.exp
'

test_expect_success 'a closure of an invalid path is an error' '
	bad=$(sed -n 1p ends | sed "s/-node-[0-9]*$/-nothere/") &&
	test_must_fail cix store -qR "$bad" 2>err &&
	grep "not valid" err &&
	test_must_fail cix store -q --referrers-closure $(sed -n 2p ends) "$bad" 2>err &&
	grep "not valid" err
'

test_done
