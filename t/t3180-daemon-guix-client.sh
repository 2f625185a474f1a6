#!/bin/sh
# t3180-daemon-guix-client.sh - clients speaking Guix's dialect of the worker protocol
# SPDX-License-Identifier: GPL-3.0-or-later
test_description='cix-daemon: a client of Guix'"'"'s (protocol 0x163) is served in its dialect'
. "$(dirname "$0")/test-lib.sh"

test_private_store
test_sandbox_host_paths
T=$TRASH_DIRECTORY
printf 'trusted-users = root\n' >"$T/cix.conf"
SOCK=$T/sock
D="unix://$SOCK?store=$CIX_STORE_DIR&log=$CIX_LOG_DIR"
[ -x /usr/bin/perl ] && test_set_prereq PERL
# guix CMDS: one connection of the Guix client running CMDS (one a line).
guix () { printf '%s\n' "$@" | perl "$CIX_SRC_DIR/t/lib-guix-client.pl" "$SOCK"; }
# inst EXPR: a derivation in the daemon's store, instantiated by Nix through it.
inst () { nix-instantiate --store "$D" -E "$1" 2>/dev/null; }
drv () {
	echo "derivation { name = \"$1\"; system = \"${3:-x86_64-linux}\"; builder = \"/bin/sh\"; args = [ \"-c\" \"$2\" ]; }"
}

test_expect_success PERL 'set-up: the daemon starts' '
	test_start_daemon "$SOCK" CIX_CONF_FILE="$T/cix.conf"
'

test_expect_success PERL 'handshake: no version string, nothing but LAST; errors carry a status' '
	guix "valid /nonstore/x" "valid $CIX_STORE_DIR/00000000000000000000000000000000-x" >out &&
	cat out &&
	grep "^daemon 0x122$" out &&
	grep "^error 1: .*" out &&
	grep "^valid 0$" out
'

test_expect_success PERL 'set-build-options: Guix'"'"'s names and pairs are taken' '
	guix "options build-timeout=30 build-max-silent-time=20 build-max-jobs=2 build-cores=1 substitute-urls=https://example.org user-name=root print-extended-build-trace=1 locale=C build-repeat=0" \
		"valid $CIX_STORE_DIR/00000000000000000000000000000000-x" >out &&
	grep "^options set$" out && grep "^valid 0$" out
'

test_expect_success PERL 'add-text-to-store, valid-path?, query-path-info, a missing path' '
	guix "text hello hello-world" >out &&
	p=$(sed -n 2p out) &&
	test "$(cat "$p")" = hello-world &&
	guix "text user hi $p" "valid $p" "info $p" >out2 &&
	u=$(sed -n 2p out2) &&
	grep "^valid 1$" out2 &&
	grep "^deriver \[\] hash [0-9a-f]\{64\} refs \[\] time set size [1-9]" out2 &&
	guix "info $u" "info $CIX_STORE_DIR/00000000000000000000000000000000-gone" "valid $u" >out3 &&
	grep "refs \[$p\]" out3 &&
	grep "^error [1-9][0-9]*: .*not valid" out3 &&
	grep "^valid 1$" out3
'

test_expect_success PERL 'add-to-store: the NAR inline, flat and recursive; Nix'"'"'s paths' '
	echo some data >data &&
	guix "add data 1 sha256 data" "add data 0 sha256 data" "add data 0 sha1 data" >out &&
	test "$(sed -n 2p out)" = "$(CIX_DAEMON_SOCKET=$SOCK cix store --add data)" &&
	test "$(sed -n 3p out)" = "$(nix-store --store "$D" --add-fixed sha256 data)" &&
	test "$(sed -n 4p out)" = "$(nix-store --store "$D" --add-fixed sha1 data)"
'

test_expect_success PERL 'add-to-store with sha3-256 or blake2s-256: refused, the connection goes on' '
	guix "add data 1 sha3-256 data" "add data 0 blake2s-256 data" "add da/ta 1 sha256 data" \
		"text after ok" >out &&
	cat out &&
	grep "^error 1: .*sha3-256.* not supported" out &&
	grep "^error 1: .*blake2s-256.* not supported" out &&
	test "$(grep -c "^error" out)" = 3 &&
	tail -n 1 out | grep "^$CIX_STORE_DIR/.*-after$"
'

test_expect_success PERL 'a .drv without outputs is refused when added' '
	printf "Derive([],[],[],\"x86_64-linux\",\"/bin/sh\",[],[])" >empty.drv &&
	guix "textfile empty.drv empty.drv" "valid $CIX_STORE_DIR/00000000000000000000000000000000-x" >out &&
	cat out &&
	grep "^error 1: .*no outputs" out &&
	grep "^valid 0$" out
'

test_expect_success PERL,NIX 'build-derivations: traces, the outputs built' '
	d=$(inst "$(drv guix-ok "echo built; echo ok > \$out")") &&
	guix "options trace=1" "build 0 $d" log >out &&
	cat out &&
	grep "^@ build-started $d - x86_64-linux [^ ]* [0-9][0-9]*$" out &&
	grep "^@ build-succeeded $d -$" out &&
	grep "^built 1$" out &&
	grep "^log: built$" out &&
	o=$(nix-store --store "$D" -q --outputs "$d") &&
	test "$(cat "$o")" = ok &&
	guix "options trace=0" "build 0 $d" >out2 &&
	! grep "^@" out2 && grep "^built 1$" out2
'

test_expect_success PERL,NIX 'a failed build: status 100 and its trace; a timed-out one: 101' '
	d=$(inst "$(drv guix-fail "exit 3")") &&
	guix "options trace=1" "build 0 $d" "valid $d" >out &&
	cat out &&
	grep "^@ build-failed $d - 100 .*exit code 3" out &&
	grep "^error 100: .*exit code 3" out &&
	grep "^valid 1$" out &&
	d2=$(inst "$(drv guix-slow "exec /bin/sleep 30")") &&
	guix "options build-timeout=1" "build 0 $d2" >out2 &&
	cat out2 &&
	grep "^error 101: .*timed out" out2
'

test_expect_success PERL,NIX 'a system this machine cannot run: refused before building' '
	d=$(inst "$(drv guix-mips "echo no > \$out" mips64el-linux)") &&
	guix "options trace=1" "build 0 $d" "valid $d" >out &&
	cat out &&
	grep "^@ unsupported-platform $d mips64el-linux$" out &&
	grep "^error 100: a .mips64el-linux. is required to build .*, but this machine is a .x86_64-linux." out &&
	grep "^valid 1$" out &&
	test_must_fail nix-store --store "$D" --realise "$d" 2>err &&
	grep "mips64el-linux. is required" err
'

test_expect_success PERL,NIX 'a builtin:download derivation is refused clearly' '
	d=$(inst "derivation { name = \"dl\"; system = \"x86_64-linux\"; builder = \"builtin:download\"; url = \"\\\"https://example.org/x\\\"\"; outputHash = \"0000000000000000000000000000000000000000000000000000\"; outputHashAlgo = \"sha256\"; outputHashMode = \"flat\"; }") &&
	guix "build 0 $d" >out &&
	cat out &&
	grep "^error 100: .*builtin:download.* which cix does not have" out
'

test_expect_success PERL 'failed paths, built-in builders: Guix'"'"'s own operations' '
	guix failed "clear $CIX_STORE_DIR/00000000000000000000000000000000-x" builtins >out &&
	cat out &&
	grep "^failed \[\]$" out &&
	grep "^cleared 1$" out &&
	grep "^builtins \[bootstrap buildenv fetchurl profile\]$" out
'

test_expect_success PERL 'Guix'"'"'s operations are not offered to Nix'"'"'s clients (1.24 here)' '
	printf "%s\n" builtins | GUIX_CLIENT_VERSION=0x118 \
		perl "$CIX_SRC_DIR/t/lib-guix-client.pl" "$SOCK" >out 2>&1 || :
	cat out &&
	grep "^error 1: invalid operation 80" out
'

test_expect_success PERL 'export-paths, delete-paths, import-paths' '
	guix "text dep dependency" >out &&
	dep=$(sed -n 2p out) &&
	guix "text top top-level $dep" >out1 &&
	top=$(sed -n 2p out1) &&
	guix "export both.export $dep $top" >out2 &&
	grep "^exported 2$" out2 &&
	guix "gc 3 $top $dep" >out3 &&
	cat out3 &&
	grep "^path $top$" out3 && grep "^path $dep$" out3 &&
	test_path_is_missing "$top" &&
	guix "import both.export" "info $top" >out4 &&
	cat out4 &&
	grep "^imported $dep$" out4 && grep "^imported $top$" out4 &&
	grep "refs \[$dep\]" out4 &&
	test "$(cat "$top")" = top-level
'

test_expect_success PERL 'a connection deletes what it added itself, its own temporary root notwithstanding' '
	guix "text mine2 mine2-text" >out && p=$(sed -n 2p out) &&
	printf "%s\n" "text mine2 mine2-text" "temproot $p" "gc 3 $p" "valid $p" |
		perl "$CIX_SRC_DIR/t/lib-guix-client.pl" "$SOCK" >out2 &&
	cat out2 &&
	grep "^path $p$" out2 &&
	grep "^valid 0$" out2
'

test_expect_success PERL 'add-temp-root, add-indirect-root, find-roots, collect-garbage' '
	guix "text rooted rooted-text" >out && p=$(sed -n 2p out) &&
	ln -s "$p" "$T/myroot" &&
	guix "indirect $T/myroot" roots "gc 0" >out1 &&
	cat out1 &&
	grep "^indirect 1$" out1 &&
	grep "^root $T/myroot $p$" out1 &&
	grep "^path $p$" out1 &&
	guix "gc 2" "valid $p" >out2 &&
	grep "^valid 1$" out2 &&
	grep "^freed [0-9]" out2 &&
	rm "$T/myroot" &&
	guix "temproot $p" "gc 2" "valid $p" >out3 &&
	grep "^temproot 1$" out3 && grep "^valid 1$" out3 &&
	guix "gc 2" "valid $p" >out4 &&
	grep "^path $p$" out4 && grep "^valid 0$" out4
'

test_done
