# lib-legacy-client.pl - an old worker-protocol client: handshake at a given minor,
# then the pre-1.25 AddToStore of one file; prints the path the daemon gives.
# Usage: perl lib-legacy-client.pl SOCKET MINOR FILE RECURSIVE
# SPDX-License-Identifier: GPL-3.0-or-later
use strict; use IO::Socket::UNIX;
my ($sock, $minor, $file, $recursive) = @ARGV;
my $s = IO::Socket::UNIX->new(Peer => $sock) or die "connect: $!";
sub u64 { pack("Q<", $_[0]) }
sub str { my $x = shift; u64(length $x) . $x . ("\0" x ((8 - length($x) % 8) % 8)) }
sub rd { my $n = shift; my $b = ''; while (length $b < $n) { my $k = sysread($s, my $c, $n - length $b); die "eof" unless $k; $b .= $c } $b }
sub ru64 { unpack("Q<", rd(8)) }
sub rstr { my $n = ru64(); my $x = rd($n); rd((8 - $n % 8) % 8); $x }
print $s u64(0x6e697863); my $m = ru64(); my $v = ru64();
print $s u64((1 << 8) | $minor); print $s u64(0) if $minor >= 14; print $s u64(0) if $minor >= 11;
sub frames { while (1) { my $c = ru64(); last if $c == 0x616c7473; if ($c == 0x6f6c6d67) { print STDERR rstr(); next }
  if ($c == 0x63787470) { my $msg = rstr(); ru64(); die "daemon error: $msg\n" } die sprintf("frame %x", $c) } }
frames();
# NAR of one regular file
open my $fh, '<', $file or die; local $/; my $data = <$fh>;
my $nar = str("nix-archive-1") . str("(") . str("type") . str("regular") . str("contents") . str($data) . str(")");
print $s u64(7) . str("legacy") . u64($recursive ? 1 : 1) . u64($recursive) . str("sha256") . $nar;
frames();
print rstr(), "\n";
