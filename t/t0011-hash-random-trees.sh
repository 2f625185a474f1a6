#!/bin/sh
# t0011-hash-random-trees.sh - cix hash -r and cix store --dump on random trees
# SPDX-License-Identifier: GPL-3.0-or-later
test_description='NAR hashes and dumps of random trees, byte-identical to Nix'
. "$(dirname "$0")/test-lib.sh"
. "$CIX_SRC_DIR/t/lib-randtree.sh"

seeds='1 2 3 4 5'


test_expect_success 'the generator is reproducible' '
	make_random_tree a 7 50 &&
	make_random_tree b 7 50 &&
	diff -r --no-dereference a b &&
	make_random_tree c 8 50 &&
	! diff -r --no-dereference a c >/dev/null
'

test_expect_success NIX 'the generator makes the trees it promises' '
	make_random_tree t 1 &&
	test -f "t/names/new
line" && test -f "t/names/tab	here" &&
	test -f t/names/-leading-dash &&
	test -f t/names/$(printf "%0255d" 0 | tr 0 x) &&
	test -x t/modes/exec && test -L t/links/dangling &&
	test -d t/empty && test -d t/deep/d/"level 2"/d &&
	test $(wc -c <t/sizes/big) -gt 3000000 &&
	test $(readlink t/links/long-4095 | wc -c) -eq 4096
'

for s in $seeds; do
	test_expect_success NIX "seed $s: cix hash -r equals nix-hash" "
		make_random_tree tree$s $s &&
		nix-hash --type sha256 --base32 tree$s >expect &&
		cix hash -r tree$s >actual &&
		test_cmp expect actual
	"
	test_expect_success NIX "seed $s: cix store --dump equals nix-store --dump" "
		nix-store --dump tree$s >expect.nar &&
		cix store --dump tree$s >actual.nar &&
		test_cmp expect.nar actual.nar
	"
done

test_expect_success NIX 'a larger tree, every algorithm and format' '
	make_random_tree large 1000 1500 &&
	for a in md5 sha1 sha256 sha512; do
		nix-hash --type $a --base32 large >expect &&
		cix hash -r -H $a large >actual &&
		test_cmp expect actual &&
		nix-hash --type $a large >expect &&
		cix hash -r -H $a -f base16 large >actual &&
		test_cmp expect actual || exit 1
	done
'

test_expect_success NIX 'a larger tree: cix store --dump equals nix-store --dump' '
	nix-store --dump large >expect.nar &&
	cix store --dump large >actual.nar &&
	test_cmp expect.nar actual.nar
'

# Every node of a tree as the root: files, symlinks and directories at
# every depth, whatever bytes their names hold.
test_expect_success NIX 'every path of a tree hashes as nix-hash hashes it' '
	make_random_tree every 3 150 &&
	find every -print0 >paths &&
	perl -0 -ne "
		chomp;
		open(my \$n, q(-|), qw(nix-hash --type sha256 --base32), \$_) or die;
		my \$want = <\$n>; close \$n or die qq(nix-hash failed on \$_\n);
		open(my \$c, q(-|), qw(cix hash -r), \$_) or die;
		my \$got = <\$c>; close \$c or die qq(cix hash failed on \$_\n);
		\$want eq \$got or die qq(differs on \$_: \$want vs \$got);
		\$count++;
		END { print qq(\$count paths\n); \$count > 250 or die qq(too few\n) }
	" paths
'

test_expect_success NIX 'a tree nested 60 directories deep is hashed' '
	make_deep_tree deep60 60 &&
	nix-hash --type sha256 --base32 deep60 >expect &&
	cix hash -r deep60 >actual &&
	test_cmp expect actual
'

test_expect_success 'a tree nested 70 directories deep is refused clearly' '
	make_deep_tree deep70 70 &&
	{ cix hash -r deep70 >out 2>err; ret=$?; } &&
	test $ret -eq 1 &&
	test ! -s out &&
	test_line_count = 1 err &&
	grep "^cix hash: .*deep70/d/d.*64" err
'

test_expect_success 'cix store --dump refuses the deep tree too' '
	{ cix store --dump deep70 >out 2>err; ret=$?; } &&
	test $ret -eq 1 &&
	test_line_count = 1 err &&
	grep "64" err
'

test_expect_success NIX 'a tree that changes while hashed fails or matches, never crashes' '
	make_random_tree moving 11 20 &&
	( i=0; while [ $i -lt 200 ]; do
		printf "%d\n" $i >>moving/sizes/17; i=$((i + 1));
	  done ) &
	pid=$! &&
	for i in 1 2 3 4 5; do
		cix hash -r moving >/dev/null 2>err
		ret=$?
		test $ret -le 1 || { cat err; kill $pid; exit 1; }
	done &&
	wait $pid
'

test_done
