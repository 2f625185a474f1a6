# test-lib.sh - TAP test library for cix's functional tests, after git's
# SPDX-License-Identifier: GPL-3.0-or-later
#
# A test script sets test_description, sources this file, calls
# test_expect_success 'title' 'commands' as often as needed, then test_done.
# Each script runs in its own trash directory t/trash.<script>/, removed on
# success. Prerequisites: test_set_prereq NAME / test_have_prereq NAME, and
# test_expect_success NAME 'title' 'commands' to skip without it. NIX is
# set when Nix's tools (the oracle) are on PATH.

set -u
: "${CIX_SRC_DIR:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${CIX_BUILD_DIR:=$CIX_SRC_DIR/build}"
export CIX_SRC_DIR CIX_BUILD_DIR
# The package language: modules from the source tree, compiled in the build tree.
: "${CIX_SCHEME_PATH:=$CIX_SRC_DIR/scheme/modules:$CIX_SRC_DIR/distro}"
: "${CIX_SCHEME_COMPILED_PATH:=$CIX_BUILD_DIR/scheme/go}"
: "${CIX_DATA_DIR:=$CIX_SRC_DIR}"
export CIX_SCHEME_PATH CIX_SCHEME_COMPILED_PATH CIX_DATA_DIR
# The suite's packages are built with the bootstrap binaries, not the
# distribution's own tool chain (GCC and glibc take an hour to build): see
# implicit-tool-chain in (guix build-system). A test of the final chain
# says CIX_TOOL_CHAIN=final.
CIX_TOOL_CHAIN=bootstrap
export CIX_TOOL_CHAIN
# Builds in a user namespace, whatever build users the machine has (the
# default group, cixbld, once `make run` made it): t2030 sets its own group.
CIX_BUILD_USERS_GROUP=${CIX_TEST_BUILD_USERS_GROUP:-cix-test-no-such-group}
export CIX_BUILD_USERS_GROUP
# Under the sanitizers (make check SANITIZE=...): Guile's memory is its own.
LSAN_OPTIONS=suppressions=$CIX_SRC_DIR/t/lsan.supp:print_suppressions=0
export LSAN_OPTIONS
PATH=$CIX_BUILD_DIR:$PATH
export PATH
# The builder of the tests' small packages (t/data/mkpkg.c), made by make,
# static; not there without a static libc.
MKPKG=$CIX_BUILD_DIR/t/mkpkg
# No network here: keep Nix away from its default binary cache. Nix builds
# as the user running the tests: Debian's nix-bin without nix-setup-systemd
# has no nixbld group, which Nix would otherwise require.
NIX_CONFIG='substituters =
build-users-group =
experimental-features = nix-command'
export NIX_CONFIG
LC_ALL=C
export LC_ALL

test_name=$(basename "$0" .sh)${CIX_TEST_DAEMON:+-daemon}
TRASH_DIRECTORY=$CIX_SRC_DIR/t/trash.$test_name
rm -rf "$TRASH_DIRECTORY"
mkdir -p "$TRASH_DIRECTORY" || exit 1
cd "$TRASH_DIRECTORY" || exit 1
HOME=$TRASH_DIRECTORY
export HOME

test_count=0
test_failure=0
test_prereqs=" "

test_set_prereq () { test_prereqs="$test_prereqs$1 "; }
test_unset_prereq () { test_prereqs=$(printf "%s" "$test_prereqs" | sed "s/ $1 / /"); }
# test_have_prereq A[,B...]: all of the comma-separated prerequisites are set.
test_have_prereq () {
	for p_ in $(printf '%s' "$1" | tr ',' ' '); do
		case "$test_prereqs" in *" $p_ "*) ;; *) return 1;; esac
	done
	return 0
}

if command -v nix-store >/dev/null 2>&1 && command -v nix-hash >/dev/null 2>&1; then
	test_set_prereq NIX
fi

say () { printf '# %s\n' "$*"; }

# With CIX_TEST_DAEMON set, every `cix store` of a test goes through a
# cix-daemon serving that test's store (one per state directory, started
# on first use, stopped by test_done), as a client of the daemon would:
# the suites that apply run both ways (make check-daemon).
# test_outside_tmp_dir NAME: a fresh directory that builds may see as an
# extra sandbox path: $TRASH_DIRECTORY/NAME, unless the trash directory is
# below /tmp, which the sandbox keeps for itself; then a directory below
# /var/tmp, removed by test_done.
test_outside_tmp_dir () {
	case "$TRASH_DIRECTORY/" in
	/tmp/*)
		d_=$(mktemp -d /var/tmp/cix-test.XXXXXX) && chmod 755 "$d_" || return 1
		echo "$d_" >>"$TRASH_DIRECTORY/.outside" ;;
	*)
		d_=$TRASH_DIRECTORY/$1
		mkdir -p "$d_" || return 1 ;;
	esac
	printf '%s\n' "$d_"
}

# test_sandbox_host_paths [PATH...]: builds see the PATHs and the host's
# /bin, /lib, /lib32, /lib64 and /usr (what the tests' /bin/sh builders need).
test_sandbox_host_paths () {
	CIX_EXTRA_SANDBOX_PATHS="$*"
	for d_ in /bin /lib /lib32 /lib64 /usr; do
		[ -e $d_ ] && CIX_EXTRA_SANDBOX_PATHS="$CIX_EXTRA_SANDBOX_PATHS $d_"
	done
	export CIX_EXTRA_SANDBOX_PATHS
}

# test_private_store [DIR]: the store, state and logs of cix in DIR/store,
# DIR/state and DIR/log (DIR: the trash directory by default), with no
# cix.conf and no extra sandbox paths. A test that needs another layout
# sets the variable it changes after.
test_private_store () {
	d_=${1:-$TRASH_DIRECTORY}
	CIX_STORE_DIR=$d_/store
	CIX_STATE_DIR=$d_/state
	CIX_LOG_DIR=$d_/log
	CIX_CONF_FILE=/dev/null
	export CIX_STORE_DIR CIX_STATE_DIR CIX_LOG_DIR CIX_CONF_FILE
	unset CIX_EXTRA_SANDBOX_PATHS
}

# test_private_conf [LINE...]: cix.conf is $TRASH_DIRECTORY/cix.conf,
# holding the LINEs (empty without), for cix and the daemons the test starts.
test_private_conf () {
	CIX_CONF_FILE=$TRASH_DIRECTORY/cix.conf
	export CIX_CONF_FILE
	: >"$CIX_CONF_FILE"
	[ $# -eq 0 ] || printf '%s\n' "$@" >"$CIX_CONF_FILE"
}

# test_private_conf_dir: cix's keys, ACL and cix.conf in
# $TRASH_DIRECTORY/conf (CIX_CONF_DIR; CIX_CONF_FILE unset, so that a
# command given another CIX_CONF_DIR reads that one's cix.conf).
test_private_conf_dir () {
	CIX_CONF_DIR=$TRASH_DIRECTORY/conf
	export CIX_CONF_DIR
	unset CIX_CONF_FILE
}

# test_nix_oracle: N names a private Nix store on cix's logical store
# directory ($CIX_STORE_DIR), nixs runs nix-store on it; Nix builds
# without its own sandbox.
test_nix_oracle () {
	N="local?store=$CIX_STORE_DIR&real=$TRASH_DIRECTORY/nixreal&state=$TRASH_DIRECTORY/nixstate&log=$TRASH_DIRECTORY/nixlog"
	NIX_CONFIG="$NIX_CONFIG
sandbox = false"
}
nixs () { nix-store --store "$N" "$@"; }

# test_wait_for FILE: until FILE exists (a socket, say), at most 10 s.
test_wait_for () {
	i_=0
	while [ $i_ -lt 100 ]; do
		[ -e "$1" ] && return 0
		sleep 0.1
		i_=$((i_ + 1))
	done
	echo "no $1"; return 1
}

# test_start_daemon SOCKET [ENV=VALUE...] [-- OPTION...]: a cix-daemon
# listening on SOCKET, with the ENVs and OPTIONs (its messages in
# $TRASH_DIRECTORY/daemon.log), stopped by test_done; $! is its pid.
test_start_daemon () {
	s_=$1; shift
	rm -f "$s_"
	(
		while [ $# -gt 0 ] && [ "$1" != -- ]; do export "$1"; shift; done
		[ $# -eq 0 ] || shift
		exec cix-daemon --listen "$s_" --debug "$@"
	) 2>>"$TRASH_DIRECTORY/daemon.log" &
	echo $! >>"$TRASH_DIRECTORY/.daemons"
	test_wait_for "$s_"
}

test_any_alive_ () {
	for p_ in "$@"; do kill -0 "$p_" 2>/dev/null && return 0; done
	return 1
}

# Stop the test's daemons and wait, at most 10 s, until they and their
# workers (forks of theirs, still serving a client) are gone: a test that
# wipes the store next must not race a worker's clean-up.
test_stop_daemons_ () {
	if [ -f "$TRASH_DIRECTORY/.daemons" ]; then
		pids_=$(cat "$TRASH_DIRECTORY/.daemons")
		kids_=$(for p_ in $pids_; do pgrep -P "$p_"; done 2>/dev/null)
		kill $pids_ $kids_ 2>/dev/null
		rm -f "$TRASH_DIRECTORY/.daemons"
		i_=0
		while [ $i_ -lt 100 ] && test_any_alive_ $pids_ $kids_; do
			sleep 0.1
			i_=$((i_ + 1))
		done
	fi
}
if [ -n "${CIX_TEST_DAEMON:-}" ]; then
	test_set_prereq DAEMON
	cix () {
		if [ "${1:-}" != store ] && [ "${1:-}" != build ] && [ "${1:-}" != gc ]; then
			command cix "$@"
			return
		fi
		sock_=${CIX_STATE_DIR:-/var/cix}/test-daemon.sock
		mkdir -p "${CIX_STATE_DIR:-/var/cix}"
		# One daemon per store, even when two commands start at once.
		(
			flock 9
			if [ ! -S "$sock_" ]; then
				test_start_daemon "$sock_" CIX_CONF_FILE=/dev/null 9>&- >/dev/null
			fi
		) 9>"$TRASH_DIRECTORY/.daemon.lock"
		CIX_DAEMON_SOCKET=$sock_ command cix "$@"
	}
else
	test_set_prereq LOCAL
fi

test_ok_ () { test_count=$((test_count + 1)); printf 'ok %d - %s\n' "$test_count" "$1"; }
test_failure_ () {
	test_count=$((test_count + 1))
	test_failure=$((test_failure + 1))
	printf 'not ok %d - %s\n' "$test_count" "$1"
	printf '%s\n' "$2" | sed 's/^/#	/'
}

test_run_ () {
	( eval "set -e; $1" ) >"$TRASH_DIRECTORY/.test-out" 2>&1
	ret=$?
	if [ $ret -ne 0 ]; then
		sed 's/^/# > /' "$TRASH_DIRECTORY/.test-out"
	fi
	return $ret
}

test_expect_success () {
	if [ $# -eq 3 ]; then
		if ! test_have_prereq "$1"; then
			test_count=$((test_count + 1))
			printf 'ok %d # skip %s (missing %s)\n' "$test_count" "$2" "$1"
			return 0
		fi
		shift
	fi
	if test_run_ "$2"; then test_ok_ "$1"; else test_failure_ "$1" "$2"; fi
}

test_done () {
	test_stop_daemons_
	if [ -f "$TRASH_DIRECTORY/.outside" ]; then
		while read -r d_; do chmod -R u+w "$d_" 2>/dev/null; rm -rf "$d_"; done \
			<"$TRASH_DIRECTORY/.outside"
	fi
	printf '1..%d\n' "$test_count"
	if [ "$test_failure" -eq 0 ]; then
		cd "$CIX_SRC_DIR" && rm -rf "$TRASH_DIRECTORY"
		exit 0
	fi
	exit 1
}

# Helpers for use inside tests.

# test_must_fail CMD...: CMD exits non-zero but not by a signal (a crash).
test_must_fail () {
	if "$@"; then ret=0; else ret=$?; fi
	if [ $ret -eq 0 ]; then
		echo "test_must_fail: command succeeded: $*"; return 1
	elif [ $ret -gt 128 ] && [ $ret -le 192 ]; then
		echo "test_must_fail: died by signal $((ret - 128)): $*"; return 1
	fi
	return 0
}

# test_expect_code WANT CMD...: CMD exits with status WANT exactly.
test_expect_code () {
	want_=$1
	shift
	if "$@"; then got_=0; else got_=$?; fi
	[ "$got_" = "$want_" ] || { echo "exit status $got_, want $want_: $*"; return 1; }
}

test_cmp () { cmp "$1" "$2" || { diff -u "$1" "$2" | head -50; return 1; }; }
test_path_is_file () { [ -f "$1" ] || { echo "not a file: $1"; return 1; }; }
test_path_is_missing () { [ ! -e "$1" ] && [ ! -L "$1" ] || { echo "exists: $1"; return 1; }; }
test_line_count () { n=$(wc -l <"$3"); [ "$n" "$1" "$2" ] || { echo "line count $n not $1 $2"; return 1; }; }
