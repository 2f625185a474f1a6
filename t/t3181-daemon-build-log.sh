#!/bin/sh
# t3181-daemon-build-log.sh - build logs that Nix 2.8's clients read and send through the daemon
# SPDX-License-Identifier: GPL-3.0-or-later
test_description='cix-daemon: nix-store -l and nix log read the logs of its builds; nix store copy-log (AddBuildLog) both ways; cix reads its old .zst logs'
. "$(dirname "$0")/test-lib.sh"

test_private_store
test_sandbox_host_paths
T=$TRASH_DIRECTORY
printf 'trusted-users = root\n' >"$T/cix.conf"
SOCK=$T/sock
D="unix://$SOCK?store=$CIX_STORE_DIR&log=$CIX_LOG_DIR"
C="file://$T/logcache?store=$CIX_STORE_DIR"
NIX_CONFIG="$NIX_CONFIG
sandbox = false"
dst () { nix-store --store "$D" "$@"; }
nix3 () { nix --extra-experimental-features nix-command "$@"; }
nb () { runuser -u nobody -- env HOME="$T/nb" XDG_CACHE_HOME="$T/nb" "$@"; }
[ "$(id -u)" = 0 ] && command -v runuser >/dev/null && id nobody >/dev/null 2>&1 &&
	test_set_prereq NOBODY

# log_file DRV EXT: where cix keeps the log of DRV (Nix's layout).
log_file () {
	b_=$(basename "$1")
	echo "$CIX_LOG_DIR/drvs/$(echo "$b_" | cut -c1-2)/$(echo "$b_" | cut -c3-)$2"
}

test_expect_success NIX 'set-up: a build through the daemon' '
	test_start_daemon "$SOCK" CIX_CONF_FILE="$T/cix.conf" &&
	drv=$(nix-instantiate --store "$D" -E "derivation { name = \"talk\"; system = \"x86_64-linux\"; builder = \"/bin/sh\"; args = [ \"-c\" \"echo said by the builder; echo on stderr >&2; echo x > \$out\" ]; }" 2>/dev/null) &&
	echo "$drv" >drv &&
	dst -r "$drv" >out &&
	test -f "$(cat out)"
'

test_expect_success NIX 'the log is Nix'"'"'s layout, bzip2 once the build ended' '
	drv=$(cat drv) &&
	f=$(log_file "$drv" .bz2) &&
	test "$(head -c 3 "$f")" = BZh &&
	test_path_is_missing "$(log_file "$drv" "")" &&
	test_path_is_missing "$(log_file "$drv" .bz2.part)" &&
	bzcat "$f" >bz.out &&
	grep "said by the builder" bz.out
'

test_expect_success NIX 'nix-store -l and nix log read it, by derivation and by output' '
	drv=$(cat drv) &&
	dst -l "$drv" >l.out &&
	grep "said by the builder" l.out && grep "on stderr" l.out &&
	nix3 log --store "$D" "$drv" >log.out &&
	grep "said by the builder" log.out &&
	nix3 log --store "$D" "$(cat out)" >log2.out &&
	grep "said by the builder" log2.out
'

test_expect_success NIX 'cix reads the new logs and the old .zst ones' '
	drv=$(cat drv) &&
	cix store -l "$drv" >cix.out &&
	grep "said by the builder" cix.out &&
	test "$(cix build --log-file "$drv")" = "$(log_file "$drv" .bz2)" &&
	old=$(nix-instantiate --store "$D" -E "derivation { name = \"old\"; system = \"x86_64-linux\"; builder = \"/bin/sh\"; }" 2>/dev/null) &&
	mkdir -p "$(dirname "$(log_file "$old" "")")" &&
	printf "an old log\n" | zstd -q >"$(log_file "$old" .zst)" &&
	cix store -l "$old" >old.out &&
	test "$(cat old.out)" = "an old log" &&
	printf "garbage" >"$(log_file "$old" .bz2)" &&
	test_expect_code 1 cix store -l "$old" 2>bad.err &&
	grep "corrupt" bad.err
'

test_expect_success NIX 'nix store copy-log from the daemon to a binary cache' '
	drv=$(cat drv) &&
	nix3 store copy-log --from "$D" --to "$C" "$drv" &&
	grep "said by the builder" "$T/logcache/log/$(basename "$drv")"
'

test_expect_success NIX 'nix store copy-log from a binary cache to the daemon (AddBuildLog)' '
	drv=$(cat drv) &&
	rm "$(log_file "$drv" .bz2)" &&
	test_must_fail dst -l "$drv" 2>none.err &&
	nix3 store copy-log --from "$C" --to "$D" "$drv" &&
	f=$(log_file "$drv" .bz2) &&
	test "$(head -c 3 "$f")" = BZh &&
	dst -l "$drv" >back.out &&
	grep "said by the builder" back.out &&
	cix store -l "$drv" >cixback.out &&
	test_cmp back.out cixback.out
'

test_expect_success NIX 'a log the daemon has is kept' '
	drv=$(cat drv) &&
	printf "another log\n" >"$T/logcache/log/$(basename "$drv")" &&
	nix3 store copy-log --from "$C" --to "$D" "$drv" &&
	dst -l "$drv" >kept.out &&
	grep "said by the builder" kept.out
'

test_expect_success NIX,NOBODY 'only trusted users may add logs' '
	mkdir -p "$T/nb" && chown nobody "$T/nb" &&
	other=$(nix-instantiate --store "$D" -E "derivation { name = \"other\"; system = \"x86_64-linux\"; builder = \"/bin/sh\"; }" 2>/dev/null) &&
	cp "$T/logcache/log/$(basename "$(cat drv)")" "$T/logcache/log/$(basename "$other")" &&
	test_must_fail nb nix --extra-experimental-features nix-command \
		store copy-log --from "$C" --to "$D" "$other" 2>nb.err &&
	grep "not privileged to add logs" nb.err &&
	test_path_is_missing "$(log_file "$other" .bz2)" &&
	dst -q --hash "$(cat out)" >/dev/null
'

test_expect_success NIX 'a log larger than max-log-size is refused, and nothing of it stays' '
	printf "trusted-users = root\nmax-log-size = 1000\n" >"$T/small.conf" &&
	test_start_daemon "$T/sock2" CIX_CONF_FILE="$T/small.conf" &&
	big=$(nix-instantiate --store "$D" -E "derivation { name = \"big\"; system = \"x86_64-linux\"; builder = \"/bin/sh\"; }" 2>/dev/null) &&
	seq 1000 >"$T/logcache/log/$(basename "$big")" &&
	test_must_fail nix3 store copy-log --from "$C" \
		--to "unix://$T/sock2?store=$CIX_STORE_DIR&log=$CIX_LOG_DIR" "$big" 2>big.err &&
	grep "larger than 1000 bytes" big.err &&
	test_path_is_missing "$(log_file "$big" .bz2)" &&
	! ls "$(dirname "$(log_file "$big" "")")" | grep tmp
'

test_done
