#!/bin/sh
# t4010-mirror.sh - scripts/fill-mirror, and downloads served from its mirror
# SPDX-License-Identifier: GPL-3.0-or-later
test_description='fill-mirror: Debian orig tarballs in the content-addressed mirror, fetched offline by builtin:fetchurl'
real_home=${HOME:-/root}
. "$(dirname "$0")/test-lib.sh"

FM=$CIX_SRC_DIR/scripts/fill-mirror
# The published sha256 of upstream's hello-2.10.tar.gz (doc/bootstrap.md, section 7).
HELLO=31e066137a962676e89f69d1b65382de95a7ef7d914b8cb956f41ea72e0f516b
# The source indices fill-mirror may keep stay in the real cache.
XDG_CACHE_HOME=${XDG_CACHE_HOME:-$real_home/.cache}
export XDG_CACHE_HOME

if "$FM" -d mirror hello >fill.out 2>fill.err; then
	test_set_prereq APTSRC
else
	say "skip: apt-get source does not work here ($(tail -1 fill.err))"
fi

test_expect_success APTSRC 'hello lands under its sha256, and its line is printed' '
	test_path_is_file mirror/sha256/$HELLO &&
	test "$(sha256sum <mirror/sha256/$HELLO | cut -d" " -f1)" = $HELLO &&
	test "$(stat -c %a mirror/sha256/$HELLO)" = 644 &&
	echo "sha256 $(cix hash mirror/sha256/$HELLO)  hello-2.10.tar.gz" >expect &&
	test_cmp expect fill.out &&
	ls mirror/sha256 >files && test_line_count = 1 files
'

test_expect_success APTSRC 'a second run keeps the file; a corrupt one is replaced' '
	ls -i mirror/sha256/$HELLO >ino1 &&
	"$FM" --no-update -d mirror hello >fill2.out 2>/dev/null &&
	test_cmp fill.out fill2.out &&
	ls -i mirror/sha256/$HELLO >ino2 && test_cmp ino1 ino2 &&
	chmod u+w mirror/sha256/$HELLO && echo bad >mirror/sha256/$HELLO &&
	"$FM" --no-update -d mirror hello >fill3.out 2>err &&
	grep "is not its name" err &&
	test "$(sha256sum <mirror/sha256/$HELLO | cut -d" " -f1)" = $HELLO
'

test_expect_success APTSRC 'bad arguments and unknown packages fail cleanly' '
	test_expect_code 2 "$FM" -d mirror 2>err &&
	test_expect_code 1 "$FM" -d mirror "../x" 2>err &&
	test_expect_code 1 "$FM" --no-update -d mirror no-such-source-package-cix 2>err &&
	grep "cannot download the sources of no-such-source-package-cix" err &&
	"$FM" --help >help && grep "sha256/<base16 sha256" help
'

test_expect_success 'the deb-src entries for another release: only those of the system'"'"'s own, with it in their stead' '
	cat >one.list <<-\EOF &&
	deb http://example.invalid/debian bookworm main
	deb [signed-by=/k.gpg] http://example.invalid/debian bookworm main contrib
	deb http://example.invalid/debian-security bookworm-security main
	EOF
	printf "%s\n" "Types: deb" "URIs: http://example.invalid/debian" \
		"Suites: bookworm bookworm-updates" "Components: main" "" \
		"Types: deb" "URIs: http://example.invalid/debian-security" \
		"Suites: bookworm-security" "Components: main" >two.sources &&
	own=$(. /etc/os-release 2>/dev/null && echo "${VERSION_CODENAME:-}") &&
	test -n "$own" &&
	sed -i "s/bookworm/$own/g" one.list two.sources &&
	# (a bash library: the scripts that source it are bash scripts)
	bash -c ". \"\$1\" &&
		debian_src_entries list one.list trixie >one.out &&
		debian_src_entries sources two.sources trixie >two.out &&
		debian_src_entries list one.list \"\" >one.all" - \
		"$CIX_SRC_DIR/scripts/debian-source.sh" &&
	cat >one.expect <<-\EOF &&
	deb-src http://example.invalid/debian trixie main
	deb-src [signed-by=/k.gpg] http://example.invalid/debian trixie main contrib
	EOF
	test_cmp one.expect one.out &&
	grep -x "Types: deb-src" two.out && grep -x "Suites: trixie" two.out &&
	grep -x "URIs: http://example.invalid/debian" two.out &&
	! grep security two.out &&
	test_line_count = 3 one.all && ! grep "^deb " one.all
'

test_private_store
N="local?store=$CIX_STORE_DIR&real=$TRASH_DIRECTORY/nixreal&state=$TRASH_DIRECTORY/nixstate&log=$TRASH_DIRECTORY/nixlog"

test_expect_success APTSRC,NIX 'builtin:fetchurl of mirror://gnu/... is served offline by the mirror' '
	h=$(nix-hash --type sha256 --flat --base32 mirror/sha256/$HELLO) &&
	d=$(nix-instantiate --store "$N" -E "import <nix/fetchurl.nix> { url = \"mirror://gnu/hello/hello-2.10.tar.gz\"; sha256 = \"$h\"; }" 2>inst.err) &&
	nix-store --store "$N" --export "$d" | cix store --import >/dev/null &&
	# The only gnu mirror refuses connections: nothing but the mirror can serve it.
	echo "gnu http://127.0.0.1:1/gnu/" >mirrors &&
	CIX_MIRRORS_FILE=$TRASH_DIRECTORY/mirrors && export CIX_MIRRORS_FILE &&
	test_expect_code 1 cix store -r "$d" 2>err &&
	out=$(CIX_CAS_DIRS=$TRASH_DIRECTORY/mirror cix store -r "$d" 2>fetch.log) &&
	case $out in "$CIX_STORE_DIR"/*-hello-2.10.tar.gz) ;; *) false ;; esac &&
	test "$out" = "$(nix-store --store "$N" -q --outputs "$d")" &&
	cmp mirror/sha256/$HELLO "$out" &&
	cix store --verify-path "$out" &&
	test "$(cix store -q --deriver "$out")" = "$d"
'

test_done
