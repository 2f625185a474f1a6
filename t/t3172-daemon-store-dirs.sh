#!/bin/sh
# t3172-daemon-store-dirs.sh - what the daemon makes when needed, and what the store keeps
# SPDX-License-Identifier: GPL-3.0-or-later
test_description='profiles/per-user removed while cix-daemon runs is made again at the next connection, with the user'"'"'s directory, as Nix'"'"'s daemon does; the store keeps no .cix-tmp once nobody uses it (after cix gc, and after Nix'"'"'s nix-store --gc through the daemon)'
. "$(dirname "$0")/test-lib.sh"

T=$TRASH_DIRECTORY
test_private_store
test_private_conf 'allowed-users = *' 'trusted-users = root'
SOCK=$T/sock
PU=$CIX_STATE_DIR/profiles/per-user
[ "$(id -u)" = 0 ] && command -v runuser >/dev/null && id nobody >/dev/null 2>&1 &&
	test_set_prereq NOBODY
# nb CMD...: CMD as nobody, a client of the test's daemon.
nb () { runuser -u nobody -- env PATH="$PATH" HOME="$T/nb" CIX_DAEMON_SOCKET="$SOCK" "$@"; }
# no_tmp: the store has no .cix-tmp (once the daemon's worker ended: at most 10 s).
no_tmp () {
	i_=0
	while [ -e "$CIX_STORE_DIR/.cix-tmp" ] && [ $i_ -lt 100 ]; do
		sleep 0.1; i_=$((i_ + 1))
	done
	test_path_is_missing "$CIX_STORE_DIR/.cix-tmp"
}

test_expect_success NOBODY 'per-user, removed after start-up, is made again at the next connection' '
	chmod 755 "$T" && mkdir nb && chown nobody nb &&
	test_start_daemon "$SOCK" &&
	nb cix gc --list-roots >/dev/null &&
	test "$(stat -c %U "$PU/nobody")" = nobody &&
	rm -rf "$PU" &&
	nb cix gc --list-roots >/dev/null &&
	test "$(stat -c "%U %a" "$PU")" = "root 755" &&
	test "$(stat -c "%U %a" "$PU/nobody")" = "nobody 755" &&
	rm -rf "$CIX_STATE_DIR/profiles" &&
	nb cix gc --list-roots >/dev/null &&
	test "$(stat -c %U "$PU/nobody")" = nobody
'

test_expect_success 'no .cix-tmp in the store after adds and cix gc' '
	echo a >a && cix store --add a >a.path &&
	no_tmp &&
	cix gc 2>err && test_path_is_missing "$(cat a.path)" &&
	no_tmp && test "$(ls -A "$CIX_STORE_DIR" | grep -v "^\.links$")" = ""
'

test_expect_success NIX 'nor after nix-store --add and --gc through cix-daemon' '
	test_start_daemon "$SOCK" &&
	echo b >b &&
	NIX_REMOTE="unix://$SOCK?store=$CIX_STORE_DIR" NIX_STORE_DIR=$CIX_STORE_DIR \
	NIX_STATE_DIR=$T/nixstate NIX_CONF_DIR=$T nix-store --add b >b.path &&
	NIX_REMOTE="unix://$SOCK?store=$CIX_STORE_DIR" NIX_STORE_DIR=$CIX_STORE_DIR \
	NIX_STATE_DIR=$T/nixstate NIX_CONF_DIR=$T nix-store --gc >/dev/null 2>&1 &&
	test_path_is_missing "$(cat b.path)" &&
	no_tmp && test "$(ls -A "$CIX_STORE_DIR" | grep -v "^\.links$")" = ""
'

test_expect_success 'a store in use keeps it; a live temporary in it stays' '
	mkdir -p "$CIX_STORE_DIR/.cix-tmp/tmp-$$-1" &&
	cix gc 2>err &&
	test -d "$CIX_STORE_DIR/.cix-tmp/tmp-$$-1" &&
	rmdir "$CIX_STORE_DIR/.cix-tmp/tmp-$$-1" &&
	cix gc 2>err && no_tmp
'

test_done
