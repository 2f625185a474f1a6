#!/bin/sh
# t3020-daemon-legacy.sh - cix-daemon and clients of older protocol versions
# SPDX-License-Identifier: GPL-3.0-or-later
test_description='older clients: the daemon negotiates down and takes their AddToStore'
. "$(dirname "$0")/test-lib.sh"

test_private_store
SOCK=$TRASH_DIRECTORY/sock
N="local?store=$CIX_STORE_DIR&real=$TRASH_DIRECTORY/nixreal&state=$TRASH_DIRECTORY/nixstate"
if command -v perl >/dev/null; then
	test_set_prereq PERL
fi
OLD="perl $CIX_SRC_DIR/t/lib-legacy-client.pl"

test_start_daemon "$SOCK" || exit 1
DAEMON=$(tail -n 1 .daemons)

test_expect_success NIX,PERL 'protocol 1.24 and 1.15: recursive and flat adds give the paths Nix gives' '
	echo hello >legacy &&
	rec=$(nix-store --store "$N" --add legacy) &&
	flat=$(nix-store --store "$N" --add-fixed sha256 legacy) &&
	for minor in 24 15; do
		test "$($OLD "$SOCK" $minor legacy 1)" = "$rec" &&
		test "$($OLD "$SOCK" $minor legacy 0)" = "$flat" || return 1
	done &&
	test "$(cix store -q --hash "$rec")" = "$(nix-store --store "$N" -q --hash "$rec")" &&
	test "$(cix store -q --hash "$flat")" = "$(nix-store --store "$N" -q --hash "$flat")"
'

test_expect_success PERL 'a client older than 1.10 is refused; the daemon goes on' '
	test_must_fail $OLD "$SOCK" 9 legacy 1 2>err &&
	test "$($OLD "$SOCK" 24 legacy 1)" = "$(CIX_DAEMON_SOCKET=$SOCK cix store --add legacy)"
'

test_done
