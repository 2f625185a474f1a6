#!/bin/sh
# t6036-substitute-url-params.sh - substitute URLs with Nix's ?key=value parameters
# SPDX-License-Identifier: GPL-3.0-or-later
test_description='cix store --realise --substitute-urls with a cache nix copy wrote: the query is not part of the path; priority orders the caches (else their nix-cache-info Priority); store= of another store is refused; trusted=; bad parameters refused'
. "$(dirname "$0")/test-lib.sh"

test_private_store
test_nix_oracle
# A Nix store whose real directory is another builds in its sandbox.
NIX_CONFIG="$NIX_CONFIG
extra-sandbox-paths = /bin /lib /lib64 /usr"
T=$TRASH_DIRECTORY
CIX_CONF_DIR=$T/conf
export CIX_CONF_DIR
nix3 () { nix --extra-experimental-features nix-command "$@"; }
# realise URLS PATH: PATH from the caches URLS.
realise () { cix store -r --substitute-urls "$1" "$2"; }
# forget PATH: PATH not valid in cix's store, nor its answers remembered.
forget () { cix store --delete "$1" >/dev/null 2>&1; rm -rf "$CIX_STATE_DIR/substitute-cache"; }

test_expect_success NIX 'set-up: Nix builds a path and copies it to a signed cache' '
	mkdir -p conf &&
	nix-store --generate-binary-cache-key nix-1 nix.sec nix.pub &&
	cix archive --authorize <nix.pub &&
	drv=$(nix-instantiate --store "$N" -E "derivation { name = \"cached\"; system = \"x86_64-linux\"; builder = \"/bin/sh\"; args = [ \"-c\" \"echo from the cache > \$out\" ]; }" 2>/dev/null) &&
	P=$(nixs -r "$drv") && echo "$P" >p &&
	nix3 copy --from "$N" --to "file://$T/nc?compression=none&store=$CIX_STORE_DIR&secret-key=$T/nix.sec" "$P" &&
	grep -x "StoreDir: $CIX_STORE_DIR" nc/nix-cache-info &&
	ls nc/nar/*.nar &&
	nix3 copy --from "$N" --to "file://$T/unsigned?compression=none&store=$CIX_STORE_DIR" "$P"
'

test_expect_success NIX 'a file:// URL with parameters: the path is the part before ?' '
	P=$(cat p) &&
	realise "file://$T/nc?compression=none&priority=10&want-mass-query=true&trusted=false" "$P" >out &&
	test "$(cat out)" = "$P" &&
	test "$(cat "$P")" = "from the cache" &&
	cix store --verify-path "$P"
'

test_expect_success NIX 'store= naming our store, %-escaped or not, is ours' '
	P=$(cat p) && forget "$P" &&
	realise "file://$T/nc/?store=$CIX_STORE_DIR/" "$P" &&
	forget "$P" &&
	esc=$(printf "%s" "$CIX_STORE_DIR" | sed "s|/|%2F|g") &&
	realise "file://$T/nc?store=$esc" "$P" &&
	cix store --verify-path "$P"
'

test_expect_success NIX 'store= naming another store: the cache is not used, and says why' '
	P=$(cat p) && forget "$P" &&
	sed "s|^StoreDir: .*|StoreDir: /other/store|" nc/nix-cache-info >info &&
	cp -r nc other && cp info other/nix-cache-info &&
	test_must_fail realise "file://$T/other?store=/other/store" "$P" 2>err &&
	grep "file://$T/other. are not used: it is a cache of the store ./other/store. (store=)" err &&
	test_must_fail cix store --check-validity "$P" &&
	test_must_fail realise "file://$T/other" "$P" 2>err2 &&
	grep "its store is ./other/store." err2
'

test_expect_success NIX 'priority: lower first, whatever the order given; else the nix-cache-info Priority' '
	P=$(cat p) && forget "$P" &&
	cp -r nc bad && f=$(ls bad/nar/*.nar) &&
	printf x | dd of="$f" bs=1 seek=200 conv=notrunc 2>/dev/null &&
	test_must_fail realise "file://$T/bad file://$T/nc" "$P" 2>err &&
	test_must_fail cix store --check-validity "$P" &&
	forget "$P" &&
	realise "file://$T/bad?priority=50 file://$T/nc?priority=10" "$P" &&
	forget "$P" &&
	echo "Priority: 50" >>bad/nix-cache-info &&
	realise "file://$T/bad file://$T/nc" "$P" &&
	forget "$P" &&
	test_must_fail realise "file://$T/bad?priority=1 file://$T/nc?priority=2" "$P" 2>err &&
	test_must_fail cix store --check-validity "$P"
'

test_expect_success NIX 'trusted=true takes a cache'"'"'s unsigned paths' '
	P=$(cat p) && forget "$P" &&
	test_must_fail realise "file://$T/unsigned" "$P" 2>err &&
	grep "not signed by a trusted key" err &&
	realise "file://$T/unsigned?trusted=true" "$P" &&
	cix store --verify-path "$P"
'

test_expect_success 'bad parameters: a one-line error' '
	P=$CIX_STORE_DIR/00000000000000000000000000000000-x &&
	for q in "frobnicate=1" "priority=high" "priority=" "trusted=maybe" "store=relative" \
		 "nokey" "store=%2" "store=%00x" "priority=1&priority=2" "store=%zz"; do
		test_expect_code 1 cix store -r --substitute-urls "file://$T/nc?$q" "$P" 2>err &&
		test_line_count = 1 err &&
		grep "substitute URL" err || return 1
	done &&
	test_expect_code 1 cix store -r --substitute-urls "ftp://host?priority=1" "$P" 2>err &&
	grep "not an http, https or file URL" err
'

test_done
