#!/bin/sh
# t5000-profile-build.sh - builtin:profile: a profile generation built by cix store --realise
# SPDX-License-Identifier: GPL-3.0-or-later
test_description='builtin:profile: the union of packages as links, its manifest, its references'
. "$(dirname "$0")/test-lib.sh"

test_private_store
N="local?store=$CIX_STORE_DIR&real=$TRASH_DIRECTORY/nixreal&state=$TRASH_DIRECTORY/nixstate&log=$TRASH_DIRECTORY/nixlog"
nixs () { nix-store --store "$N" "$@"; }

# instantiate NAME EXPR: write the derivation of EXPR (paths named P1... in
# it become the store paths in p1...) into both stores; its path in NAME.drv.
instantiate () {
	printf '%s\n' "$2" >"$1.nix" &&
	for p in p1 p2 p3; do
		sed -i "s|@$p@|$(cat $p.path)|g" "$1.nix" || return 1
	done &&
	nix-instantiate --store "$N" "$1.nix" 2>/dev/null >"$1.drv" &&
	nixs --export $(nixs -qR $(cat "$1.drv")) >"$1.export" &&
	cix store --import <"$1.export" >/dev/null
}

test_expect_success NIX 'two packages in both stores' '
	mkdir -p p1/bin p1/share/doc/p1 p2/bin p2/share/doc/p2 p2/lib p3/bin &&
	printf "#!/bin/sh\necho one\n" >p1/bin/prog1 &&
	printf "#!/bin/sh\necho two\n" >p2/bin/prog2 &&
	echo p1 >p1/share/doc/p1/README && echo p2 >p2/lib/libp2.a &&
	echo "not the manifest" >p2/manifest &&
	printf "#!/bin/sh\necho three\n" >p3/bin/prog1 &&
	chmod +x p1/bin/prog1 p2/bin/prog2 p3/bin/prog1 &&
	for p in p1 p2 p3; do
		cix store --add $p >$p.path && nixs --add $p >$p.nix-path &&
		test_cmp $p.nix-path $p.path || return 1
	done
'

test_expect_success NIX 'a profile of two packages' '
	instantiate prof "derivation { name = \"profile\"; system = \"x86_64-linux\";
	  builder = \"builtin:profile\";
	  paths = \"\${builtins.storePath \"@p1@\"}\n\${builtins.storePath \"@p2@\"}\";
	  manifest = \"cix-manifest 1\n\"; }" &&
	cix store --realise $(cat prof.drv) >out &&
	out=$(cat out) && p1=$(cat p1.path) && p2=$(cat p2.path) &&
	test "$(readlink $out/bin/prog1)" = $p1/bin/prog1 &&
	test "$(readlink $out/bin/prog2)" = $p2/bin/prog2 &&
	test "$($out/bin/prog1)" = one && test "$($out/bin/prog2)" = two &&
	test "$(readlink $out/lib)" = $p2/lib &&
	test "$(readlink $out/share/doc/p1)" = $p1/share/doc/p1 &&
	test "$(readlink $out/share/doc/p2)" = $p2/share/doc/p2 &&
	test -d $out/share/doc && ! test -h $out/share/doc &&
	printf "cix-manifest 1\n" >manifest.expect &&
	test_cmp manifest.expect $out/manifest &&
	sort p1.path p2.path >refs.expect &&
	cix store -q --references $out | sort >refs &&
	test_cmp refs.expect refs &&
	test "$(cix store -q --deriver $out)" = "$(cat prof.drv)" &&
	cix store --verify-path $out
'

test_expect_success NIX 'a conflict fails the build, naming both, and registers nothing' '
	instantiate conflict "derivation { name = \"profile\"; system = \"x86_64-linux\";
	  builder = \"builtin:profile\";
	  paths = \"\${builtins.storePath \"@p1@\"}\n\${builtins.storePath \"@p3@\"}\";
	  manifest = \"\"; }" &&
	test_expect_code 1 cix store --realise $(cat conflict.drv) 2>err &&
	grep -F "conflict: '\''bin/prog1'\'' is in both '\''$(cat p1.path)'\'' and '\''$(cat p3.path)'\''" err &&
	out=$(nixs -q --outputs $(cat conflict.drv)) &&
	test_must_fail cix store --check-validity $out &&
	test_path_is_missing $out &&
	cix store --read-log $(cat conflict.drv) >build.log &&
	grep -F "conflict: '\''bin/prog1'\''" build.log
'

test_expect_success NIX 'the empty profile holds its manifest only' '
	instantiate empty "derivation { name = \"profile\"; system = \"x86_64-linux\";
	  builder = \"builtin:profile\"; paths = \"\"; manifest = \"cix-manifest 1\n\"; }" &&
	cix store --realise $(cat empty.drv) >out &&
	out=$(cat out) && ls -A $out >names &&
	echo manifest >names.expect && test_cmp names.expect names &&
	test_cmp manifest.expect $out/manifest &&
	cix store -q --references $out >refs && test_line_count = 0 refs
'

test_expect_success NIX 'paths missing, or not inputs, are refused' '
	instantiate nopaths "derivation { name = \"profile\"; system = \"x86_64-linux\";
	  builder = \"builtin:profile\"; manifest = \"\"; }" &&
	test_expect_code 1 cix store --realise $(cat nopaths.drv) 2>err &&
	grep "paths" err &&
	instantiate notinput "derivation { name = \"profile\"; system = \"x86_64-linux\";
	  builder = \"builtin:profile\"; manifest = \"\";
	  paths = \"\${builtins.storePath \"@p1@\"}\n@p2@\n\"; }" &&
	test_expect_code 1 cix store --realise $(cat notinput.drv) 2>err &&
	grep -F "$(cat p2.path)" err && grep "not an input" err &&
	instantiate host "derivation { name = \"profile\"; system = \"x86_64-linux\";
	  builder = \"builtin:profile\"; manifest = \"\"; paths = \"/etc\"; }" &&
	test_expect_code 1 cix store --realise $(cat host.drv) 2>err &&
	grep "not an input" err
'

test_done
