#!/bin/sh
# t6030-substitute.sh - cix store --substitute: paths from a binary cache, trusted or not at all
# SPDX-License-Identifier: GPL-3.0-or-later
test_description='a second machine (a mount namespace with an empty store at the same path) installs a package and its closure from cix publish of the first and from a cache Nix wrote; a tampered NAR, a wrong signature, an unknown key, a narinfo for another path install nothing'
. "$(dirname "$0")/test-lib.sh"

. "$CIX_SRC_DIR/t/lib-subst.sh"

test_expect_success STATIC,CURL,MOUNTNS 'setup: a key, two packages (one refers to the other), cix publish' '
	cix archive --generate-key=machine1-1 &&
	APP=$(cix build subapp) && LIB=$(cix build sublib) &&
	grep -q "$LIB" "$APP/dep" &&
	cix gc --references "$APP" | grep -qx "$LIB" &&
	echo "$APP $LIB" >paths &&
	start_publish p1 &&
	mkdir -p conf2 && rm -f conf2/acl
'

test_expect_success STATIC,CURL,MOUNTNS 'without the key trusted: nothing installed' '
	read APP LIB <paths && fresh2 &&
	test_must_fail on2 cix store --substitute "$(cat p1.url)" "$APP" 2>err &&
	grep -q "not signed by a trusted key" err &&
	test_must_fail on2 cix store --check-validity "$LIB" &&
	test -z "$(ls store2 | grep -v "^\.")"
'

test_expect_success STATIC,CURL,MOUNTNS 'the key authorized: the package and its closure, checked' '
	read APP LIB <paths && fresh2 &&
	cix archive --public-key | CIX_CONF_DIR=$T/conf2 cix archive --authorize &&
	on2 cix store --substitute "$(cat p1.url)" "$APP" >out &&
	test "$(cat out)" = "$APP" &&
	on2 cix store --check-validity "$APP" "$LIB" &&
	on2 cat "$APP/bin/subapp" >run && test "$(cat run)" = "subapp 2" &&
	on2 cix store --verify --check-contents &&
	on2 cix store -q --references "$APP" >refs2 &&
	cix store -q --references "$APP" >refs1 && test_cmp refs1 refs2 &&
	on2 cix store -q --deriver "$APP" >drv2 && cix store -q --deriver "$APP" >drv1 &&
	test_cmp drv1 drv2
'

test_expect_success STATIC,CURL,MOUNTNS 'a path the cache does not have: a clear miss' '
	fresh2 &&
	test_must_fail on2 cix store --substitute "$(cat p1.url)" \
		"$CIX_STORE_DIR/00000000000000000000000000000000-none" 2>err &&
	grep -q "is not in the cache" err
'

# A static cache, made by cix publish --cache, then tampered with.
test_expect_success STATIC,CURL,MOUNTNS 'a static cache directory (file://) works; tampered, nothing installed' '
	read APP LIB <paths &&
	stop_publish p1 && start_publish p2 --cache "$T/c" --compression=xz &&
	curl -sf "$(cat p2.url)/$(basename "$APP" | cut -c1-32).narinfo" >/dev/null &&
	curl -sf "$(cat p2.url)/$(basename "$LIB" | cut -c1-32).narinfo" >/dev/null &&
	stop_publish p2 &&
	fresh2 && on2 cix store --substitute "file://$T/c" "$APP" &&
	cp -r c bad-nar && f=$(ls bad-nar/nar/*.xz | head -1) &&
	printf x | dd of="$f" bs=1 seek=100 conv=notrunc 2>/dev/null &&
	fresh2 && test_must_fail on2 cix store --substitute "file://$T/bad-nar" "$APP" 2>err &&
	test_must_fail on2 cix store --check-validity "$APP" &&
	cp -r c bad-sig &&
	n=bad-sig/$(basename "$APP" | cut -c1-32).narinfo &&
	# A signature by the key over another path: well-formed, not of this one.
	other=$(grep "^Sig: " "bad-sig/$(basename "$LIB" | cut -c1-32).narinfo") &&
	sed -i "s|^Sig: .*|$other|" "$n" &&
	fresh2 && test_must_fail on2 cix store --substitute "file://$T/bad-sig" "$APP" 2>err &&
	grep -q "not signed by a trusted key" err &&
	cp -r c other-path &&
	cp "other-path/$(basename "$LIB" | cut -c1-32).narinfo" \
	   "other-path/$(basename "$APP" | cut -c1-32).narinfo" &&
	fresh2 && test_must_fail on2 cix store --substitute "file://$T/other-path" "$APP" 2>err &&
	grep -q "gives the narinfo of" err &&
	test_must_fail on2 cix store --check-validity "$APP"
'

# The NAR streams from the download into the store: what is wrong only at
# its end (its file hash, bytes after the compressed data, a cut) leaves
# nothing, not even a temporary.
# spoil NAME HOW: a copy NAME of the static cache whose NAR of APP is made
# wrong by HOW (a command on the file), the narinfo's FileSize and FileHash
# saying the new file (HOW "filehash": only the hash lies; "gone": no NAR).
spoil () {
	rm -rf "$1" && cp -r c "$1" &&
	n=$1/$(basename "$APP" | cut -c1-32).narinfo &&
	f=$1/$(sed -n "s/^URL: //p" "$n") &&
	case $2 in
	filehash) sed -i "s|^FileHash: .*|FileHash: sha256:$(echo x | cix hash -)|" "$n" ;;
	gone) rm "$f" ;;
	*) $2 "$f" &&
	   sed -i -e "s|^FileHash: .*|FileHash: sha256:$(cix hash "$f")|" \
		  -e "s|^FileSize: .*|FileSize: $(wc -c <"$f")|" "$n" ;;
	esac
}
append () { printf "more bytes" >>"$1"; }
cut_half () { head -c $(($(wc -c <"$1") / 2)) "$1" >"$1.cut" && mv "$1.cut" "$1"; }
# refused NAME MESSAGE: the second machine, from the copy NAME, installs
# nothing, says MESSAGE (a pattern) in one line, and leaves no temporary
# (looked at before anything opens the store again: that would remove a
# dead process's temporaries).
refused () {
	fresh2 && test_must_fail on2 cix store --substitute "file://$T/$1" "$APP" 2>err &&
	grep -q "$2" err && test $(wc -l <err) = 1 &&
	test -z "$(ls -A store2/.cix-tmp 2>/dev/null)" &&
	test_must_fail on2 cix store --check-validity "$APP"
}

test_expect_success STATIC,CURL,MOUNTNS 'streamed: a wrong file hash, bytes after the data, a cut NAR, a missing one: nothing left' '
	read APP LIB <paths &&
	spoil fh filehash && refused fh "hash mismatch for" &&
	spoil trail append && refused trail "cannot decompress.*: truncated xz data" &&
	spoil cut cut_half && refused cut "cannot substitute" &&
	spoil gone gone && refused gone "cannot open"
'

# Uncompressed, the file is the NAR and its FileHash the NarHash: the
# download does not hash it again, the restore's check of the NarHash must
# then refuse a changed byte, and the size bytes after it.
test_expect_success STATIC,CURL,MOUNTNS 'uncompressed: a changed byte or bytes after the NAR, the narinfo as it was: nothing left' '
	read APP LIB <paths &&
	start_publish p3 --cache "$T/cn" --compression=none &&
	curl -sf "$(cat p3.url)/$(basename "$APP" | cut -c1-32).narinfo" >/dev/null &&
	curl -sf "$(cat p3.url)/$(basename "$LIB" | cut -c1-32).narinfo" >/dev/null &&
	stop_publish p3 &&
	n=$(basename "$APP" | cut -c1-32).narinfo &&
	test "$(sed -n "s/^FileHash: //p" "cn/$n")" = "$(sed -n "s/^NarHash: //p" "cn/$n")" &&
	fresh2 && on2 cix store --substitute "file://$T/cn" "$APP" &&
	rm -rf byte && cp -r cn byte && f=byte/$(sed -n "s/^URL: //p" "byte/$n") &&
	# (a byte of the first file'"'"'s contents, "subapp 2": the NAR stays well-formed)
	at=$(grep -boa "subapp 2" "$f" | head -1 | cut -d: -f1) && test -n "$at" &&
	printf x | dd of="$f" bs=1 seek=$((at + 2)) conv=notrunc 2>/dev/null &&
	refused byte "hash or size mismatch" &&
	rm -rf more && cp -r cn more && f=more/$(sed -n "s/^URL: //p" "more/$n") &&
	append "$f" &&
	fresh2 && test_must_fail on2 cix store --substitute "file://$T/more" "$APP" 2>err &&
	test $(wc -l <err) = 1 && test -z "$(ls -A store2/.cix-tmp 2>/dev/null)" &&
	test_must_fail on2 cix store --check-validity "$APP"
'

test_expect_success STATIC,MOUNTNS,NIX 'from a cache Nix wrote (nix copy --to file://), signed by Nix' '
	read APP LIB <paths &&
	nix-store --generate-binary-cache-key nix-machine-1 nix.sec nix.pub &&
	cix store --export $(cix store -q -R "$APP") >closure.export &&
	NIX_STORE_DIR=$CIX_STORE_DIR NIX_STATE_DIR=$T/nix-state NIX_LOG_DIR=$T/nix-log \
		sh -c "mkdir -p $T/store3 && unshare -m --propagation private sh -c \
		\"mount --bind $T/store3 $CIX_STORE_DIR && nix-store --import <closure.export >/dev/null &&
		 nix --extra-experimental-features nix-command copy --to file://$T/nixcache?secret-key=$T/nix.sec $APP\"" &&
	test -n "$(ls nixcache/*.narinfo)" &&
	fresh2 && rm -f conf2/acl &&
	test_must_fail on2 cix store --substitute "file://$T/nixcache" "$APP" &&
	CIX_CONF_DIR=$T/conf2 cix archive --authorize <nix.pub &&
	on2 cix store --substitute "file://$T/nixcache" "$APP" &&
	on2 cix store --verify --check-contents
'

test_done
