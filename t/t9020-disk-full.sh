#!/bin/sh
# t9020-disk-full.sh - a full disk gives a clean error and harms nothing
# SPDX-License-Identifier: GPL-3.0-or-later
test_description='disk full (doc/security.md item 32) during a restore, an import,
a build, a build log or an SQLite commit: a one-line "No space left on
device" error, no valid path with partial content, the database intact, the
daemon serving the store still answering; once space is freed, the same
operations succeed.'
. "$(dirname "$0")/test-lib.sh"
. "$CIX_SRC_DIR/t/lib-randtree.sh"
. "$CIX_SRC_DIR/t/lib-loopfs.sh"

T=$TRASH_DIRECTORY
M=$T/mnt
test_private_store "$M"
test_sandbox_host_paths
test_nix_oracle
SOCK=$T/daemon.sock
# dcix CMD...: cix through the daemon serving the store.
dcix () { CIX_DAEMON_SOCKET=$SOCK timeout 120 cix "$@"; }

# fill DIR: the file system of DIR has no free block left (DIR/filler).
fill () {
	dd if=/dev/zero of="$1/filler" bs=64k 2>/dev/null
	# The last blocks, a few bytes at a time.
	while printf '%4096s' x >>"$1/filler" 2>/dev/null; do :; done
	while printf x >>"$1/filler" 2>/dev/null; do :; done
	[ "$(df --output=avail "$1" | tail -n 1)" -le 4 ]
}

# one_line_enospc FILE: FILE is a single error line saying the disk is full.
one_line_enospc () {
	cat "$1" &&
	test_line_count = 1 "$1" &&
	grep "No space left on device" "$1"
}

# store_is_sound: the database is intact and every valid path verifies.
store_is_sound () {
	if command -v sqlite3 >/dev/null; then
		test "$(sqlite3 "$CIX_STATE_DIR/db/db.sqlite" "pragma integrity_check")" = ok ||
			return 1
	fi
	timeout 300 cix store --verify --check-contents >verify.out 2>&1 ||
		{ cat verify.out; return 1; }
	test_line_count = 0 verify.out || { cat verify.out; return 1; }
}

# daemon_answers: the daemon still serves queries.
daemon_answers () {
	dcix store --check-validity "$(cat hello.path)" &&
	dcix store -q --hash "$(cat hello.path)" >/dev/null
}

test_expect_success LOOPFS 'a store on a small file system, a daemon serving it' '
	loopfs_make "$M" 64M -b 4096 &&
	echo hello >hello &&
	cix store --add hello >hello.path &&
	test_start_daemon "$SOCK" &&
	dcix store --check-validity "$(cat hello.path)" &&
	make_random_tree big 7 50 &&
	mkdir bigflat && head -c 6000000 /dev/urandom >bigflat/data &&
	cix store --add big >big.path.ref && cix store --export $(cat big.path.ref) >big.export &&
	cix store --delete $(cat big.path.ref)
'

test_expect_success LOOPFS,NIX 'derivations writing a big output and a big log' '
	cat >d.nix <<-\EOF &&
	let sh = "/bin/sh"; sys = "x86_64-linux"; in {
	  out = derivation { name = "big-out"; system = sys; builder = sh;
	    args = [ "-c" "/usr/bin/head -c 8000000 /dev/urandom > $out" ]; };
	  log = derivation { name = "big-log"; system = sys; builder = sh;
	    args = [ "-c" "/usr/bin/head -c 12000000 /dev/urandom | /usr/bin/base64; echo done > $out" ]; };
	}
	EOF
	for x in out log; do
		nix-instantiate --store "$N" d.nix -A $x 2>/dev/null >$x.drv || return 1
	done &&
	nixs --export $(nixs -qR $(cat out.drv log.drv)) >drvs.export &&
	cix store --import <drvs.export >/dev/null
'

# avail: the free KiB of the store's file system.
avail () { df --output=avail "$M" | tail -n 1; }

# no_leftovers: a failed operation gave back the space it took (what
# it wrote before the disk was full), give or take 256 KiB.
no_leftovers () {
	test "$(avail)" -ge $(($(cat avail.before) - 256)) ||
		{ echo "free: $(cat avail.before) KiB before, $(avail) KiB after"; return 1; }
}

# The disk is full but for 2 MiB: every operation starts, and fails midway.
test_expect_success LOOPFS 'the disk is full but for 2 MiB' '
	fill "$M" &&
	truncate -s -2M "$M/filler" &&
	avail >avail.before
'

test_expect_success LOOPFS 'add of a big tree: one-line ENOSPC error, nothing valid' '
	test_expect_code 1 cix store --add big >out 2>err &&
	one_line_enospc err &&
	test_line_count = 0 out &&
	test_expect_code 1 dcix store --check-validity $(cat big.path.ref) 2>/dev/null &&
	test_expect_code 1 dcix store --add bigflat 2>err &&
	one_line_enospc err &&
	daemon_answers &&
	no_leftovers
'

test_expect_success LOOPFS 'import of a big export: one-line ENOSPC error, nothing valid' '
	test_expect_code 1 cix store --import <big.export >out 2>err &&
	one_line_enospc err &&
	test_expect_code 1 dcix store --check-validity $(cat big.path.ref) 2>/dev/null &&
	test_expect_code 1 dcix store --import <big.export >out 2>err &&
	one_line_enospc err &&
	daemon_answers &&
	no_leftovers
'

test_expect_success LOOPFS,NIX 'a build writing a big output: it fails, nothing valid' '
	test_expect_code 1 dcix store -r $(cat out.drv) >out 2>err &&
	grep "No space left on device" err &&
	test_expect_code 1 dcix store --check-validity $(nixs -q --outputs $(cat out.drv)) 2>/dev/null &&
	daemon_answers &&
	no_leftovers
'

test_expect_success LOOPFS,NIX 'a build writing a big log: an error or a success, never a partial output' '
	# (The log comes to the client too: only its last line, the error, is shown.)
	{ dcix store -r $(cat log.drv) >out 2>err || tail -n 1 err >err.last; } &&
	if [ -f err.last ]; then
		cat err.last && grep "full\|No space left on device" err.last
	fi &&
	if dcix store --check-validity $(nixs -q --outputs $(cat log.drv)) 2>/dev/null; then
		test "$(cat $(nixs -q --outputs $(cat log.drv)))" = done
	fi &&
	daemon_answers &&
	no_leftovers
'

test_expect_success LOOPFS 'the store and its database are intact' '
	store_is_sound &&
	test_path_is_missing "$(cat big.path.ref)" &&
	{ ls "$CIX_STORE_DIR/.cix-tmp" 2>/dev/null || :; } >tmp.left && test_line_count = 0 tmp.left
'

test_expect_success LOOPFS 'the database on a full file system of its own: the commit fails cleanly' '
	S=$T/state2 &&
	loopfs_tmpfs "$S" 4M &&
	rm -f "$M/filler" &&
	CIX_STATE_DIR=$S cix store --add hello >/dev/null &&
	fill "$S" &&
	for i in $(seq 1 40); do echo $i >x$i || return 1; done &&
	{ CIX_STATE_DIR=$S cix store --add x* >out 2>err || :; } &&
	cat err &&
	grep -i "full\|No space left on device" err &&
	test_line_count = 1 err &&
	for p in $(cat out); do CIX_STATE_DIR=$S cix store --verify-path "$p" || return 1; done &&
	# Without a daemon keeping the database open, SQLite cannot even map
	# its shared memory: a query may fail too, but cleanly.
	{ CIX_STATE_DIR=$S cix store --check-validity $(cat hello.path) 2>qerr ||
		{ cat qerr && test_line_count = 1 qerr; }; } &&
	rm -f "$S/filler" &&
	if command -v sqlite3 >/dev/null; then
		test "$(sqlite3 "$S/db/db.sqlite" "pragma integrity_check")" = ok
	fi &&
	CIX_STATE_DIR=$S cix store --add x* >out &&
	test_line_count = 40 out &&
	CIX_STATE_DIR=$S cix store --verify --check-contents
'

test_expect_success LOOPFS 'with space freed, the same operations succeed' '
	fill "$M" && rm -f "$M/filler" &&
	dcix store --add big >big.path &&
	test_cmp big.path.ref big.path &&
	dcix store --add bigflat >/dev/null &&
	cix store --delete $(cat big.path) &&
	dcix store --import <big.export >/dev/null &&
	if test_have_prereq NIX; then
		dcix store -r $(cat out.drv) $(cat log.drv) >/dev/null 2>&1 || return 1
	fi &&
	store_is_sound &&
	daemon_answers &&
	echo new >new && dcix store --add new >/dev/null
'

loopfs_cleanup
test_done
