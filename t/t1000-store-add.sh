#!/bin/sh
# t1000-store-add.sh - cix store --add/--add-fixed, queries, validity, delete
# SPDX-License-Identifier: GPL-3.0-or-later
test_description='adding to the store: same paths as Nix, canonical, atomic'
. "$(dirname "$0")/test-lib.sh"
. "$CIX_SRC_DIR/t/lib-randtree.sh"

test_private_store
# Nix on the same logical store directory, with its files kept elsewhere.
NIXSTORE="local?store=$CIX_STORE_DIR&real=$TRASH_DIRECTORY/nixreal&state=$TRASH_DIRECTORY/nixstate&log=$TRASH_DIRECTORY/nixlog"
nixs () { nix-store --store "$NIXSTORE" "$@"; }

test_expect_success 'set up inputs' '
	printf "hello\n" >hello.txt &&
	: >empty &&
	mkdir -p tree/sub &&
	echo a >tree/a && chmod 4755 tree/a &&
	ln -s a tree/link &&
	echo b >tree/sub/b && chmod 0600 tree/sub/b &&
	make_random_tree rand 3 200
'

test_expect_success NIX '--add gives the store paths nix-store --add gives' '
	cix store --add hello.txt empty tree rand >cix.out &&
	nixs --add hello.txt empty tree rand >nix.out &&
	test_cmp nix.out cix.out &&
	test_line_count = 4 cix.out
'

test_expect_success NIX '--add-fixed, flat and recursive, for each algorithm' '
	for algo in md5 sha1 sha256 sha512; do
		cix store --add-fixed $algo hello.txt empty >>cix.fixed &&
		nixs --add-fixed $algo hello.txt empty >>nix.fixed &&
		cix store --add-fixed --recursive $algo tree >>cix.fixed &&
		nixs --add-fixed --recursive $algo tree >>nix.fixed || return 1
	done &&
	test_cmp nix.fixed cix.fixed
'

test_expect_success NIX 'queries answer as nix-store does' '
	for p in $(cat cix.out cix.fixed); do
		for q in --hash --size --references --referrers --deriver -R --referrers-closure; do
			cix store -q $q $p >c || return 1
			nixs -q $q $p >n || return 1
			test_cmp n c || { echo "differs: -q $q $p"; return 1; }
		done
	done
'

test_expect_success NIX 'the stored trees are the same NARs as Nix stored' '
	for p in $(cat cix.out cix.fixed); do
		b=${p##*/} &&
		cix store --dump "$p" >c.nar &&
		nix-store --dump "nixreal/$b" >n.nar &&
		cmp c.nar n.nar || return 1
	done
'

test_expect_success 'stored content is canonical: read-only, mtime 1, no setuid' '
	p=$(cix store --add tree) &&
	find "$p" ! -type l -perm /7222 >bad &&
	test_line_count = 0 bad &&
	test "$(stat -c %a "$p/a")" = 555 &&
	test "$(stat -c %a "$p/sub/b")" = 444 &&
	test "$(stat -c %a "$p")" = 555 &&
	test "$(find "$p" -newermt @2 | wc -l)" = 0
'

test_expect_success 'adding again is idempotent and keeps one copy' '
	p1=$(cix store --add tree) &&
	p2=$(cix store --add tree/) &&
	test "$p1" = "$p2" &&
	test "$(ls store | grep -c -- "-tree\$")" -ge 1
'

test_expect_success '--check-validity and --delete' '
	p=$(cix store --add hello.txt) &&
	cix store --check-validity "$p" &&
	cix store --delete "$p" &&
	test_path_is_missing "$p" &&
	test_expect_code 1 cix store --check-validity "$p" 2>err &&
	test_line_count = 1 err &&
	cix store --check-validity --print-invalid "$p" >out &&
	test "$(cat out)" = "$p" &&
	test_expect_code 1 cix store --delete "$p" 2>err &&
	grep "not valid" err
'

test_expect_success 'bad arguments: one line, the right exit code' '
	test_expect_code 1 cix store --add no-such-file 2>err &&
	test_line_count = 1 err &&
	mkfifo fifo &&
	test_expect_code 1 cix store --add fifo 2>err &&
	test_line_count = 1 err &&
	test_expect_code 2 cix store --add-fixed sha3 hello.txt 2>err &&
	test_expect_code 2 cix store --query hello.txt 2>err &&
	test_expect_code 2 cix store --references hello.txt 2>err &&
	test_expect_code 1 cix store -q --hash /etc/passwd 2>err &&
	test_line_count = 1 err &&
	test_expect_code 1 cix store -q --hash "$CIX_STORE_DIR/../etc/passwd" 2>err &&
	test_expect_code 1 cix store -q --hash "$CIX_STORE_DIR/00000000000000000000000000000000-x" 2>err &&
	grep "not valid" err &&
	test_expect_code 1 cix store --add-fixed sha256 tree 2>err &&
	test_line_count = 1 err &&
	test_path_is_missing store/.cix-tmp/* 
'

test_expect_success 'concurrent adds of one path: one copy, all agree' '
	make_random_tree big 11 400 &&
	for i in 1 2 3 4 5 6; do
		cix store --add big >par.$i &
	done &&
	wait &&
	for i in 2 3 4 5 6; do test_cmp par.1 par.$i || return 1; done &&
	p=$(cat par.1) &&
	test "$(cix store -q --hash "$p")" = "sha256:$(cix hash -r big)" &&
	test "$(ls store/.cix-tmp | wc -l)" = 0 &&
	test "$(ls store | grep -c "\\.lock\$")" = 0
'

if [ "$(id -u)" = 0 ] && command -v runuser >/dev/null && runuser -u nobody -- true 2>/dev/null; then
	test_set_prereq NOBODY
fi

test_expect_success NOBODY 'a user without root keeps a private store' '
	mkdir -m 777 nb && mkdir -p nb/src/d && echo hi >nb/src/d/f && chmod -R a+rX nb/src &&
	runuser -u nobody -- env CIX_STORE_DIR="$PWD/nb/store" CIX_STATE_DIR="$PWD/nb/state" sh -c "
		set -e
		cd \"$PWD/nb\"
		p=\$(cix store --add src)
		test \"\$(stat -c %a \$p)\" = 555
		cix store --export \$p >x.export
		cix store --delete \$p
		cix store --import <x.export
		cix store --verify --check-contents
		cix store --delete \$p
	"
'

test_expect_success '50 concurrent writers: every add registers' '
	mkdir many &&
	for i in $(seq 1 50); do echo "file $i" >many/f$i; done &&
	for i in $(seq 1 50); do cix store --add many/f$i >many/out$i 2>many/err$i & done &&
	wait &&
	cat many/err* >errs && test_line_count = 0 errs &&
	for i in $(seq 1 50); do cix store --check-validity "$(cat many/out$i)" || return 1; done
'

test_expect_success 'kill -9 during an add leaves no valid partial path' '
	dd if=/dev/urandom of=huge bs=1M count=200 2>/dev/null &&
	want=$(cix hash -r huge) &&
	for delay in 0.05 0.2 0.5; do
		cix store --add huge >/dev/null 2>&1 &
		pid=$! &&
		sleep $delay &&
		kill -9 $pid 2>/dev/null
		wait $pid 2>/dev/null
		p=$(cix store --add huge) &&
		test "$(cix store -q --hash "$p")" = "sha256:$want" &&
		test "$(cix hash -r "$p")" = "$want" &&
		# (Through the daemon, the killed client'"'"'s worker ends on its
		# own time, its temporaries and temporary roots with it: wait for
		# it, up to 20 s.)
		for i in $(seq 200); do
			[ "$(ls store/.cix-tmp | wc -l)" = 0 ] &&
			[ "$(ls state/temproots 2>/dev/null | wc -l)" = 0 ] && break
			sleep 0.1
		done &&
		test "$(ls store/.cix-tmp | wc -l)" = 0 &&
		cix store --delete "$p" || return 1
	done
'

test_done
