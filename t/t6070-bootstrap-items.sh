#!/bin/sh
# t6070-bootstrap-items.sh - plain paths from binary caches: bootstrap items, the substitute questions, cix store -r
# SPDX-License-Identifier: GPL-3.0-or-later
test_description='a package built from a bootstrap item (a file named by its hash only) that is not in the store: the item is taken from STATE/bootstrap when it has that hash, else fetched from the binary caches (directly, or by cix-daemon for its clients by EnsurePath); with neither, a one-line error. Also what else asks the caches for plain paths: the substitute questions of the worker protocol (Nix 2.8 nix-env --status, raw ops 3, 21, 30, 32) and cix store -r'
. "$(dirname "$0")/test-lib.sh"

. "$CIX_SRC_DIR/t/lib-subst.sh"

test_expect_success STATIC 'no item and no cache: a one-line error, nothing built' '
	test_must_fail cix build subboot 2>err &&
	grep -q "is not in the store: make the bootstrap binaries first" err &&
	test $(wc -l <err) = 1
'

test_expect_success STATIC 'a file of another hash in STATE/bootstrap is not taken' '
	mkdir -p state/bootstrap &&
	echo other >state/bootstrap/mkpkg && chmod +x state/bootstrap/mkpkg &&
	test_must_fail cix build subboot 2>err &&
	grep -q "is not in the store" err &&
	test -z "$(ls store | grep -- "-mkpkg$")"
'

test_expect_success STATIC 'the item in STATE/bootstrap: added, and the package built' '
	cp "$MKPKG" state/bootstrap/mkpkg &&
	BOOT=$(cix build subboot) &&
	test "$(cat "$BOOT/bin/subboot")" = "subboot 3" &&
	ls store | grep -q -- "-mkpkg$" &&
	test "$(cix hash -r "$CIX_STORE_DIR/$(ls store | grep -- "-mkpkg$")")" = "$MKPKG_HASH" &&
	echo "$BOOT" >boot.path
'

test_expect_success STATIC,CURL,MOUNTNS 'a second machine without the file: evaluating needs no seed, and the package comes from a cache, nothing built' '
	cix archive --generate-key=machine1-1 &&
	start_publish p1 &&
	mkdir -p conf2 &&
	cix archive --public-key | CIX_CONF_DIR=$T/conf2 cix archive --authorize &&
	fresh2 &&
	on2 cix build -d subboot >drv &&
	test "$(cix build -d subboot)" = "$(cat drv)" &&
	test_must_fail on2 cix build subboot 2>err &&
	grep -q "is not in the store" err &&
	fresh2 &&
	on2 cix build --substitute-urls="$(cat p1.url)" subboot >out 2>err &&
	test "$(cat out)" = "$(cat boot.path)" &&
	! grep -q -- "-mkpkg" err &&
	test "$(built2)" = 0 &&
	on2 cix store --verify --check-contents
'

test_expect_success STATIC,CURL,MOUNTNS 'a package no cache has: its seed fetched from the cache when its build needs it' '
	fresh2 &&
	on2 cix build --substitute-urls="$(cat p1.url)" subboot2 >out 2>err &&
	test "$(on2 cat "$(cat out)/bin/subboot2")" = "subboot2 3" &&
	grep -q "substituting .*-mkpkg" err &&
	test "$(built2)" = 1
'

test_expect_success STATIC,CURL,MOUNTNS 'through cix-daemon: its caches give the package, or the seed for a build' '
	fresh2 && echo "--substitute-urls=$(cat p1.url)" >dopts &&
	on2d cix build subboot >out &&
	test "$(cat out)" = "$(cat boot.path)" &&
	test "$(built2)" = 0 &&
	on2d cix build subboot2 >out &&
	test "$(built2)" = 1 &&
	on2 sh -c "ls \$CIX_STORE_DIR" | grep -q -- "-mkpkg$"
'

test_expect_success STATIC,CURL,MOUNTNS 'through cix-daemon: the caches the client names (a fresh machine, cix build --substitute-urls)' '
	fresh2 && echo >dopts &&
	on2d cix build --substitute-urls="$(cat p1.url)" subboot2 >out &&
	test "$(on2 cat "$(cat out)/bin/subboot2")" = "subboot2 3" &&
	test "$(built2)" = 1 &&
	on2 sh -c "ls \$CIX_STORE_DIR" | grep -q -- "-mkpkg$"
'

# Nix 2.8 as a client of the second machine's daemon: nix-env -qa --status
# asks QuerySubstitutablePaths (S: a cache has it) of a fixed-output
# derivation whose output is the item, not valid there.
test_expect_success STATIC,CURL,MOUNTNS,NIX 'Nix through cix-daemon: the item is substitutable (QuerySubstitutablePaths)' '
	cat >item.nix <<-EOF &&
	derivation { name = "mkpkg"; system = "x86_64-linux"; builder = "/bin/false";
	  outputHashMode = "recursive"; outputHashAlgo = "sha256"; outputHash = "$MKPKG_HASH"; }
	EOF
	cat >nixq <<-\EOF &&
	NIX_REMOTE="unix://$CIX_STATE_DIR/sock?store=$CIX_STORE_DIR" NIX_STORE_DIR=$CIX_STORE_DIR \
	NIX_STATE_DIR=$1/nixstate NIX_CONF_DIR=$1 NIX_CONFIG= \
	exec nix-env -f "$1/item.nix" -qa --status -p "$1/nixprof"
	EOF
	fresh2 && echo "--substitute-urls=$(cat p1.url)" >dopts &&
	on2d sh nixq "$T" >status &&
	grep -q "^--S  *mkpkg$" status &&
	fresh2 && echo >dopts &&
	on2d sh nixq "$T" >status &&
	grep -q "^---  *mkpkg$" status
'

# subst.pl SOCKET PATH: the substitute questions of the worker protocol
# about PATH, asked raw: HasSubstitutes (3), QuerySubstitutablePathInfo
# (21), QuerySubstitutablePathInfos (30, a map at 1.34) and
# QuerySubstitutablePaths (32); one line each.
cat >subst.pl <<\EOF
use strict;
use warnings;
no warnings 'portable';
use IO::Socket::UNIX;
use Socket qw(SOCK_STREAM);
my ($sock, $path) = @ARGV;
$SIG{ALRM} = sub { print "timeout\n"; exit 3; };
alarm 30;
my $s = IO::Socket::UNIX->new(Type => SOCK_STREAM, Peer => $sock) or die "connect: $!\n";
sub u64 { pack 'Q<', $_[0] }
sub str { my $x = shift; u64(length $x) . $x . ("\0" x ((8 - length($x) % 8) % 8)) }
sub get { my $n = shift; my $b = ''; while (length $b < $n) { my $r = sysread($s, $b, $n - length $b, length $b); die "eof\n" if !$r; } $b }
sub gu { unpack 'Q<', get(8) }
sub gs { my $n = gu(); substr(get($n + (8 - $n % 8) % 8), 0, $n) }
sub gl { my $n = gu(); join(',', map { gs() } 1 .. $n) }
sub last_ { while (1) { my $f = gu(); return if $f == 0x616c7473; if ($f == 0x6f6c6d67) { gs(); next; } die sprintf("frame %x\n", $f); } }
syswrite($s, u64(0x6e697863));
gu(); gu();
syswrite($s, u64(0x122) . u64(0) . u64(0));
gs(); last_();
syswrite($s, u64(3) . str($path)); last_(); print "has ", gu(), "\n";
syswrite($s, u64(21) . str($path)); last_();
if (gu()) { print "info 1 ", gs(), " ", gl(), " ", gu(), " ", gu(), "\n" } else { print "info 0\n" }
syswrite($s, u64(30) . u64(1) . str($path) . str('')); last_();
my $n = gu(); print "infos $n\n";
print "  ", gs(), " ", gs(), " ", gl(), " ", gu(), " ", gu(), "\n" for 1 .. $n;
syswrite($s, u64(32) . u64(1) . str($path)); last_(); print "paths ", gl(), "\n";
EOF

test_expect_success STATIC,CURL,MOUNTNS 'the substitute questions, raw: the narinfo of the cache, or nothing' '
	APP=$(cix build subapp) &&
	file_size=$(curl -sf "$(cat p1.url)/$(basename "$APP" | cut -c1-32).narinfo" |
		sed -n "s/^FileSize: //p") &&
	# (cix publish without --cache compresses on the fly: no FileSize, 0.)
	info="$(cix store -q --deriver "$APP") $(cix store -q --references "$APP" | paste -sd,) ${file_size:-0} $(cix store -q --size "$APP")" &&
	fresh2 && echo "--substitute-urls=$(cat p1.url)" >dopts &&
	on2d sh -c "perl \"\$0/subst.pl\" \"\$CIX_STATE_DIR/sock\" \"\$1\"" "$T" "$APP" >raw &&
	cat >expect <<-EOF &&
	has 1
	info 1 $info
	infos 1
	  $APP $info
	paths $APP
	EOF
	test_cmp expect raw &&
	fresh2 && echo >dopts &&
	on2d sh -c "perl \"\$0/subst.pl\" \"\$CIX_STATE_DIR/sock\" \"\$1\"" "$T" "$APP" >raw &&
	printf "has 0\ninfo 0\ninfos 0\npaths \n" >expect &&
	test_cmp expect raw
'

test_expect_success STATIC,CURL,MOUNTNS 'cix store -r of a plain path: from --substitute-urls, or the daemon caches' '
	APP=$(cix build subapp) && fresh2 &&
	test_must_fail on2 cix store -r "$APP" 2>err &&
	grep -q "is not valid and has no derivation here" err && test $(wc -l <err) = 1 &&
	test_must_fail on2 cix store -r --no-substitutes --substitute-urls="$(cat p1.url)" "$APP" &&
	on2 cix store -r --substitute-urls="$(cat p1.url)" "$APP" >out &&
	test "$(cat out)" = "$APP" &&
	on2 cix store --check-validity "$APP" &&
	fresh2 && echo "--substitute-urls=$(cat p1.url)" >dopts &&
	on2d cix store -r "$APP" >out &&
	test "$(cat out)" = "$APP" &&
	on2 cix store --verify --check-contents
'

test_expect_success STATIC,CURL,MOUNTNS 'cix package too, from STATE/bootstrap on the second machine' '
	fresh2 && mkdir -p state2/bootstrap && cp "$MKPKG" state2/bootstrap/mkpkg &&
	on2 cix package -p "$T/prof2" -i subboot &&
	on2 cat "$T/prof2/bin/subboot" >run &&
	test "$(cat run)" = "subboot 3" &&
	test -n "$(find log2 -type f -name "*-subboot-3.drv*")"
'

test_expect_success STATIC,CURL 'the publisher is stopped' '
	stop_publish p1
'

test_done
