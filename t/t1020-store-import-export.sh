#!/bin/sh
# t1020-store-import-export.sh - cix store --import/--export against nix-store
# SPDX-License-Identifier: GPL-3.0-or-later
test_description='import and export: Nix closures answer every query as in Nix'
. "$(dirname "$0")/test-lib.sh"

test_private_store
SD=$CIX_STORE_DIR
N="local?store=$SD&real=$TRASH_DIRECTORY/nixreal&state=$TRASH_DIRECTORY/nixstate&log=$TRASH_DIRECTORY/nixlog"
N2="local?store=$SD&real=$TRASH_DIRECTORY/nixreal2&state=$TRASH_DIRECTORY/nixstate2&log=$TRASH_DIRECTORY/nixlog2"
nixs () { nix-store --store "$N" "$@"; }

test_expect_success NIX 'a Nix closure with references and a derivation' '
	printf "hello\n" >hello.txt &&
	mkdir -p tree/sub && echo x >tree/sub/x && ln -s sub tree/link &&
	h=$(nixs --add hello.txt) && t=$(nixs --add tree) &&
	nix-instantiate --store "$N" --eval --read-write-mode -E \
		"builtins.toFile \"ref.txt\" \"see \${builtins.storePath \"$h\"} and \${builtins.storePath \"$t\"}\"" |
		tr -d "\"" >ref.path &&
	r=$(cat ref.path) &&
	cat >d.nix <<-EOF &&
	derivation {
	  name = "demo"; system = "x86_64-linux"; builder = "/bin/sh";
	  src = builtins.storePath "$r";
	  args = [ "-c" "echo \$src > \$out" ];
	  outputs = [ "out" "doc" ];
	}
	EOF
	nix-instantiate --store "$N" d.nix >drv.path 2>/dev/null &&
	d=$(cat drv.path) &&
	nixs -qR "$d" >closure &&
	test_line_count = 4 closure &&
	nixs --export $(cat closure) >closure.export
'

test_expect_success NIX 'cix store --import takes the stream and lists its paths' '
	cix store --import <closure.export >imported &&
	test_line_count = 4 imported &&
	sort imported >a && sort closure >b && test_cmp b a &&
	for p in $(cat closure); do cix store --check-validity "$p" || return 1; done
'

test_expect_success NIX 'every query answers as nix-store does' '
	for p in $(cat closure); do
		for q in --hash --size --references --referrers --deriver -R \
			 --referrers-closure --tree --graph; do
			cix store -q $q $p >c 2>cerr || { cat cerr; return 1; }
			nixs -q $q $p >n || return 1
			test_cmp n c || { echo "differs: -q $q $p"; return 1; }
		done
	done &&
	d=$(cat drv.path) &&
	cix store -q --outputs "$d" >c && nixs -q --outputs "$d" >n && test_cmp n c &&
	test_line_count = 2 c &&
	for o in $(cat c); do
		test "$(cix store -q --valid-derivers "$o")" = "$d" || return 1
	done &&
	cix store -q -R $(cat closure) >c && nixs -q -R $(cat closure) >n && test_cmp n c
'

test_expect_success NIX 'the imported trees are what Nix stored' '
	for p in $(cat closure); do
		cix store --dump "$p" >c.nar &&
		nix-store --dump "nixreal/${p##*/}" >n.nar &&
		cmp c.nar n.nar || return 1
	done &&
	cix store --verify --check-contents
'

test_expect_success NIX 'cix store --export writes what nix-store --export writes' '
	cix store --export $(cat closure) >ours.export &&
	cmp closure.export ours.export &&
	cix store --export $(sort -r closure) >ours2.export &&
	cmp closure.export ours2.export
'

test_expect_success NIX 'our export imports into a fresh Nix store' '
	nix-store --store "$N2" --import <ours.export >nix2.imported &&
	sort nix2.imported >a && sort closure >b && test_cmp b a &&
	for p in $(cat closure); do
		test "$(nix-store --store "$N2" -q --hash "$p")" = "$(cix store -q --hash "$p")" || return 1
	done
'

test_expect_success NIX 'a path still referred to cannot be deleted' '
	h=$(grep hello.txt closure) &&
	test_expect_code 1 cix store --delete "$h" 2>err &&
	grep "still referenced" err &&
	cix store --check-validity "$h"
'

fresh_store () {
	test_stop_daemons_
	chmod -R u+w "$TRASH_DIRECTORY/store" "$TRASH_DIRECTORY/state" 2>/dev/null
	rm -rf "$TRASH_DIRECTORY/store" "$TRASH_DIRECTORY/state"
}

test_expect_success NIX 'truncated streams register nothing and leave nothing' '
	size=$(wc -c <closure.export) &&
	for cut in 1 8 64 300 $((size / 3)) $((size / 2)) $((size - 9)) $((size - 1)); do
		fresh_store &&
		head -c $cut closure.export >cut.export &&
		test_expect_code 1 cix store --import <cut.export 2>err &&
		test_line_count = 1 err &&
		cix store --check-validity --print-invalid $(cat closure) >invalid &&
		test_line_count = 4 invalid &&
		test "$(ls -A store/.cix-tmp | wc -l)" = 0 &&
		test "$(ls store | wc -l)" = 0 || { echo "cut at $cut"; return 1; }
	done
'

test_expect_success NIX 'garbage and missing references are refused, nothing registered' '
	fresh_store &&
	head -c 4096 /dev/urandom >garbage &&
	test_expect_code 1 cix store --import <garbage 2>err &&
	test_line_count = 1 err &&
	nixs --export $(cat ref.path) >noref.export &&
	test_expect_code 1 cix store --import <noref.export 2>err &&
	grep "neither valid nor earlier" err &&
	test_expect_code 1 cix store --check-validity $(cat ref.path) 2>/dev/null &&
	test "$(ls store | wc -l)" = 0
'

test_expect_success NIX 'importing twice is harmless' '
	fresh_store &&
	cix store --import <closure.export >/dev/null &&
	cix store --import <closure.export >again &&
	test_line_count = 4 again &&
	cix store --verify --check-contents
'

# The restore makes files and directories writable by their owner, then
# gives them their canonical modes: a umask must change none of them.
test_expect_success NIX 'the modes are the canonical ones whatever the umask' '
	for mask in 022 077 0; do
		fresh_store &&
		(umask $mask && cix store --import <closure.export >/dev/null) &&
		t=$(grep -e -tree imported) &&
		find "$t" -exec stat -c "%a %Y %F" {} + | sort | uniq -c >modes.$mask &&
		grep -q " 555 1 directory" modes.$mask &&
		grep -q " 444 1 regular file" modes.$mask &&
		! grep -v -e " 555 1 directory" -e " 444 1 regular file" -e " 777 1 symbolic link" modes.$mask ||
			{ echo "umask $mask:"; cat modes.$mask; return 1; }
		cix store --verify --check-contents || return 1
	done
'

test_expect_success NIX 'kill -9 during an import leaves no valid partial path' '
	dd if=/dev/urandom of=big bs=1M count=100 2>/dev/null &&
	b=$(nixs --add big) &&
	nixs --export "$b" >big.export &&
	for delay in 0.05 0.2 0.4; do
		# (not "fresh_store && cix ... &": that would put both in the background)
		fresh_store || return 1
		cix store --import <big.export >/dev/null 2>killed.err &
		pid=$! &&
		sleep $delay &&
		kill -9 $pid 2>/dev/null
		wait $pid 2>/dev/null
		if cix store --check-validity "$b" 2>/dev/null; then
			cix store --verify-path "$b" ||
				{ echo "killed after $delay s: valid but wrong"; return 1; }
		fi
		cix store --import <big.export >/dev/null 2>again.err ||
			{ echo "killed after $delay s: the next import failed"; cat killed.err again.err; return 1; }
		cix store --verify-path "$b" ||
			{ echo "killed after $delay s: imported again but wrong"; return 1; }
		# (the last to close the store removes its temporaries directory, empty;
		# through a daemon, the worker of the killed client may not be done yet)
		i=0 &&
		while [ -e store/.cix-tmp ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
		ls -lA store/.cix-tmp >left 2>&1
		test_path_is_missing store/.cix-tmp ||
			{ echo "killed after $delay s: temporaries left"; cat left killed.err; return 1; }
	done
'

test_done
