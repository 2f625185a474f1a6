#!/bin/sh
# t5104-gc-runtime-roots.sh - the store paths that running processes use are roots
# SPDX-License-Identifier: GPL-3.0-or-later
test_description='a program run from the store, a working directory, an open file, a mapped library and a variable of the environment keep their store paths alive while their processes run (cix gc, and Nix 2.8 nix-store --gc through cix-daemon); FindRoots names them, censored for untrusted users; once the processes end, the paths are collected'
. "$(dirname "$0")/test-lib.sh"

T=$TRASH_DIRECTORY
test_private_store
test_private_conf 'allowed-users = *' 'trusted-users = root'
SOCK=$T/sock

# The test's processes end with it, by their ids.
stop_procs () {
	[ -f "$T/pids" ] && kill $(cat "$T/pids") 2>/dev/null
	# (each is gone once /proc no longer shows it: at most 10 s)
	for p_ in $(cat "$T/pids" 2>/dev/null); do
		i_=0
		while [ -d /proc/$p_ ] && [ "$(cut -d" " -f3 /proc/$p_/stat 2>/dev/null)" != Z ] &&
		      [ $i_ -lt 100 ]; do
			sleep 0.1; i_=$((i_ + 1))
		done
	done
	rm -f "$T/pids"
}
trap 'stop_procs; test_stop_daemons_' EXIT
# bg CMD...: CMD in the background, no terminal, its pid kept.
bg () { "$@" </dev/null >/dev/null 2>&1 & echo $! >>"$T/pids"; echo $!; }

LDSO=$(ldd /bin/sleep 2>/dev/null | awk '/ld-linux/ { print $1 }')
LIBC=$(ldd /bin/sleep 2>/dev/null | awk '/libc\.so/ { print $3 }')
[ -x "$LDSO" ] && [ -f "$LIBC" ] && test_set_prereq MAPS
[ "$(id -u)" = 0 ] && command -v runuser >/dev/null && id nobody >/dev/null 2>&1 &&
	test_set_prereq NOBODY

# add NAME: a store path holding a copy of sleep, a file and libc.
add () {
	mkdir -p "src/$1/bin" "src/$1/lib" && cp /bin/sleep "src/$1/bin/" &&
	echo "$1" >"src/$1/file" && { [ -z "$LIBC" ] || cp "$LIBC" "src/$1/lib/"; } &&
	cix store --add "src/$1" >"$1.path"
}
# start: one process per way of using a path; their pids in NAME.pid.
start () {
	bg "$(cat exe.path)/bin/sleep" 1000 >exe.pid &&
	bg sh -c "cd '$(cat cwd.path)' && exec sleep 1000" >cwd.pid &&
	bg sh -c "exec sleep 1000 <'$(cat fd.path)/file'" >fd.pid &&
	bg env CIX_TEST_VAR="x:$(cat env.path)/bin:y" sleep 1000 >env.pid &&
	if test_have_prereq MAPS; then
		bg "$LDSO" --library-path "$(cat maps.path)/lib" /bin/sleep 1000 >maps.pid
	fi &&
	# A variable across the 64 KiB chunks that /proc/PID/environ is read in.
	pad=$(head -c 65521 /dev/zero | tr "\\0" a) &&
	bg env -i A="$pad" B="$(cat split.path)" sleep 1000 >split.pid &&
	# (until each has its file, directory or library: at most 10 s)
	i=0 && while [ $i -lt 100 ] &&
		! { [ "$(readlink /proc/$(cat cwd.pid)/cwd)" = "$(cat cwd.path)" ] &&
		    [ "$(readlink /proc/$(cat fd.pid)/fd/0)" = "$(cat fd.path)/file" ] &&
		    { ! test_have_prereq MAPS ||
		      grep -q "$(cat maps.path)" /proc/$(cat maps.pid)/maps; }; }; do
		sleep 0.1; i=$((i + 1))
	done
}
WAYS="exe cwd fd env split"
test_have_prereq MAPS && WAYS="$WAYS maps"

test_expect_success 'setup: a path for each way, one for nothing; the processes' '
	for w in $WAYS dead; do add $w || return 1; done &&
	start
'

test_expect_success 'cix gc --list-roots names each process'"'"'s file' '
	cix gc --list-roots >roots &&
	grep -qx "/proc/$(cat exe.pid)/exe" roots &&
	grep -qx "/proc/$(cat cwd.pid)/cwd" roots &&
	grep -qx "/proc/$(cat fd.pid)/fd/0" roots &&
	grep -qx "/proc/$(cat env.pid)/environ" roots &&
	grep -qx "/proc/$(cat split.pid)/environ" roots &&
	{ ! test_have_prereq MAPS || grep -qx "/proc/$(cat maps.pid)/maps" roots; }
'

test_expect_success 'cix gc keeps the paths in use, deletes the other' '
	cix gc --list-live >live &&
	for w in $WAYS; do grep -qx "$(cat $w.path)" live || return 1; done &&
	cix gc 2>err &&
	for w in $WAYS; do cix store --check-validity "$(cat $w.path)" || return 1; done &&
	test_path_is_missing "$(cat dead.path)" &&
	test "$(cat /proc/$(cat exe.pid)/comm)" = sleep
'

test_expect_success NIX 'Nix 2.8 through cix-daemon: --print-roots, censored for nobody; --gc keeps them' '
	test_start_daemon "$SOCK" &&
	cat >nixc <<-EOF &&
	NIX_REMOTE="unix://$SOCK?store=$CIX_STORE_DIR" NIX_STORE_DIR=$CIX_STORE_DIR \
	NIX_STATE_DIR=$T/nixstate NIX_CONF_DIR=$T HOME=$T/nb NIX_CONFIG= exec "\$@"
	EOF
	sh nixc nix-store --gc --print-roots >nroots &&
	grep -qx "/proc/$(cat exe.pid)/exe -> $(cat exe.path)" nroots &&
	grep -qx "/proc/$(cat fd.pid)/fd/0 -> $(cat fd.path)" nroots &&
	if test_have_prereq NOBODY; then
		chmod 755 "$T" && mkdir -p nb && chown nobody nb &&
		runuser -u nobody -- sh nixc nix-store --gc --print-roots >nbroots &&
		grep -qx "{censored} -> $(cat exe.path)" nbroots &&
		test "$(grep -c "$(cat exe.path)" nbroots)" = 1 &&
		! grep -q "^/proc/" nbroots
	fi &&
	add dead2 &&
	sh nixc nix-store --gc 2>err &&
	test_path_is_missing "$(cat dead2.path)" &&
	for w in $WAYS; do cix store --check-validity "$(cat $w.path)" || return 1; done
'

test_expect_success 'once the processes end, the paths are collected' '
	stop_procs &&
	cix gc --list-roots >roots && ! grep "^/proc/" roots &&
	cix gc 2>err &&
	for w in $WAYS; do test_path_is_missing "$(cat $w.path)" || return 1; done
'

test_done
