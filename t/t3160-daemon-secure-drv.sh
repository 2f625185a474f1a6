#!/bin/sh
# t3160-daemon-secure-drv.sh - no user squats the outputs of another's derivation
# SPDX-License-Identifier: GPL-3.0-or-later
test_description='a .drv claiming outputs that are not its own is refused, however it comes'
. "$(dirname "$0")/test-lib.sh"

# The idea of Nix's tests/secure-drv-outputs.sh: an unprivileged user
# writes a derivation whose output path is another derivation's, and adds
# it as a plain file (AddToStore), not as text. Building it would put the
# user's content where the other derivation's output belongs.

T=$TRASH_DIRECTORY
test_private_store
test_private_conf 'trusted-users = root'
test_sandbox_host_paths
N="local?store=$CIX_STORE_DIR&real=$T/nixreal&state=$T/nixstate&log=$T/nixlog"
nixs () { nix-store --store "$N" "$@"; }
SOCK=$T/sock
D="unix://$SOCK?store=$CIX_STORE_DIR&log=$CIX_LOG_DIR"
dst () { nix-store --store "$D" "$@"; }

[ "$(id -u)" = 0 ] && command -v runuser >/dev/null && id nobody >/dev/null 2>&1 &&
	test_set_prereq NOBODY
[ -x /usr/bin/perl ] && test_set_prereq PERL

# nb CMD...: CMD as the unprivileged user nobody.
nb () { runuser -u nobody -- env HOME="$T/nb" XDG_CACHE_HOME="$T/nb" "$@"; }

# raw.pl SOCKET OP ...: one raw client at protocol 1.34; prints the path
# added, or the daemon's error.
#   add NAME FILE JUNK [METHOD]: AddToStore (default fixed:r:sha256) of
#     the NAR of FILE (of its bytes for a flat METHOD), followed by JUNK
#     inside the framed data
#   nar PATH DERIVER CA FILE JUNK: AddToStoreNar likewise
cat >raw.pl <<\EOF
use strict;
use warnings;
use IO::Socket::UNIX;
use Digest::SHA qw(sha256_hex);
my ($path, $op, @a) = @ARGV;
$SIG{ALRM} = sub { print "timeout\n"; exit 3; };
alarm 30;
my $s = IO::Socket::UNIX->new(Peer => $path) or die "connect: $!\n";
sub u64 { pack 'Q<', $_[0] }
sub str { my $x = shift; u64(length $x) . $x . ("\0" x ((8 - length($x) % 8) % 8)) }
sub rd { my $n = shift; my $b = ''; while (length $b < $n) { my $k = sysread($s, $b, $n - length $b, length $b); die "eof\n" unless $k; } $b }
sub ru64 { unpack 'Q<', rd(8) }
sub rstr { my $n = ru64(); my $x = rd($n + (8 - $n % 8) % 8); substr($x, 0, $n) }
sub frames {
	while (1) {
		my $f = ru64();
		return if $f == 0x616c7473;
		if ($f == 0x6f6c6d67) { rstr(); next; }
		if ($f == 0x63787470) { rstr(); ru64(); rstr(); my $m = rstr(); print "error: $m\n"; exit 1; }
		die sprintf("unexpected frame %x\n", $f);
	}
}
sub slurp { open my $fh, '<', $_[0] or die "$_[0]: $!\n"; local $/; my $d = <$fh>; $d }
sub nar { str("nix-archive-1") . str("(") . str("type") . str("regular") . str("contents") . str($_[0]) . str(")") }
print $s u64(0x6e697863);
ru64(); ru64();
print $s u64(0x122) . u64(0) . u64(0);
rstr();
frames();
if ($op eq 'add') {
	my ($name, $file, $junk, $method) = @a;
	$method //= "fixed:r:sha256";
	my $data = ($method =~ /^fixed:r:/ ? nar(slurp($file)) : slurp($file)) . $junk;
	print $s u64(7) . str($name) . str($method) . u64(0) . u64(0)
		. u64(length $data) . $data . u64(0);
	frames();
	print rstr(), "\n";
} elsif ($op eq 'nar') {
	my ($p, $deriver, $ca, $file, $junk) = @a;
	my $nar = nar(slurp($file));
	my $data = $nar . $junk;
	print $s u64(39) . str($p) . str($deriver) . str(sha256_hex($nar)) . u64(0) . u64(0)
		. u64(length $nar) . u64(0) . u64(0) . str($ca) . u64(0) . u64(0)
		. u64(length $data) . $data . u64(0);
	frames();
	print "$p\n";
}
EOF
RAW="perl $T/raw.pl $SOCK"

test_expect_success NIX,NOBODY 'setup: a daemon; nobody instantiates two derivations' '
	test_start_daemon "$SOCK" &&
	chmod 755 "$T" && mkdir -p nb && chmod 777 nb &&
	cat >nb/d.nix <<-\EOF &&
	let sys = "x86_64-linux"; sh = "/bin/sh";
	    mk = name: text: derivation { inherit name; system = sys; builder = sh;
	      args = [ "-c" "echo ${text} > $out" ]; };
	in {
	  good = mk "secure" "good";
	  bad = mk "secure" "bad";
	  good2 = mk "victim" "good";
	  bad2 = mk "victim" "bad";
	  bad3 = mk "secure" "imported";
	  multi = derivation { name = "multi"; system = sys; builder = sh; outputs = [ "out" "doc" ];
	    args = [ "-c" "echo m > $out; echo d > $doc" ]; };
	  fod = derivation { name = "fod"; system = sys; builder = sh;
	    outputHashMode = "recursive"; outputHashAlgo = "sha256";
	    outputHash = "0000000000000000000000000000000000000000000000000000";
	    args = [ "-c" "exit 1" ]; };
	  user = derivation { name = "user"; system = sys; builder = sh;
	    args = [ "-c" "cat ${(mk "secure" "good")} > $out" ]; };
	}
	EOF
	for x in good bad good2 bad2 multi fod user; do
		nb nix-instantiate --store "$D" nb/d.nix -A $x >$x.drv 2>inst.err ||
		{ cat inst.err; return 1; }
	done &&
	goodOut=$(dst -q --outputs $(cat good.drv)) &&
	badOut=$(dst -q --outputs $(cat bad.drv)) &&
	test "$goodOut" != "$badOut" &&
	echo "$goodOut" >good.out && echo "$badOut" >bad.out &&
	# the bad derivation, edited to claim the good one'"'"'s output
	sed -e "s|$badOut|$goodOut|g" $(cat bad.drv) >nb/secure.drv &&
	grep -F "$goodOut" nb/secure.drv && ! grep -F "$badOut" nb/secure.drv
'

test_expect_success NIX,NOBODY 'nobody adds it with --add, --add-fixed sha256 and -r: each refused' '
	for how in "--add" "--add-fixed sha256" "--add-fixed --recursive sha256"; do
		if p=$(nb nix-store --store "$D" $how nb/secure.drv 2>add.err); then
			echo "added with $how: $p"
			# what the attack would do next
			nb nix-store --store "$D" --realise "$p" >/dev/null 2>&1
			echo "$p" >>squatted
		else
			cat add.err &&
			grep "output .out. has path .*, should be" add.err || return 1
		fi
	done &&
	test_path_is_missing squatted &&
	flat=$(nix-hash --type sha256 --flat --base32 nb/secure.drv) &&
	rec=$(nix-hash --type sha256 --base32 nb/secure.drv) &&
	for p in $(nix-store --print-fixed-path sha256 $flat secure.drv) \
		 $(nix-store --print-fixed-path --recursive sha256 $rec secure.drv); do
		test_must_fail cix store --check-validity "$p" || return 1
	done
'

# (Nix 2.8'"'"'s --add-fixed of a file sends AddToStoreNar: a flat AddToStore
# is made by hand.)
test_expect_success NIX,PERL,NOBODY 'nobody adds it with a flat AddToStore: refused' '
	for m in fixed:sha256 fixed:sha1 fixed:r:sha512; do
		if nb $RAW add secure.drv nb/secure.drv "" $m >raw.out; then
			echo "added with $m: $(cat raw.out)"
			nb nix-store --store "$D" --realise "$(cat raw.out)" >/dev/null 2>&1
			return 1
		fi
		cat raw.out &&
		grep "^error: derivation .* is refused: output .out. has path .*, should be" raw.out ||
		return 1
	done
'

test_expect_success NIX,NOBODY 'the good derivation then builds its own content' '
	nb nix-store --store "$D" --realise $(cat good.drv) >r.out 2>r.err &&
	test_cmp good.out r.out &&
	test "$(cat $(cat good.out))" = good
'

test_expect_success NIX,NOBODY 'correct derivations added as files: multiple outputs, input derivations, fixed output' '
	# (named as the derivation: the name is part of what gives the outputs)
	for x in good:secure multi:multi fod:fod user:user; do
		name=${x#*:} x=${x%:*} &&
		mkdir -p nb/$x && cp $(cat $x.drv) nb/$x/$name.drv && chmod 644 nb/$x/$name.drv &&
		nb nix-store --store "$D" --add nb/$x/$name.drv >add.out 2>add.err &&
		nb nix-store --store "$D" --add-fixed sha256 nb/$x/$name.drv >>add.out 2>>add.err &&
		test_line_count = 2 add.out &&
		test "$(dst -q --outputs $(head -n 1 add.out))" = "$(dst -q --outputs $(cat $x.drv))" ||
		{ cat add.err; return 1; }
	done
'

test_expect_success NIX,NOBODY 'a wrong .drv that is in the store anyway is never built' '
	good2Out=$(dst -q --outputs $(cat good2.drv)) &&
	bad2Out=$(dst -q --outputs $(cat bad2.drv)) &&
	# the derivation is edited in place, behind the store'"'"'s back
	f=$(cat bad2.drv) && sed -e "s|$bad2Out|$good2Out|g" "$f" >edited &&
	chmod u+w "$f" && cat edited >"$f" && chmod 444 "$f" &&
	test_must_fail nb nix-store --store "$D" --realise "$f" >r2.out 2>r2.err &&
	cat r2.err &&
	grep "output .out. has path .*, should be" r2.err &&
	test_must_fail cix store --check-validity "$good2Out" &&
	nb nix-store --store "$D" --realise $(cat good2.drv) >r3.out &&
	test "$(cat $(cat r3.out))" = good
'

test_expect_success NIX,PERL,NOBODY 'AddToStore: bytes after the NAR are refused' '
	echo "just a file" >nb/plain && echo "another file" >nb/junked &&
	nb $RAW add plain nb/plain "" >raw.out &&
	test "$(cat raw.out)" = "$(nixs --add nb/plain)" &&
	cp nb/junked nb/plain2 &&
	p=$(nixs --add nb/plain2) &&
	test_must_fail nb $RAW add plain2 nb/plain2 "after the archive" >raw.out &&
	cat raw.out &&
	grep "^error: .*after the archive" raw.out &&
	test_must_fail cix store --check-validity "$p"
'

test_expect_success NIX,PERL,NOBODY 'AddToStoreNar: bytes after the NAR are refused' '
	echo "a nar" >nb/nar1 &&
	p=$(nixs --add nb/nar1) && ca="fixed:r:$(nixs -q --hash "$p")" &&
	test_must_fail nb $RAW nar "$p" "" "$ca" nb/nar1 "JUNKJUNK" >raw.out &&
	cat raw.out &&
	grep "^error: .*after the archive" raw.out &&
	test_must_fail cix store --check-validity "$p" &&
	nb $RAW nar "$p" "" "$ca" nb/nar1 "" >raw.out &&
	cix store --check-validity "$p"
'

test_expect_success NIX,PERL,NOBODY 'AddToStoreNar: nobody cannot name a derivation that did not make the path' '
	echo "claimed" >nb/claimed &&
	p=$(nixs --add nb/claimed) && ca="fixed:r:$(nixs -q --hash "$p")" &&
	nb $RAW nar "$p" "$(cat good.drv)" "$ca" nb/claimed "" >raw.out &&
	test "$(dst -q --deriver "$p")" = unknown-deriver &&
	test "$(cix store -q --deriver "$p")" = unknown-deriver
'

test_expect_success NIX,PERL,NOBODY 'AddToStoreNar: the fixed-output derivation of the path stays its deriver' '
	mkdir -p fod && echo "fixed content" >fod/fod &&
	p=$(nixs --add fod/fod) && h=$(nixs -q --hash "$p") &&
	ca="fixed:r:$h" &&
	sed -e "s|0000000000000000000000000000000000000000000000000000|${h#sha256:}|" \
		nb/d.nix >nb/fod.nix &&
	nb nix-instantiate --store "$D" nb/fod.nix -A fod >fod.drv 2>/dev/null &&
	test "$(dst -q --outputs $(cat fod.drv))" = "$p" &&
	cp fod/fod nb/fodfile &&
	nb $RAW nar "$p" "$(cat fod.drv)" "$ca" nb/fodfile "" >raw.out &&
	test "$(dst -q --deriver "$p")" = "$(cat fod.drv)"
'

test_expect_success NIX 'locally (no daemon), cix store --add of the wrong .drv is refused' '
	wrong= &&
	for how in "--add" "--add-fixed sha256" "--add-fixed --recursive sha256"; do
		if env -u CIX_DAEMON_SOCKET cix store $how nb/secure.drv >l.out 2>l.err; then
			echo "added with $how: $(cat l.out)" && wrong=1
		else
			cat l.err && grep "output .out. has path .*, should be" l.err || wrong=1
		fi
	done &&
	test -z "$wrong"
'

test_expect_success NIX 'an export stream carrying a wrong .drv is not imported' '
	bad3=$(nix-instantiate --store "$N" nb/d.nix -A bad3 2>/dev/null) &&
	bad3Out=$(nixs -q --outputs "$bad3") &&
	test_must_fail cix store --check-validity "$bad3" &&
	nixs --export "$bad3" >right.export &&
	# the same stream, the derivation claiming the good output
	perl -0777 -pe "s|\Q$bad3Out\E|$(cat good.out)|g" right.export >wrong.export &&
	! cmp -s right.export wrong.export &&
	test_must_fail env -u CIX_DAEMON_SOCKET cix store --import <wrong.export 2>i.err &&
	cat i.err && grep "output .out. has path .*, should be" i.err &&
	test_must_fail dst --import <wrong.export 2>i.err &&
	cat i.err && grep "output .out. has path .*, should be" i.err &&
	test_must_fail cix store --check-validity "$bad3" &&
	dst --import <right.export &&
	cix store --check-validity "$bad3"
'

test_done
