# lib-temp-root-client.pl - a worker-protocol client that holds a temporary root:
# AddTempRoot PATH, then print "rooted" and stay connected until the file RELEASE exists.
# Usage: perl lib-temp-root-client.pl SOCKET PATH RELEASE
# SPDX-License-Identifier: GPL-3.0-or-later
use strict; use IO::Socket::UNIX; use Time::HiRes qw(sleep);
my ($sock, $path, $release) = @ARGV;
my $s = IO::Socket::UNIX->new(Peer => $sock) or die "connect: $!";
sub u64 { pack("Q<", $_[0]) }
sub str { my $x = shift; u64(length $x) . $x . ("\0" x ((8 - length($x) % 8) % 8)) }
sub rd { my $n = shift; my $b = ''; while (length $b < $n) { my $k = sysread($s, my $c, $n - length $b); die "eof" unless $k; $b .= $c } $b }
sub ru64 { unpack("Q<", rd(8)) }
sub rstr { my $n = ru64(); my $x = rd($n); rd((8 - $n % 8) % 8); $x }
sub frames { while (1) { my $c = ru64(); last if $c == 0x616c7473; if ($c == 0x6f6c6d67) { rstr(); next }
  if ($c == 0x63787470) { my $msg = rstr(); ru64(); die "daemon error: $msg\n" } die sprintf("frame %x", $c) } }
$s->autoflush(1);
print $s u64(0x6e697863); ru64(); ru64();
print $s u64((1 << 8) | 21) . u64(0) . u64(0);
frames();
print $s u64(11) . str($path);
frames();
ru64();
$| = 1;
print "rooted\n";
sleep 0.1 until -e $release;
