#!/bin/sh
# t3030-daemon-disconnect.sh - a client that goes away in the middle of its build
# SPDX-License-Identifier: GPL-3.0-or-later
test_description='a client killed mid-build: its build ends, locks are released (doc/security.md item 38)'
. "$(dirname "$0")/test-lib.sh"

test_private_store
test_sandbox_host_paths
SOCK=$TRASH_DIRECTORY/sock
S="unix://$SOCK?store=$CIX_STORE_DIR"

test_start_daemon "$SOCK" || exit 1
DAEMON=$(tail -n 1 .daemons)

# Processes whose command line holds the marker (the pattern does not match itself).
marker_alive () {
	grep -qs "4441971[0]$1" /proc/[0-9]*/cmdline
}

test_expect_success NIX 'a client killed while its derivation builds: the build ends' '
	cat >d.nix <<-\EOF &&
	derivation { name = "slow"; system = "x86_64-linux"; builder = "/bin/sh";
	  args = [ "-c" "echo started; /bin/sleep 30.444197101; echo > $out" ]; }
	EOF
	drv=$(nix-instantiate --store "$S" d.nix 2>/dev/null) &&
	{ CIX_DAEMON_SOCKET=$SOCK cix store -r "$drv" >out 2>client.err & } &&
	client=$! &&
	for i in $(seq 100); do marker_alive 1 && break; sleep 0.1; done &&
	marker_alive 1 &&
	kill -9 $client &&
	for i in $(seq 100); do marker_alive 1 || break; sleep 0.1; done &&
	! marker_alive 1 &&
	o=$(nix-store --store "$S" -q --outputs "$drv") &&
	test_path_is_missing "$o" &&
	test_expect_code 1 cix store --check-validity "$o" 2>/dev/null &&
	kill -0 $DAEMON
'

test_expect_success NIX 'its locks are free: the next client builds it' '
	cat >d2.nix <<-\EOF &&
	derivation { name = "slow"; system = "x86_64-linux"; builder = "/bin/sh";
	  args = [ "-c" "echo started; /bin/sleep 0.444197102; echo done > $out" ]; }
	EOF
	drv=$(nix-instantiate --store "$S" d2.nix 2>/dev/null) &&
	o=$(CIX_DAEMON_SOCKET=$SOCK cix store -r "$drv") &&
	test "$(cat "$o")" = done &&
	CIX_DAEMON_SOCKET=$SOCK cix store --verify --check-contents
'

test_done
