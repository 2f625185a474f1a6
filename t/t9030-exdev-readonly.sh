#!/bin/sh
# t9030-exdev-readonly.sh - store, state and TMPDIR apart; a read-only store
# SPDX-License-Identifier: GPL-3.0-or-later
test_description='doc/security.md item 40: with the store, its state and TMPDIR on
three file systems (no rename may cross them: EXDEV), adding, importing,
building and collecting work; with the store read-only, they fail with a
one-line error, not a crash, and queries still work.'
. "$(dirname "$0")/test-lib.sh"
. "$CIX_SRC_DIR/t/lib-loopfs.sh"

T=$TRASH_DIRECTORY
M=$T/mnt
test_private_store
# The store apart; the logs on the state's file system.
CIX_STORE_DIR=$M/store
CIX_LOG_DIR=$T/state/log
test_sandbox_host_paths
test_nix_oracle

# one_line_error FILE WORDS: FILE is one error line matching WORDS.
one_line_error () {
	cat "$1" &&
	test_line_count = 1 "$1" &&
	grep "$2" "$1"
}

test_expect_success LOOPFS 'store, state and TMPDIR on three file systems' '
	loopfs_make "$M" 64M -b 4096 &&
	loopfs_tmpfs "$CIX_STATE_DIR" 64M &&
	loopfs_tmpfs "$T/tmp" 64M &&
	test "$(stat -c %d "$M")" != "$(stat -c %d "$CIX_STATE_DIR")" &&
	test "$(stat -c %d "$M")" != "$(stat -c %d "$T/tmp")"
'

test_expect_success LOOPFS 'add, export, delete and import across them' '
	mkdir -p in/sub && echo a >in/a && echo b >in/sub/b && ln -s a in/l &&
	echo hello >hello &&
	TMPDIR=$T/tmp cix store --add in hello >paths &&
	TMPDIR=$T/tmp cix store --export $(cat paths) >paths.export &&
	TMPDIR=$T/tmp cix store --delete $(cat paths) &&
	TMPDIR=$T/tmp cix store --import <paths.export >imported &&
	sort paths >paths.sorted && sort imported >imported.sorted &&
	test_cmp paths.sorted imported.sorted &&
	TMPDIR=$T/tmp cix store --verify --check-contents
'

test_expect_success LOOPFS,NIX 'a build across them' '
	cat >d.nix <<-\EOF &&
	let sh = "/bin/sh"; sys = "x86_64-linux"; in {
	  a = derivation { name = "a"; system = sys; builder = sh;
	    args = [ "-c" "/bin/mkdir $out; echo $TMPDIR > $out/tmp; echo a > $out/a" ]; };
	  f = derivation { name = "f"; system = sys; builder = sh; args = [ "-c" "echo hello > $out" ];
	    outputHashAlgo = "sha256"; outputHash = "@FLAT@"; };
	}
	EOF
	sed -i "s/@FLAT@/$(nix-hash --type sha256 --flat --base32 hello)/" d.nix &&
	for x in a f; do
		nix-instantiate --store "$N" d.nix -A $x 2>/dev/null >$x.drv || return 1
	done &&
	nixs --export $(nixs -qR $(cat a.drv f.drv)) >drvs.export &&
	TMPDIR=$T/tmp cix store --import <drvs.export >/dev/null &&
	TMPDIR=$T/tmp cix store -r $(cat a.drv) $(cat f.drv) >built &&
	test_line_count = 2 built &&
	test "$(cat "$(head -n 1 built)/a")" = a &&
	TMPDIR=$T/tmp cix store --verify --check-contents
'

test_expect_success LOOPFS 'a collection across them' '
	TMPDIR=$T/tmp cix gc >gc.out 2>&1 &&
	for p in $(cat paths); do test_path_is_missing "$p" || return 1; done &&
	TMPDIR=$T/tmp cix store --verify --check-contents
'

test_expect_success LOOPFS 'the store read-only' '
	TMPDIR=$T/tmp cix store --add hello >hello.path &&
	if test_have_prereq NIX; then
		cix store --import <drvs.export >/dev/null || return 1
	fi &&
	mkdir -p more && echo more >more/m &&
	loopfs_bind_ro "$CIX_STORE_DIR" "$CIX_STORE_DIR" &&
	test_must_fail touch "$CIX_STORE_DIR/x" 2>/dev/null
'

test_expect_success LOOPFS 'read-only: add and import fail with one line' '
	test_expect_code 1 cix store --add more >out 2>err &&
	one_line_error err "Read-only file system" &&
	test_line_count = 0 out &&
	test_expect_code 1 cix store --import <paths.export >out 2>err &&
	one_line_error err "Read-only file system"
'

test_expect_success LOOPFS,NIX 'read-only: a build fails with one line' '
	test_expect_code 1 cix store -r $(cat a.drv) >out 2>err &&
	one_line_error err "Read-only file system"
'

test_expect_success LOOPFS 'read-only: gc and delete fail with one line' '
	test_expect_code 1 cix store --delete $(cat hello.path) >out 2>err &&
	one_line_error err "Read-only file system" &&
	cix store --check-validity $(cat hello.path) &&
	test_expect_code 1 cix gc >out 2>err &&
	grep -v "^finding garbage collector roots\|^deleting garbage" err >err.1 &&
	one_line_error err.1 "Read-only file system" &&
	cix store --check-validity $(cat hello.path) &&
	test_path_is_file "$(cat hello.path)"
'

test_expect_success LOOPFS 'read-only: queries work, verify finds everything' '
	cix store -q --hash $(cat hello.path) &&
	cix store -q -R $(cat hello.path) &&
	cix store --dump $(cat hello.path) >hello.nar &&
	cix store --verify --check-contents
'

test_expect_success LOOPFS 'writable again: the same operations succeed' '
	loopfs_umount "$CIX_STORE_DIR" &&
	touch "$CIX_STORE_DIR/.probe" && rm "$CIX_STORE_DIR/.probe" &&
	cix store --add more >/dev/null &&
	if test_have_prereq NIX; then
		cix store -r $(cat a.drv) >/dev/null 2>&1 || return 1
	fi &&
	cix store --delete $(cat hello.path) &&
	cix store --verify --check-contents
'

loopfs_cleanup
test_done
