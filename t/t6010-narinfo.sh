#!/bin/sh
# t6010-narinfo.sh - .narinfo and nix-cache-info files written by Nix, read and written again
# SPDX-License-Identifier: GPL-3.0-or-later
test_description='narinfo files of binary caches made by nix copy: parsed and formatted again byte for byte, fingerprints equal to what Nix signed'
. "$(dirname "$0")/test-lib.sh"

# The parser's test binary doubles as the tool (see t/unit/narinfo.c).
T=$CIX_BUILD_DIR/t/unit/narinfo.t
S=$TRASH_DIRECTORY/nix/store
NIX_STORE_DIR=$S
NIX_STATE_DIR=$TRASH_DIRECTORY/nix/state
NIX_LOG_DIR=$TRASH_DIRECTORY/nix/log
export NIX_STORE_DIR NIX_STATE_DIR NIX_LOG_DIR
NIX_CONFIG="$NIX_CONFIG
sandbox = false
build-users-group ="
unset NIX_REMOTE

if command -v openssl >/dev/null && command -v xxd >/dev/null &&
   command -v jq >/dev/null; then
	test_set_prereq TOOLS
fi

test_expect_success NIX 'setup: paths with references, two caches signed by Nix' '
	echo hello >f && mkdir d && echo x >d/y && ln -s y d/l &&
	a=$(nix-store --add f) && b=$(nix-store --add d) &&
	cat >d.nix <<-EOF &&
	rec {
	  withref = derivation { name = "withref"; system = builtins.currentSystem; builder = "/bin/sh";
	    dep = builtins.storePath "$a"; dep2 = builtins.storePath "$b";
	    args = [ "-c" "echo \$dep2 \$dep > \$out" ]; };
	  self = derivation { name = "self"; system = builtins.currentSystem; builder = "/bin/sh";
	    inherit withref; args = [ "-c" "echo \$out \$withref > \$out" ]; };
	}
	EOF
	top=$(nix-build --no-out-link d.nix -A self) &&
	nix-store --generate-binary-cache-key test-1 sk1 pk1 &&
	nix-store --generate-binary-cache-key other-1 sk2 pk2 &&
	nix copy --to "file://$PWD/plain?compression=none&secret-key=$PWD/sk1" "$top" &&
	nix copy --to "file://$PWD/xz?compression=xz&secret-key=$PWD/sk1" "$top" &&
	nix store sign --store "file://$PWD/xz" -k sk2 -r "$top" &&
	ls plain/*.narinfo xz/*.narinfo >narinfos &&
	test_line_count = 8 narinfos &&
	grep -q "^References: .* .*" xz/*.narinfo &&
	grep -q "^Deriver: " plain/*.narinfo &&
	grep -q "^CA: " plain/*.narinfo &&
	test "$(grep -c "^Sig: " "xz/$(basename "$top" | cut -c1-32).narinfo")" = 2 &&
	echo "$top" >top
'

test_expect_success NIX 'each narinfo formats back to its bytes' '
	while read -r f; do
		"$T" --reformat "$f" "$S" >out &&
		test_cmp "$f" out || return 1
	done <narinfos
'

test_expect_success NIX 'nix-cache-info formats back to its bytes' '
	for c in plain xz; do
		"$T" --cache-info $c/nix-cache-info >out &&
		test_cmp $c/nix-cache-info out || return 1
	done
'

test_expect_success NIX,TOOLS 'fingerprints: the fields nix path-info gives' '
	for c in plain xz; do
		nix path-info --json --store "file://$PWD/$c" --all >info.json &&
		n=$(jq length info.json) &&
		test "$n" = 4 &&
		i=0 &&
		while [ $i -lt "$n" ]; do
			p=$(jq -r ".[$i].path" info.json) &&
			h=$(nix hash to-base32 "$(jq -r ".[$i].narHash" info.json)") &&
			printf "1;%s;sha256:%s;%s;%s" "$p" "$h" "$(jq -r ".[$i].narSize" info.json)" \
				"$(jq -r ".[$i].references | sort | join(\",\")" info.json)" >want &&
			f=$c/$(basename "$p" | cut -c1-32).narinfo &&
			"$T" --fingerprint "$f" "$S" >got &&
			test_cmp want got &&
			i=$((i + 1)) || return 1
		done
	done
'

# verify SIG KEYFILE: the signature of fingerprint "got" by KEY (NAME:BASE64).
verify () {
	{ printf 302a300506032b6570032100 | xxd -r -p; cut -d: -f2 "$2" | base64 -d; } >pub.der &&
	printf "%s" "${1#*:}" | base64 -d >sig.bin &&
	openssl pkeyutl -verify -pubin -inkey pub.der -keyform DER -rawin -in got \
		-sigfile sig.bin >/dev/null
}

test_expect_success NIX,TOOLS 'fingerprints: what Nix signed' '
	while read -r f; do
		"$T" --fingerprint "$f" "$S" >got &&
		grep "^Sig: " "$f" | cut -c6- >sigs &&
		test -s sigs &&
		while read -r sig; do
			case $sig in
			test-1:*) verify "$sig" pk1 ;;
			other-1:*) verify "$sig" pk2 ;;
			*) false ;;
			esac || return 1
		done <sigs &&
		echo x >>got &&
		! verify "$(head -1 sigs)" pk1 || return 1
	done <narinfos
'

test_expect_success NIX 'an unusual narinfo: Nix and cix read the same from it' '
	top=$(cat top) &&
	f=plain/$(basename "$top" | cut -c1-32).narinfo &&
	nix path-info --json --store "file://$PWD/plain" "$top" >before.json &&
	mkdir odd && cp plain/nix-cache-info odd/ &&
	# References reversed, a key Nix does not know, no Compression line,
	# the NAR hash in base16.
	refs=$(sed -n "s/^References: //p" "$f" | tr " " "\n" | sort -r | tr "\n" " ") &&
	h=$(sed -n "s/^NarHash: //p" "$f") &&
	h16=$(nix hash to-base16 "$h") &&
	sed -e "s/^References: .*/References: $refs/" -e "/^Compression:/d" \
		-e "s/^NarHash: .*/NarHash: sha256:$h16/" -e "1i\\
Future: whatever" "$f" >"odd/$(basename "$f")" &&
	! grep -q "^NarHash: $h" "odd/$(basename "$f")" &&
	nix path-info --json --store "file://$PWD/odd" "$top" >after.json &&
	test_cmp before.json after.json &&
	"$T" --reformat "odd/$(basename "$f")" "$S" >reformatted &&
	sed "s/^Compression: none/Compression: bzip2/" "$f" >want &&
	test_cmp want reformatted
'

test_expect_success NIX 'narinfos of another store, or broken, are refused' '
	f=$(head -1 narinfos) &&
	test_must_fail "$T" --reformat "$f" /nix/store 2>err &&
	grep -q "not in the store" err &&
	sed "/^NarHash:/d" "$f" >broken &&
	test_must_fail "$T" --reformat broken "$S" 2>err &&
	grep -q "no NarHash" err
'

test_done
