#!/bin/sh
# t6035-substitute-bounds.sh - unsigned substitutes: content-addressed paths, of a bounded size
# SPDX-License-Identifier: GPL-3.0-or-later
test_description='a narinfo no trusted key signed is used for a content-addressed path only, and only when the NAR it announces is within CIX_SUBSTITUTE_UNSIGNED_MAX_SIZE: a claim of 2^62 bytes, or more than the bound, is refused before anything is downloaded; a NAR longer than it says is cut'
. "$(dirname "$0")/test-lib.sh"

. "$CIX_SRC_DIR/t/lib-subst.sh"

# The content-addressed path (3 MB that do not compress) and a static
# cache of it without signatures: c/HASHPART.narinfo, c/nar/...
test_expect_success CURL,MOUNTNS 'setup: a content-addressed path in an unsigned static cache' '
	head -c 3000000 /dev/urandom >big &&
	P=$(cix store --add-fixed --recursive sha256 big) && echo "$P" >path &&
	start_publish p --cache "$T/c" --compression=none &&
	curl -sf "$(cat p.url)/$(basename "$P" | cut -c1-32).narinfo" >/dev/null &&
	stop_publish p &&
	N=c/$(basename "$P" | cut -c1-32).narinfo && echo "$N" >narinfo &&
	grep -q "^CA: fixed:r:sha256:" "$N" && sed -i "/^Sig: /d" "$N" &&
	mkdir -p conf2 && rm -f conf2/acl
'

# lie NAME SED: a copy NAME of the cache whose narinfo SED rewrites.
lie () {
	rm -rf "$1" && cp -r c "$1" && sed -i "$2" "$1/$(basename "$(cat narinfo)")"
}

# refused NAME MESSAGE: from the copy NAME, the second machine installs
# nothing, says MESSAGE (a pattern), and leaves no temporary.
refused () {
	fresh2 && test_must_fail on2 cix store --substitute "file://$T/$1" "$(cat path)" 2>err &&
	grep -q "$2" err &&
	test -z "$(ls -A store2/.cix-tmp 2>/dev/null)" &&
	test_must_fail on2 cix store --check-validity "$(cat path)"
}

test_expect_success CURL,MOUNTNS 'unsigned and content-addressed, of its true size: installed' '
	fresh2 && on2 cix store --substitute "file://$T/c" "$(cat path)" &&
	on2 cmp "$(cat path)" big
'

test_expect_success CURL,MOUNTNS 'a NarSize of 2^62: refused before any download' '
	lie huge "s/^NarSize: .*/NarSize: 4611686018427387904/" &&
	rm huge/nar/* &&
	refused huge "is not signed and says its NAR has 4611686018427387904 bytes, more than the 4294967296 of an unsigned substitute"
'

test_expect_success CURL,MOUNTNS 'a FileSize above the bound: refused too' '
	lie bigfile "s/^FileSize: .*/FileSize: 4294967297/" &&
	rm bigfile/nar/* &&
	refused bigfile "says its NAR has 4294967297 bytes"
'

test_expect_success CURL,MOUNTNS 'CIX_SUBSTITUTE_UNSIGNED_MAX_SIZE: the true size above it, refused; at it, installed' '
	rm -rf c2 && cp -r c c2 && rm c2/nar/* &&
	CIX_SUBSTITUTE_UNSIGNED_MAX_SIZE=1048576 && export CIX_SUBSTITUTE_UNSIGNED_MAX_SIZE &&
	refused c2 "more than the 1048576 of an unsigned substitute" &&
	CIX_SUBSTITUTE_UNSIGNED_MAX_SIZE=$(sed -n "s/^NarSize: //p" "$(cat narinfo)") &&
	fresh2 && on2 cix store --substitute "file://$T/c" "$(cat path)" &&
	CIX_SUBSTITUTE_UNSIGNED_MAX_SIZE=1M &&
	refused c "CIX_SUBSTITUTE_UNSIGNED_MAX_SIZE is not a number of bytes" &&
	unset CIX_SUBSTITUTE_UNSIGNED_MAX_SIZE
'

test_expect_success CURL,MOUNTNS 'substitute-unsigned-max-size in cix.conf; the environment wins' '
	printf "substitute-unsigned-max-size = 1M\n" >conf2/cix.conf &&
	refused c2 "more than the 1048576 of an unsigned substitute" &&
	fresh2 && CIX_SUBSTITUTE_UNSIGNED_MAX_SIZE=$(sed -n "s/^NarSize: //p" "$(cat narinfo)") \
		on2 cix store --substitute "file://$T/c" "$(cat path)" &&
	printf "substitute-unsigned-max-size = none\n" >conf2/cix.conf &&
	fresh2 && on2 cix store --substitute "file://$T/c" "$(cat path)" &&
	rm conf2/cix.conf
'

test_expect_success CURL,MOUNTNS 'a NAR longer than its NarSize: cut there and refused' '
	lie short "s/^NarSize: .*/NarSize: 1048576/" &&
	refused short "cannot substitute"
'

test_expect_success CURL,MOUNTNS 'signed by a trusted key, the bound does not apply' '
	cix archive --generate-key=machine1-1 &&
	cix archive --public-key | CIX_CONF_DIR=$T/conf2 cix archive --authorize &&
	start_publish ps --cache "$T/cs" --compression=none &&
	curl -sf "$(cat ps.url)/$(basename "$(cat narinfo)")" >/dev/null &&
	stop_publish ps &&
	grep -q "^Sig: " "cs/$(basename "$(cat narinfo)")" &&
	fresh2 && CIX_SUBSTITUTE_UNSIGNED_MAX_SIZE=1048576 \
		on2 cix store --substitute "file://$T/cs" "$(cat path)"
'

test_done
