#!/bin/sh
# t9010-power-loss.sh - a power cut never leaves a valid path with wrong content
# SPDX-License-Identifier: GPL-3.0-or-later
test_description='power loss (doc/security.md item 31): after the file system is
repaired and mounted again, every valid path verifies and the database is
intact. What the store promises: a path registered just before the cut may
be lost (SQLite WAL with synchronous=normal), but a path is never valid with
missing or partial content, and what was synced before the cut stays.'
. "$(dirname "$0")/test-lib.sh"
. "$CIX_SRC_DIR/t/lib-randtree.sh"
. "$CIX_SRC_DIR/t/lib-loopfs.sh"

T=$TRASH_DIRECTORY
M=$T/mnt
test_private_store "$M"
test_sandbox_host_paths
test_nix_oracle

# trees PREFIX FROM TO: small trees PREFIX<i> of a few files each, of
# sizes up to a few hundred KiB.
trees () {
	for i_ in $(seq "$2" "$3"); do
		mkdir -p "$1$i_/sub" &&
		head -c $((i_ * 7919)) /dev/urandom >"$1$i_/data" &&
		head -c $((i_ * 13)) /dev/urandom >"$1$i_/sub/small" &&
		echo "$1$i_" >"$1$i_/name" || return 1
	done
}

# cut: a power cut now, then the repair and the mount of the next boot.
# The test's daemons die with the machine.
cut () {
	loopfs_powercut "$M" &&
	stop_daemons &&
	loopfs_umount "$M" &&
	loopfs_mount "$M"
}

# stop_daemons: kill the test's daemons and wait (at most 10 s) until they are gone.
stop_daemons () {
	pids_=$(cat "$T/.daemons" 2>/dev/null)
	test_stop_daemons_
	for p_ in $pids_; do
		n_=0
		while kill -0 "$p_" 2>/dev/null; do
			n_=$((n_ + 1))
			[ $n_ -lt 100 ] || return 1
			sleep 0.1
		done
	done
}

# store_is_sound: the database is intact, and every valid path exists
# and verifies: verify has nothing to say (it would drop a path whose
# files disappeared, as a repair of what should never happen).
store_is_sound () {
	if command -v sqlite3 >/dev/null; then
		test "$(sqlite3 "$CIX_STATE_DIR/db/db.sqlite" "pragma integrity_check")" = ok ||
			return 1
	fi
	timeout 300 cix store --verify --check-contents >verify.out 2>&1 ||
		{ cat verify.out; return 1; }
	test_line_count = 0 verify.out || { cat verify.out; return 1; }
}

# gone_is_invalid FILE: every path listed in FILE that is not in the store
# is not valid either.
gone_is_invalid () {
	for p_ in $(cat "$1"); do
		[ -e "$p_" ] && continue
		test_must_fail cix store --check-validity "$p_" 2>/dev/null ||
			{ echo "valid, but gone: $p_"; return 1; }
	done
}

# all_valid FILE: every path listed in FILE is valid.
all_valid () {
	cix store --check-validity $(cat "$1")
}

test_expect_success LOOPFS 'a store on an ext4 file system of its own' '
	loopfs_make "$M" 256M -b 4096 &&
	echo hello >hello &&
	cix store --add hello >hello.path
'
# The shutdown ioctl is ext4's since Linux 4.10; without it, nothing to test.
if test_have_prereq LOOPFS && mountpoint -q "$M" && loopfs_powercut "$M" 2>powercut.err; then
	test_set_prereq POWERCUT
elif test_have_prereq LOOPFS; then
	say "cannot cut the power of an ext4 file system here: $(cat powercut.err)"
fi

test_expect_success POWERCUT 'the first cut: the file system comes back' '
	loopfs_umount "$M" && loopfs_mount "$M" &&
	store_is_sound
'

test_expect_success POWERCUT 'inputs: trees, an export stream, derivations' '
	trees "$T/in/a" 1 20 && trees "$T/in/b" 1 20 && trees "$T/in/x" 1 10 &&
	make_random_tree "$T/in/r1" 1 50 && make_random_tree "$T/in/r2" 2 50 &&
	cix store --add "$T"/in/x* >x.paths &&
	cix store --export $(cat x.paths) >x.export &&
	cix store --delete $(cat x.paths) &&
	test_must_fail cix store --check-validity $(cat x.paths) 2>/dev/null
'

test_expect_success POWERCUT,NIX 'derivations with big outputs, imported' '
	cat >d.nix <<-\EOF &&
	let sh = "/bin/sh"; sys = "x86_64-linux";
	    mk = n: derivation { name = "big-${toString n}"; system = sys; builder = sh;
	      args = [ "-c" "/bin/mkdir $out; /usr/bin/seq ${toString n} 200000 > $out/seq; echo ${toString n} > $out/n" ]; };
	in { d1 = mk 1; d2 = mk 2; d3 = mk 3; d4 = mk 4; d5 = mk 5; d6 = mk 6; }
	EOF
	for x in d1 d2 d3 d4 d5 d6; do
		nix-instantiate --store "$N" d.nix -A $x 2>/dev/null >$x.drv || return 1
	done &&
	nixs --export $(nixs -qR $(cat d*.drv)) >drvs.export &&
	cix store --import <drvs.export >/dev/null
'

test_expect_success POWERCUT 'a cut right after the commands return: synced paths stay, all verify' '
	cix store --add "$T"/in/a* >a.paths &&
	sync &&
	cix store --add "$T"/in/b* "$T/in/r1" >b.paths &&
	cix store --import <x.export >/dev/null &&
	if test_have_prereq NIX; then
		cix store -r $(cat d1.drv) $(cat d2.drv) >/dev/null 2>&1 || return 1
	fi &&
	cut &&
	store_is_sound &&
	all_valid a.paths
'

test_expect_success POWERCUT 'after the cut, the same adds and imports succeed and give the same paths' '
	cix store --add "$T"/in/b* "$T/in/r1" >b2.paths &&
	test_cmp b.paths b2.paths &&
	cix store --import <x.export >/dev/null &&
	all_valid x.paths &&
	if test_have_prereq NIX; then
		cix store -r $(cat d1.drv) $(cat d2.drv) >/dev/null 2>&1 || return 1
	fi &&
	store_is_sound
'

test_expect_success POWERCUT 'a cut in the middle of adds, imports and builds' '
	sync &&
	before=$(ls "$CIX_STORE_DIR" | wc -l) &&
	(
		# Until the cut makes everything fail (EIO).
		cix store --delete $(cat x.paths) &&
		timeout 120 cix store --add "$T/in/r2" &&
		timeout 120 cix store --import <x.export &&
		if test_have_prereq NIX; then
			timeout 120 cix store -r -j2 $(cat d3.drv d4.drv d5.drv d6.drv)
		fi &&
		for i in $(seq 1 20); do
			timeout 60 cix store --add "$T/in/a$i" "$T/in/b$i" || exit 1
		done
	) >busy.out 2>&1 &
	busy=$! &&
	# Cut once the work is under way: a few new paths in the store.
	i=0 &&
	while [ $i -lt 300 ] && [ "$(ls "$CIX_STORE_DIR" | wc -l)" -lt $((before + 3)) ]; do
		sleep 0.1
		i=$((i + 1))
	done &&
	cut &&
	{ wait $busy || :; } &&
	store_is_sound &&
	all_valid a.paths
'

test_expect_success POWERCUT 'a cut after a collection while a daemon keeps the database open' '
	SOCK=$T/daemon.sock &&
	test_start_daemon "$SOCK" &&
	cix store --add "$T"/in/a* "$T"/in/b* >ab.paths &&
	sync &&
	CIX_DAEMON_SOCKET=$SOCK timeout 120 cix gc >gc.out 2>&1 &&
	test_path_is_missing "$(head -n 1 ab.paths)" &&
	# Someone else forces a journal commit (as any fsync does).
	dd if=/dev/zero of="$M/other" bs=4k count=1 conv=fsync 2>/dev/null &&
	cut &&
	gone_is_invalid ab.paths &&
	store_is_sound
'

test_expect_success POWERCUT 'after the cuts, the store takes new work' '
	cix store --add "$T"/in/a* >a2.paths &&
	test_cmp a.paths a2.paths &&
	store_is_sound
'

loopfs_cleanup
test_done
