#!/bin/sh
# t6020-publish.sh - cix publish: the store over HTTP, as Nix 2.8 reads a binary cache
# SPDX-License-Identifier: GPL-3.0-or-later
test_description='cix publish serves nix-cache-info, signed narinfos and compressed NARs (zstd, xz, none, a cache directory); Nix 2.8 reads them, checks the signatures and the NARs'
. "$(dirname "$0")/test-lib.sh"

test_private_store
test_private_conf_dir
XDG_CACHE_HOME=$TRASH_DIRECTORY/cache
export XDG_CACHE_HOME
P=$TRASH_DIRECTORY/pkgs
CIX_SCHEME_PATH=$CIX_SCHEME_PATH:$P
command -v curl >/dev/null && test_set_prereq CURL

[ -x "$MKPKG" ] && test_set_prereq STATIC
mkdir -p "$P/gnu/packages"
cat >"$P/gnu/packages/pub.scm" <<EOF
(define-module (gnu packages pub)
  #:use-module (guix packages)
  #:use-module (guix build-system trivial))
(define-public pubpkg
  (package
    (name "pubpkg") (version "1")
    (build-system trivial-build-system)
    (inputs \`(("mkpkg" ,(local-file "$MKPKG" "mkpkg"))))
    (arguments \`(#:implicit-inputs? #f
                  #:builder ((input "mkpkg") "pubpkg" "1")))
    (synopsis "s") (description "d") (home-page "h") (license #f)))
EOF

# start_publish NAME OPTION...: cix publish on a free port, its URL in $URL.
start_publish () {
	name=$1
	shift
	cix publish --port 0 --listen 127.0.0.1 "$@" 2>"$name.log" &
	echo $! >"$name.pid"
	for _ in $(seq 100); do
		grep -q "^publishing" "$name.log" 2>/dev/null && break
		sleep 0.1
	done
	URL=$(sed -n 's/^publishing .* on \(http:.*\)\/$/\1/p' "$name.log")
	test -n "$URL"
}

stop_publish () {
	kill "$(cat "$1.pid")" 2>/dev/null
	wait "$(cat "$1.pid")" 2>/dev/null
	true
}

hash_part () {
	basename "$1" | cut -c1-32
}

nixq () {
	NIX_STORE_DIR=$CIX_STORE_DIR NIX_STATE_DIR=$TRASH_DIRECTORY/nix-state \
	NIX_LOG_DIR=$TRASH_DIRECTORY/nix-log NIX_CONFIG="substituters =" \
		nix --extra-experimental-features nix-command "$@"
}

test_expect_success STATIC 'setup: a key, a built package (input-addressed), its .drv, a source' '
	cix archive --generate-key=test-cache-1 &&
	OUT=$(cix build pubpkg) &&
	DRV=$(cix build -d pubpkg) &&
	mkdir -p tree/sub && echo hello >tree/a && echo b >tree/sub/b &&
	SRC=$(cix store --add tree) &&
	echo "$OUT $DRV $SRC" >paths
'

test_expect_success STATIC,CURL 'nix-cache-info, narinfos, NARs; 404 and 405' '
	read OUT DRV SRC <paths &&
	start_publish p1 &&
	curl -sf "$URL/nix-cache-info" >info &&
	grep -qx "StoreDir: $CIX_STORE_DIR" info &&
	curl -sf "$URL/$(hash_part "$OUT").narinfo" >out.narinfo &&
	grep -qx "StorePath: $OUT" out.narinfo &&
	grep -qx "URL: nar/$(hash_part "$OUT").nar.zst" out.narinfo &&
	grep -qx "Compression: zstd" out.narinfo &&
	grep -qx "NarHash: sha256:$(cix hash -r "$OUT")" out.narinfo &&
	grep -qx "NarSize: $(cix store --dump "$OUT" | wc -c)" out.narinfo &&
	grep -q "^Sig: test-cache-1:" out.narinfo &&
	grep -qx "Deriver: $(basename "$DRV")" out.narinfo &&
	curl -sf "$URL/nar/$(hash_part "$OUT").nar.zst" | zstd -dc >out.nar &&
	cix store --dump "$OUT" >expect.nar &&
	cmp out.nar expect.nar &&
	curl -sf "$URL/$(hash_part "$DRV").narinfo" >drv.narinfo &&
	grep -q "^References: .*-mkpkg" drv.narinfo &&
	test "$(curl -s -o /dev/null -w "%{http_code}" "$URL/00000000000000000000000000000000.narinfo")" = 404 &&
	test "$(curl -s -o /dev/null -w "%{http_code}" "$URL/nar/$(hash_part "$OUT").nar.xz")" = 404 &&
	test "$(curl -s -o /dev/null -w "%{http_code}" "$URL/../../etc/passwd")" = 404 &&
	test "$(curl -s -o /dev/null -w "%{http_code}" "$URL/$(hash_part "$OUT").narinfo/")" = 404 &&
	test "$(curl -s -o /dev/null -w "%{http_code}" -X POST "$URL/nix-cache-info")" = 405
'

test_expect_success STATIC,CURL 'many clients at once get the same NAR' '
	read OUT DRV SRC <paths && URL=$(sed -n "s/^publishing .* on \(http:.*\)\/$/\1/p" p1.log) &&
	for i in $(seq 16); do
		curl -sf -o "many.$i" "$URL/nar/$(hash_part "$OUT").nar.zst" &
	done &&
	wait &&
	for i in $(seq 16); do zstd -dc "many.$i" | cmp - expect.nar || return 1; done
'

test_expect_success STATIC,CURL,NIX 'Nix reads the narinfos: the same hashes, references, signature' '
	read OUT DRV SRC <paths && URL=$(sed -n "s/^publishing .* on \(http:.*\)\/$/\1/p" p1.log) &&
	for p in $OUT $DRV $SRC; do
		# (A .drv names its outputs to Nix, unless --derivation.)
		case $p in *.drv) d=--derivation ;; *) d= ;; esac &&
		nixq path-info --store "$URL" --json --sigs $d "$p" >nix.json &&
		python3 - "$p" "$CIX_STORE_DIR" <<-\EOF || return 1
		import json, subprocess, sys
		path, store = sys.argv[1], sys.argv[2]
		info = json.load(open("nix.json"))[0]
		assert info["path"] == path, info
		want = subprocess.run(["cix", "store", "--dump", path], capture_output=True).stdout
		assert info["narSize"] == len(want), (info["narSize"], len(want))
		refs = subprocess.run(["cix", "gc", "--references", path], capture_output=True,
		                      text=True).stdout.split()
		assert sorted(info["references"]) == sorted(refs), (info["references"], refs)
		assert any(s.startswith("test-cache-1:") for s in info.get("signatures", [])), info
		EOF
	done
'

test_expect_success STATIC,CURL,NIX 'Nix verifies the NARs and our signature; another key is not trusted' '
	read OUT DRV SRC <paths && URL=$(sed -n "s/^publishing .* on \(http:.*\)\/$/\1/p" p1.log) &&
	key=$(cat "$CIX_CONF_DIR/signing-key.pub") &&
	nixq store verify --store "$URL" --trusted-public-keys "$key" "$OUT" "$DRV" "$SRC" &&
	other="other-1:$(cut -d: -f2 "$CIX_CONF_DIR/signing-key.pub")" &&
	test_must_fail nixq store verify --store "$URL" --trusted-public-keys "$other" "$OUT" 2>err &&
	grep -q "untrusted" err
'

test_expect_success STATIC,CURL,NIX 'Nix copies the package from it, compressed with xz, and with none' '
	read OUT DRV SRC <paths &&
	stop_publish p1 &&
	for c in xz none; do
		start_publish "p-$c" --compression=$c &&
		rm -rf "copy-$c" &&
		nixq copy --from "$URL" --to "file://$TRASH_DIRECTORY/copy-$c" \
			--trusted-public-keys "$(cat "$CIX_CONF_DIR/signing-key.pub")" "$OUT" &&
		test -n "$(ls "copy-$c"/*.narinfo)" &&
		stop_publish "p-$c" || return 1
	done
'

test_expect_success STATIC,CURL,NIX 'a cache directory: NARs kept, FileHash and FileSize given, Nix checks them' '
	read OUT DRV SRC <paths &&
	start_publish p2 --cache "$TRASH_DIRECTORY/nar-cache" --ttl 600 &&
	curl -sf -D headers "$URL/$(hash_part "$OUT").narinfo" >c.narinfo &&
	grep -qi "^Cache-Control: max-age=600" headers &&
	f=$(ls nar-cache/nar/*.nar.zst) &&
	grep -qx "FileSize: $(wc -c <"$f")" c.narinfo &&
	grep -qx "FileHash: sha256:$(cix hash "$f")" c.narinfo &&
	nixq store verify --store "$URL" --trusted-public-keys "$(cat "$CIX_CONF_DIR/signing-key.pub")" "$OUT" &&
	rm -rf copy-c &&
	nixq copy --from "$URL" --to "file://$TRASH_DIRECTORY/copy-c" \
		--trusted-public-keys "$(cat "$CIX_CONF_DIR/signing-key.pub")" "$OUT" &&
	stop_publish p2 &&
	cmp c.narinfo "nar-cache/$(hash_part "$OUT").narinfo" &&
	grep -qx "StoreDir: $CIX_STORE_DIR" nar-cache/nix-cache-info &&
	nixq store verify --store "file://$TRASH_DIRECTORY/nar-cache" \
		--trusted-public-keys "$(cat "$CIX_CONF_DIR/signing-key.pub")" "$OUT"
'

test_expect_success 'bad options are one line' '
	test_expect_code 2 cix publish --port 70000 2>err && grep -q "invalid port" err &&
	test_expect_code 2 cix publish --compression=bzip2 2>err && grep -q "bzip2" err &&
	test_expect_code 1 cix publish --secret-key /nonexistent 2>err && test_line_count = 1 err &&
	test_expect_code 1 cix publish --port 0 --listen nowhere 2>err && test_line_count = 1 err &&
	test_expect_code 2 cix publish extra 2>err && grep -q "unexpected argument" err
'

test_done
