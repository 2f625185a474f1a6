#!/bin/sh
# t6040-archive-export.sh - cix archive --export/--import: signed export streams
# SPDX-License-Identifier: GPL-3.0-or-later
test_description='cix archive --export signs each entry of an export stream with the signing key; --import into an empty store takes a closure signed by a trusted key and refuses, registering nothing, unsigned streams, unknown keys, tampered NARs, swapped signatures and truncated streams; Nix 2.8 imports the stream and signs alike'
. "$(dirname "$0")/test-lib.sh"

PATH=$CIX_BUILD_DIR/bench:$PATH
test_private_store
test_private_conf_dir
SD=$CIX_STORE_DIR
N="local?store=$SD&real=$TRASH_DIRECTORY/nixreal&state=$TRASH_DIRECTORY/nixstate&log=$TRASH_DIRECTORY/nixlog"
NIX_CONFIG="$NIX_CONFIG
sandbox = false
build-users-group ="
export NIX_CONFIG
nixs () { nix-store --store "$N" "$@"; }

# The second machine: an empty store at the same path, its own state.
empty_store () {
	chmod -R u+w store state 2>/dev/null
	rm -rf store state
}

# Nothing of the closure is valid, nothing is left in the store.
nothing_imported () {
	cix store --check-validity --print-invalid $(cat closure) >invalid &&
	test_cmp closure invalid &&
	test "$(ls -A store | grep -v '^\.cix-tmp$' | grep -v '^\.links$' | wc -l)" = 0 &&
	test "$(ls -A store/.cix-tmp 2>/dev/null | wc -l)" = 0
}

# refused ARCHIVE PATTERN: --import exits 1 with one line matching PATTERN.
refused () {
	empty_store &&
	test_expect_code 1 cix archive --import <"$1" >out 2>err &&
	test_line_count = 1 err && grep -q "$2" err || { cat err; return 1; }
	test ! -s out && nothing_imported
}

# The signatures of a stream, in its order (base64 has no colon: one a line).
sigs () { grep -ao 'machine1-1:[A-Za-z0-9+/]*=*' "$1"; }

test_expect_success 'setup: a closure of six paths, a key pair, the key trusted' '
	gen-closure -p ends "$SD" 6 >closure.exp 2>/dev/null &&
	cix store --import <closure.exp >closure &&
	test_line_count = 6 closure &&
	top=$(sed -n 1p ends) &&
	cix store -qR "$top" >req && test_cmp closure req &&
	for p in $(cat closure); do
		{ cix store -q --hash "$p" && cix store -q --size "$p"; } || return 1
	done >hashes &&
	cix archive --generate-key=machine1-1 &&
	cix archive --public-key | cix archive --authorize &&
	cix archive --generate-key=intruder-1 --key-dir other
'

test_expect_success 'usage errors' '
	test_expect_code 2 cix archive --export 2>err && test_line_count = 2 err &&
	test_expect_code 2 cix archive --import extra 2>err &&
	test_expect_code 2 cix archive --import --export "$(sed -n 1p ends)" 2>err &&
	test_expect_code 2 cix archive -r --import 2>err &&
	cix archive --help >out && grep -q -- "--export" out && grep -q -- "--recursive" out
'

test_expect_success '--export -r: the closure, references first, each entry signed' '
	cix archive --export -r "$(sed -n 1p ends)" >signed.exp &&
	cix archive --export --recursive "$(sed -n 1p ends)" >again.exp &&
	cmp signed.exp again.exp &&
	sigs signed.exp >sigs && test_line_count = 6 sigs &&
	test "$(sort -u sigs | wc -l)" = 6 &&
	cix archive --export "$(sed -n 1p ends)" >one.exp &&
	sigs one.exp >one.sigs && test_line_count = 1 one.sigs &&
	cix archive --export $(cat closure) >listed.exp && cmp signed.exp listed.exp
'

test_expect_success '--export without a readable key or of an invalid path writes nothing' '
	test_expect_code 1 cix archive --export --key-dir nokeys "$(sed -n 1p ends)" >out 2>err &&
	test_line_count = 1 err && grep -q "signing key" err && test ! -s out &&
	test_expect_code 1 cix archive --export "$SD/00000000000000000000000000000000-none" >out 2>err &&
	test_line_count = 1 err && grep -q "not valid" err && test ! -s out &&
	test_expect_code 1 env CIX_CONF_DIR=$TRASH_DIRECTORY/nothing \
		cix archive --export "$(sed -n 1p ends)" >out 2>err &&
	test_line_count = 1 err && test ! -s out
'

test_expect_success 'the refused archives: unsigned, unknown key, tampered NAR, swapped signature' '
	cix store --export $(cat closure) >unsigned.exp &&
	cix archive --export -r --key-dir other "$(sed -n 1p ends)" >intruder.exp &&
	# The last entry (the top of the closure) says "node 5": now "node 6".
	at=$(grep -abo "node 5" signed.exp | cut -d: -f1) &&
	test -n "$at" && cp signed.exp flipped.exp &&
	printf 6 | dd of=flipped.exp bs=1 seek=$((at + 5)) conv=notrunc 2>/dev/null &&
	test "$(cmp -l signed.exp flipped.exp | wc -l)" = 1 &&
	# The signature of entry 4 on entry 5.
	a4=$(grep -abo "machine1-1:[A-Za-z0-9+/]*=*" signed.exp | sed -n 5p | cut -d: -f1) &&
	a5=$(grep -abo "machine1-1:[A-Za-z0-9+/]*=*" signed.exp | sed -n 6p | cut -d: -f1) &&
	cp signed.exp swapped.exp &&
	sed -n 5p sigs | tr -d "\n" | dd of=swapped.exp bs=1 seek=$a5 conv=notrunc 2>/dev/null &&
	sed -n 6p sigs | tr -d "\n" | dd of=swapped.exp bs=1 seek=$a4 conv=notrunc 2>/dev/null &&
	sigs swapped.exp >swapped.sigs && ! cmp -s sigs swapped.sigs &&
	test "$(wc -c <swapped.exp)" = "$(wc -c <signed.exp)" &&
	# The first machine is kept aside; from here on the store is the second.
	mv store store1 && mv state state1
'

test_expect_success '--import into an empty store: the closure, valid and verified' '
	empty_store &&
	cix archive --import <signed.exp >imported &&
	test_cmp closure imported &&
	cix store --check-validity $(cat closure) &&
	cix store --verify --check-contents >out 2>&1 && test ! -s out &&
	cix store -qR "$(sed -n 1p ends)" >req && test_cmp closure req &&
	for p in $(cat closure); do
		{ cix store -q --hash "$p" && cix store -q --size "$p"; } || return 1
	done >hashes2 && test_cmp hashes hashes2 &&
	cix archive --import <signed.exp >again && test_cmp closure again
'

test_expect_success 'an unsigned stream (cix store --export) is refused' '
	refused unsigned.exp "is not signed"
'

test_expect_success 'a key this machine does not trust is refused' '
	refused intruder.exp "intruder-1.*does not trust"
'

test_expect_success 'one flipped byte in the last NAR: nothing registered, not even the first five' '
	refused flipped.exp "does not match"
'

test_expect_success 'a signature taken from another path is refused' '
	refused swapped.exp "machine1-1.*does not match"
'

test_expect_success 'truncated streams are refused, nothing registered' '
	size=$(wc -c <signed.exp) &&
	a5=$(grep -abo "machine1-1:[A-Za-z0-9+/]*=*" signed.exp | sed -n 6p | cut -d: -f1) &&
	for cut in 0 8 100 $((size / 2)) $((a5 - 8)) $((a5 + 10)) $((size - 8)) $((size - 1)); do
		head -c $cut signed.exp >cut.exp &&
		refused cut.exp "truncated" || { echo "cut at $cut"; return 1; }
	done
'

test_expect_success 'an empty or missing ACL trusts nothing' '
	empty_store &&
	mv conf/acl acl.saved &&
	test_expect_code 1 cix archive --import <signed.exp 2>err &&
	test_line_count = 1 err && grep -q "no trusted keys" err &&
	echo "# nothing" >conf/acl &&
	test_expect_code 1 cix archive --import <signed.exp 2>err &&
	test_line_count = 1 err && grep -q "no trusted keys" err &&
	mv acl.saved conf/acl && nothing_imported
'

test_expect_success 'a path without its references is refused' '
	refused one.exp "neither valid nor earlier"
'

test_expect_success 'through the daemon: refusals register nothing, the closure imports' '
	empty_store && mkdir -p state &&
	echo "trusted-users = $(id -un)" >cix.conf &&
	sock=$TRASH_DIRECTORY/state/archive.sock &&
	test_start_daemon "$sock" CIX_CONF_FILE=$TRASH_DIRECTORY/cix.conf &&
	for a in unsigned intruder flipped swapped; do
		test_expect_code 1 env CIX_DAEMON_SOCKET="$sock" cix archive --import \
			<$a.exp >out 2>err &&
		test_line_count = 1 err && test ! -s out &&
		nothing_imported || { echo "$a"; return 1; }
	done &&
	CIX_DAEMON_SOCKET="$sock" cix archive --import <signed.exp >imported &&
	test_cmp closure imported &&
	CIX_DAEMON_SOCKET="$sock" cix store --verify --check-contents &&
	CIX_DAEMON_SOCKET="$sock" cix archive --export -r "$(sed -n 1p ends)" >daemon.exp &&
	cmp signed.exp daemon.exp
'

if [ "$(id -u)" = 0 ] && command -v runuser >/dev/null && runuser -u nobody -- true 2>/dev/null; then
	test_set_prereq NOBODY
fi

test_expect_success NOBODY 'an unprivileged user imports a signed archive through the daemon, not an unsigned one' '
	empty_store && mkdir -p state &&
	echo "trusted-users = root" >cix.conf &&
	sock=$TRASH_DIRECTORY/state/archive2.sock &&
	test_start_daemon "$sock" CIX_CONF_FILE=$TRASH_DIRECTORY/cix.conf &&
	chmod 755 "$TRASH_DIRECTORY" && chmod a+r conf/acl *.exp &&
	test_must_fail runuser -u nobody -- env CIX_DAEMON_SOCKET="$sock" \
		CIX_CONF_DIR="$CIX_CONF_DIR" "$CIX_BUILD_DIR/cix" store --import \
		<unsigned.exp >out 2>err &&
	grep -q "no trusted signature" err && nothing_imported &&
	runuser -u nobody -- env CIX_DAEMON_SOCKET="$sock" CIX_CONF_DIR="$CIX_CONF_DIR" \
		"$CIX_BUILD_DIR/cix" archive --import <signed.exp >imported &&
	test_cmp closure imported &&
	cix store --verify --check-contents
'

test_expect_success NIX 'Nix 2.8 imports the signed stream; its signatures are ours' '
	nixs --import <signed.exp >nix.imported &&
	test_cmp closure nix.imported &&
	for p in $(cat closure); do
		test "$(nixs -q --hash "$p")" = "$(cix store -q --hash "$p")" &&
		test "$(nixs -q --references "$p")" = "$(cix store -q --references "$p")" || return 1
	done &&
	nix store sign --store "$N" --key-file conf/signing-key.sec $(cat closure) &&
	for p in $(cat closure); do
		nix path-info --store "$N" --sigs "$p" | cut -f2 || return 1
	done >nix.sigs &&
	test_cmp nix.sigs sigs
'

test_done
