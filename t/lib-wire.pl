# lib-wire.pl - the worker protocol's encoding, for the tests' raw clients
# SPDX-License-Identifier: GPL-3.0-or-later
# (require'd by the Perl clients of t3010 and t3200; every socket is an argument)
use strict;
use warnings;
no warnings 'portable';

sub u64 { pack 'Q<', $_[0] }
sub str { my $s = shift; u64(length $s) . $s . ("\0" x ((8 - length($s) % 8) % 8)) }
# put(S, BYTES): all of them, or 0 when the connection broke.
sub put { my ($s, $b) = @_; my $o = 0; while ($o < length $b) { my $n = syswrite($s, $b, length($b) - $o, $o); defined $n or return 0; $o += $n; } 1 }
# get(S, N): N bytes, or undef at the end of the connection.
sub get {
	my ($s, $n) = @_;
	my $buf = '';
	while (length $buf < $n) {
		my $r = sysread($s, $buf, $n - length $buf, length $buf);
		return undef if !$r;
	}
	$buf;
}
sub get_u64 { my $b = get($_[0], 8); defined $b ? unpack('Q<', $b) : undef }
sub get_str {
	my $s = shift;
	my $n = get_u64($s);
	return undef if !defined $n || $n > 65536;
	my $b = get($s, $n + (8 - $n % 8) % 8);
	defined $b ? substr($b, 0, $n) : undef;
}
1;
