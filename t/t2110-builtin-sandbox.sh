#!/bin/sh
# t2110-builtin-sandbox.sh - builtin:fetchurl runs as a build user in the sandbox
# SPDX-License-Identifier: GPL-3.0-or-later
test_description='builtin:fetchurl through cix-daemon cannot read what the daemon can (issue 20, item 1)'
. "$(dirname "$0")/test-lib.sh"

T=$TRASH_DIRECTORY
test_private_store
test_private_conf 'trusted-users = root'
SOCK=$T/sock
D="unix://$SOCK?store=$CIX_STORE_DIR&log=$CIX_LOG_DIR"
NIX_CONFIG="$NIX_CONFIG
sandbox = false"

# Two build users of our own, and the unprivileged client nobody.
G=cixf$$
if [ "$(id -u)" = 0 ] && command -v useradd >/dev/null && command -v runuser >/dev/null &&
   id nobody >/dev/null 2>&1 && groupadd -r $G 2>/dev/null; then
	trap 'pkill -9 -f -- "cix-daemon --listen $SOCK" 2>/dev/null
	      userdel ${G}a 2>/dev/null; userdel ${G}b 2>/dev/null; groupdel $G 2>/dev/null' EXIT
	for u in a b; do
		useradd -r -g $G -G $G -M -N -d /var/empty -s /usr/sbin/nologin $G$u || exit 1
	done
	test_set_prereq BUILDUSERS
fi
chmod 755 "$T"
nb () { runuser -u nobody -- env HOME="$T/nb" XDG_CACHE_HOME="$T/nb" "$@"; }

# The daemon's secrets: readable by root alone.
printf 'the root password\n' >secret && chmod 600 secret
# A world-readable file the sandbox shows (it binds /usr for cix-builtin).
PUBLIC=/usr/share/common-licenses/GPL-3
# The daemon's content-addressed mirror, readable by all.
mkdir -p cas/sha256 && printf 'from the mirror\n' >mirrored.txt &&
cp mirrored.txt "cas/sha256/$(sha256sum mirrored.txt | cut -d" " -f1)"
ZERO=0000000000000000000000000000000000000000000000000000
flat () { nix-hash --type sha256 --flat --base32 "$1"; }

# fetch_drv URL HASH: the .drv of Nix's <nix/fetchurl.nix> for them, written as nobody.
fetch_drv () {
	nb nix-instantiate --store "$D" -E "import <nix/fetchurl.nix> { url = \"$1\"; sha256 = \"$2\"; }" 2>/dev/null
}

test_expect_success NIX,BUILDUSERS 'a daemon with build users' '
	test_start_daemon "$SOCK" CIX_BUILD_USERS_GROUP=$G CIX_CAS_DIRS="$T/cas" \
		CIX_MIRRORS_FILE=/dev/null &&
	nix-store --store "$D" --check-validity
'

test_expect_success NIX,BUILDUSERS 'a root-only file is not read, nor its hash told, for nobody' '
	real=$(flat secret) &&
	d=$(fetch_drv "file://$T/secret" $ZERO) &&
	test_must_fail nb nix-store --store "$D" -r "$d" >out 2>err &&
	cat err && ! grep -q "$real" err && ! grep -rqs "$real" log &&
	d2=$(fetch_drv "file://$T/secret" "$real") &&
	test_must_fail nb nix-store --store "$D" -r "$d2" 2>err2 &&
	out=$(nix-store --store "$D" -q --outputs "$d2") &&
	test ! -e "$out" &&
	! grep -rqs "the root password" store
'

test_expect_success NIX,BUILDUSERS 'nor for root: the fetch runs as a build user in the sandbox' '
	d=$(fetch_drv "file://$T/secret" "$(flat secret)") &&
	test_must_fail nix-store --store "$D" -r "$d" 2>err &&
	out=$(nix-store --store "$D" -q --outputs "$d") &&
	test ! -e "$out"
'

test_expect_success NIX,BUILDUSERS 'file:// URLs are refused for an untrusted client' '
	d=$(fetch_drv "file://$PUBLIC" "$(flat $PUBLIC)") &&
	test_must_fail nb nix-store --store "$D" -r "$d" 2>err &&
	grep "file:// urls are not allowed" err
'

test_expect_success NIX,BUILDUSERS 'a trusted client fetches what the sandbox shows' '
	d=$(fetch_drv "file://$PUBLIC" "$(flat $PUBLIC)") &&
	out=$(nix-store --store "$D" -r "$d") &&
	cmp $PUBLIC "$out" &&
	test "$(stat -c "%u %a" "$out")" = "0 444"
'

test_expect_success NIX,BUILDUSERS 'the content-addressed mirror serves nobody, as a build user' '
	d=$(fetch_drv "mirror://gnu/none/mirrored.txt" "$(flat mirrored.txt)") &&
	out=$(nb nix-store --store "$D" -r "$d") &&
	cmp mirrored.txt "$out"
'

test_expect_success NIX,BUILDUSERS 'host names resolve in the sandbox (curl'"'"'s resolver thread)' '
	d=$(fetch_drv "http://name.invalid/none" $ZERO) &&
	test_must_fail nix-store --store "$D" -r "$d" 2>err &&
	cat err &&
	! grep "thread failed to start" err &&
	grep "resolve host" err
'

test_done
