#!/bin/sh
# t3010-daemon-protocol.sh - hostile clients of cix-daemon (doc/security.md item 14)
# SPDX-License-Identifier: GPL-3.0-or-later
test_description='cix-daemon: raw hostile bytes end one connection, never the daemon'
. "$(dirname "$0")/test-lib.sh"

T=$TRASH_DIRECTORY
test_private_store
test_private_conf
SOCK=$T/sock
D="unix://$SOCK?store=$CIX_STORE_DIR&log=$CIX_LOG_DIR"
[ -x /usr/bin/perl ] && test_set_prereq PERL

# hostile.pl SOCKET SCENARIO: one raw client; prints what it saw.
cat >hostile.pl <<\EOF
use strict;
use warnings;
no warnings 'portable';
use IO::Socket::UNIX;
use Socket qw(SOCK_STREAM SHUT_WR);

my ($path, $what) = @ARGV;
$SIG{ALRM} = sub { print "timeout\n"; exit 3; };
alarm 20;

sub conn { IO::Socket::UNIX->new(Type => SOCK_STREAM, Peer => $path) or die "connect: $!\n"; }
require "$ENV{CIX_SRC_DIR}/t/lib-wire.pl";
# The rest of the connection: "eof N" with the number of bytes before it.
sub drain {
	my $s = shift;
	my ($n, $buf) = (0, '');
	while (1) {
		my $r = sysread($s, $buf, 65536);
		last if !$r;
		$n += $r;
	}
	print "eof $n\n";
}
# Frames until STDERR_LAST or an error: prints an error's fields.
sub frames {
	my $s = shift;
	while (1) {
		my $f = get_u64($s);
		if (!defined $f) { print "eof in frames\n"; return 0; }
		return 1 if $f == 0x616c7473;
		if ($f == 0x63787470) {
			my ($e1, $lvl, $e2, $msg, $pos, $traces) =
				(get_str($s), get_u64($s), get_str($s), get_str($s), get_u64($s), get_u64($s));
			print "error [$e1] $lvl [$e2] $msg pos=$pos traces=$traces\n";
			return 0;
		}
		if ($f == 0x6f6c6d67) { get_str($s); next; }
		printf "unexpected frame %x\n", $f;
		return 0;
	}
}
sub handshake {
	my $s = conn();
	put($s, u64(0x6e697863));
	my ($m, $v) = (get_u64($s), get_u64($s));
	die "bad daemon magic\n" unless defined $m && $m == 0x6478696f && defined $v;
	put($s, u64(0x122) . u64(0) . u64(0));
	my $ver = get_str($s);
	die "no version\n" unless defined $ver;
	frames($s) or die "handshake failed\n";
	$s;
}

my $s;
if ($what eq 'valid') {          # a well-behaved query: IsValidPath P
	$s = handshake();
	put($s, u64(1) . str($ARGV[2]));
	frames($s) and print "valid ", get_u64($s), "\n";
	exit 0;
} elsif ($what eq 'badmagic') {
	$s = conn();
	put($s, u64(0x6e697864) . u64(0x122));
} elsif ($what eq 'oldversion') {
	$s = conn();
	put($s, u64(0x6e697863));
	get($s, 16);
	put($s, u64(0x109) . u64(0) . u64(0));
} elsif ($what eq 'badop') {
	$s = handshake();
	put($s, u64(12345));
	frames($s);
} elsif ($what eq 'hugestr63' || $what eq 'hugestr64') {
	$s = handshake();
	my $len = $what eq 'hugestr63' ? (1 << 63) : 0xfffffffffffffff8;
	put($s, u64(26) . u64($len) . ('A' x 4096));
} elsif ($what eq 'hugename') {  # AddTextToStore: a name of 2^63 bytes
	$s = handshake();
	put($s, u64(8) . u64(1 << 63));
} elsif ($what eq 'eofmid') {
	$s = handshake();
	put($s, u64(26) . u64(40) . 'abcdefghij');
	shutdown($s, SHUT_WR);
} elsif ($what eq 'eofu64') {
	$s = handshake();
	put($s, u64(26) . 'abc');
	shutdown($s, SHUT_WR);
} elsif ($what eq 'badpad') {
	$s = handshake();
	put($s, u64(26) . u64(5) . "abcde\0\0x");
} elsif ($what eq 'badbool') {  # VerifyStore checkContents = 2
	$s = handshake();
	put($s, u64(35) . u64(2) . u64(0));
} elsif ($what eq 'biglist') {  # QueryValidPaths with 2^40 paths
	$s = handshake();
	put($s, u64(31) . u64(1 << 40) . str('/x') x 16);
} elsif ($what eq 'silent') {   # says nothing at all, for a while
	$s = conn();
	print "connected\n";
	sleep 15;
	exit 0;
} elsif ($what eq 'halfway') {  # stops after the magic
	$s = conn();
	put($s, u64(0x6e697863));
	print "connected\n";
	sleep 15;
	exit 0;
} elsif ($what eq 'many') {     # 200 clients at once, then gone
	my @c;
	for my $i (1 .. 200) {
		my $c = conn();
		put($c, u64(0x6e697863)) if $i % 2;
		push @c, $c;
	}
	close $_ for @c;
	print "closed 200\n";
	exit 0;
} else {
	die "unknown scenario $what\n";
}
drain($s);
EOF

trap 'kill -9 $(cat "$T/bgpids" 2>/dev/null) 2>/dev/null; pkill -9 -f -- "cix-daemon --listen $SOCK" 2>/dev/null' EXIT
bg () { echo "$1" >>"$T/bgpids"; }

hostile () { perl "$T/hostile.pl" "$SOCK" "$@"; }

# The daemon is alive and serves a normal client.
still_serves () {
	kill -0 "$DPID" || { echo "the daemon is gone"; return 1; }
	nix-store --store "$D" -q --hash "$P" >h.now &&
	test_cmp h.want h.now &&
	hostile valid "$P" >v.out && test "$(cat v.out)" = "valid 1"
}

test_start_daemon "$SOCK" >/dev/null
DPID=$!
bg $DPID

test_expect_success NIX,PERL 'setup: the daemon serves, the raw client speaks the protocol' '
	echo data >f &&
	P=$(nix-store --store "$D" --add f) &&
	echo "$P" >P &&
	cix store -q --hash "$P" >h.want &&
	nix-store --store "$D" -q --hash "$P" >h.now && test_cmp h.want h.now &&
	hostile valid "$P" >v.out && test "$(cat v.out)" = "valid 1"
'
P=$(cat P 2>/dev/null)

# the_worker_said TEXT: the worker of the last raw client ended cleanly
# (no crash, no abort on an allocation) with TEXT in its last word.
the_worker_said () {
	tail -n +$((logged + 1)) "$T/daemon.log" >log.new &&
	grep "ended: " log.new | grep -F "$1" || { cat log.new; return 1; }
}

test_expect_success NIX,PERL 'bad magic: the connection is closed, others are served' '
	logged=$(wc -l <"$T/daemon.log") &&
	hostile badmagic >out && test "$(cat out)" = "eof 0" &&
	the_worker_said "protocol mismatch" &&
	still_serves
'

test_expect_success NIX,PERL 'a client too old (0x109) is refused' '
	logged=$(wc -l <"$T/daemon.log") &&
	hostile oldversion >out && test "$(cat out)" = "eof 0" &&
	the_worker_said "version 0x109 is not supported" &&
	still_serves
'

test_expect_success NIX,PERL 'an unknown operation: an error frame as at minor 34, then the end' '
	logged=$(wc -l <"$T/daemon.log") &&
	hostile badop >out &&
	cat out &&
	grep -x "error \[Error\] 0 \[Error\] .*12345.* pos=0 traces=0" out &&
	test "$(tail -n 1 out)" = "eof 0" &&
	the_worker_said "invalid operation 12345" &&
	still_serves
'

# scenario|what its worker says|title
while IFS='|' read s said title; do
	test_expect_success NIX,PERL "$s: $title; the daemon serves on" "
		logged=\$(wc -l <\"\$T/daemon.log\") &&
		hostile $s >out &&
		cat out &&
		test \"\$(cat out)\" = \"eof 0\" &&
		the_worker_said \"$said\" &&
		still_serves
	"
done <<\EOF
hugestr63|string of 9223372036854775808 bytes is longer than|a string of 2^63 bytes ends the connection, nothing allocated
hugestr64|string of 18446744073709551608 bytes is longer than|a string of 2^64-8 bytes ends the connection, nothing allocated
hugename|string of 9223372036854775808 bytes is longer than|a name of 2^63 bytes (AddTextToStore) ends the connection
eofmid|the connection ended in the middle of a message|EOF in the middle of a string
eofu64|the connection ended in the middle of a message|EOF in the middle of a number
badpad|non-zero padding|non-zero padding ends the connection
badbool|bad boolean 2|a boolean of 2 ends the connection
biglist|list of 1099511627776 items is longer than|a list count of 2^40 ends the connection, nothing allocated
EOF

test_expect_success NIX,PERL 'silent clients do not hold up the others' '
	{ perl "$T/hostile.pl" "$SOCK" silent >silent.out & bg $!; } &&
	{ perl "$T/hostile.pl" "$SOCK" halfway >halfway.out & bg $!; } &&
	for i in $(seq 50); do
		grep -q connected silent.out && grep -q connected halfway.out && break
		sleep 0.1
	done &&
	start=$(date +%s) &&
	still_serves &&
	nix-store --store "$D" --add f >p2 && test "$(cat p2)" = "$P" &&
	test $(($(date +%s) - start)) -lt 5
'

test_expect_success NIX,PERL '200 clients at once, then gone: the daemon still answers' '
	hostile many >out && test "$(cat out)" = "closed 200" &&
	still_serves &&
	# the workers of those clients end
	for i in $(seq 100); do
		test "$(pgrep -f -- "cix-daemon --listen $SOCK" | wc -l)" -le 3 && break
		sleep 0.1
	done &&
	test "$(pgrep -f -- "cix-daemon --listen $SOCK" | wc -l)" -le 3
'

test_expect_success NIX,PERL 'the daemon is stopped at the end' '
	kill $(cat "$T/bgpids") 2>/dev/null; pkill -9 -f -- "cix-daemon --listen $SOCK";
	for i in $(seq 50); do pgrep -f -- "$T/hostile.pl" >/dev/null || break; sleep 0.1; done &&
	! pgrep -f -- "$T/hostile.pl" &&
	for i in $(seq 50); do pgrep -f -- "cix-daemon --listen $SOCK" >/dev/null || break; sleep 0.1; done &&
	! pgrep -f -- "cix-daemon --listen $SOCK" &&
	! grep -i "sanitizer\|runtime error" daemon.log && ! grep "BUG" daemon.log
'

test_done
