#!/usr/bin/perl
# randtree.pl - make a reproducible random file tree to test NAR writers
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Usage: perl randtree.pl DIR SEED [SIZE]
#
# DIR must not exist. The same SEED and SIZE give the same tree on every
# machine: the generator is a xorshift32 written here, not perl's rand().
# SIZE (default 100) is the number of random nodes added to the fixed set
# of awkward cases (odd names, boundary file sizes, symlinks of every kind,
# empty and deep directories, one file of a few MiB).
use strict;
use warnings;

die "usage: randtree.pl DIR SEED [SIZE]\n" unless @ARGV >= 2 && @ARGV <= 3;
my ($root, $seed, $size) = @ARGV;
$size = 100 unless defined $size;
die "randtree.pl: SEED and SIZE must be numbers\n"
	unless $seed =~ /^\d+$/ && $size =~ /^\d+$/;
die "randtree.pl: '$root' exists\n" if -e $root || -l $root;

my $M32 = 0xffffffff;
my $x = (($seed * 2654435761) ^ 0x9e3779b9) & $M32;
$x = 1 if $x == 0;

sub rnd32 {
	$x ^= ($x << 13) & $M32;
	$x ^= $x >> 17;
	$x ^= ($x << 5) & $M32;
	return $x;
}
# Uniform-ish integer in [0, n).
sub rnd { my ($n) = @_; return $n > 0 ? rnd32() % $n : 0; }
sub pick { return $_[rnd(scalar @_)]; }

# n pseudo-random bytes (whole 32-bit words, then trimmed).
sub rbytes {
	my ($n) = @_;
	my $s = pack('V*', map { rnd32() } 1 .. int(($n + 3) / 4));
	return substr($s, 0, $n);
}

sub wfile {
	my ($path, $data, $mode) = @_;
	open(my $fh, '>:raw', $path) or die "randtree.pl: cannot create '$path': $!\n";
	print $fh $data or die "randtree.pl: cannot write '$path': $!\n";
	close($fh) or die "randtree.pl: cannot write '$path': $!\n";
	chmod($mode, $path) or die "randtree.pl: cannot chmod '$path': $!\n";
}
sub wdir { mkdir($_[0]) or die "randtree.pl: cannot mkdir '$_[0]': $!\n"; }
sub wlink {
	symlink($_[0], $_[1]) or die "randtree.pl: cannot symlink '$_[1]': $!\n";
}

# A file of exactly n bytes; cheap content for big ones.
sub content {
	my ($n) = @_;
	return rbytes($n) if $n <= 65536;
	my $block = rbytes(65536 + rnd(4096));
	my $s = $block x (int($n / length($block)) + 1);
	substr($s, rnd($n), 1) = chr(rnd(256));  # not quite periodic
	return substr($s, 0, $n);
}

# ---- The fixed awkward cases ----
wdir($root);
my $r = $root;

# Names: sorted bytewise, so "B" < "a" < "b" and "Z" < "_"; "." prefixes.
wdir("$r/names");
for my $n ('a', 'B', 'b', 'A', 'Z', '_', '~', 'aa', 'a a', 'a.b', 'a-b',
	   '.hidden', '..dots', '...', '-leading-dash', '--', ' lead space',
	   'trail space ', "tab\there", "new\nline", "cr\rhere",
	   'back\\slash', 'quote"d', "apos'd", 'star*?[x]', 'dollar$HOME',
	   "\x{c3}\x{a9}t\x{c3}\x{a9}", "\x{e5}\x{90}\x{8d}\x{e5}\x{89}\x{8d}",
	   "\x{f0}\x{9f}\x{98}\x{80}", "bad\x{ff}\x{fe}utf8", "\x{7f}del",
	   "\x{01}ctl", 'x' x 255, ("\x{c3}\x{a9}" x 127) . 'e') {
	wfile("$r/names/$n", "$n\n", 0644);
}
# Names that differ in a byte >= 0x80 only, and prefixes of each other.
wfile("$r/names/p", "", 0644);
wfile("$r/names/p\x{80}", "", 0644);
wfile("$r/names/p\x{7f}", "", 0644);
wfile("$r/names/pp", "", 0644);
wdir("$r/names/p.d");

# Sizes around 0..3, the 8-byte padding boundaries and the buffer sizes
# of writers and hashers (4 KiB, 64 KiB, 256 KiB, 1 MiB).
wdir("$r/sizes");
for my $n (0 .. 3, 5 .. 9, 15, 16, 17, 23, 24, 25, 63, 64, 65, 4095, 4096,
	   4097, 65535, 65536, 65537, 262143, 262144, 262145, 262151, 1048575,
	   1048576, 1048577, 1048583) {
	wfile("$r/sizes/$n", content($n), 0644);
}
wfile("$r/sizes/big", content(3 * 1048576 + 1234 + rnd(1048576)), 0644);

# Modes: only S_IXUSR counts as executable.
wdir("$r/modes");
wfile("$r/modes/exec", "#!/bin/sh\necho hi\n", 0755);
wfile("$r/modes/exec-empty", "", 0700);
wfile("$r/modes/user-x-only", "u\n", 0744);
wfile("$r/modes/group-x-only", "g\n", 0654);
wfile("$r/modes/other-x-only", "o\n", 0645);
wfile("$r/modes/readonly", "ro\n", 0444);
wfile("$r/modes/setuid", "s\n", 04755);
link("$r/modes/exec", "$r/modes/hardlink") or die "randtree.pl: link: $!\n";

# Symlinks of every sort.
wdir("$r/links");
wdir("$r/links/dir");
wfile("$r/links/dir/f", "f\n", 0644);
wlink('dir/f', "$r/links/relative");
wlink('/etc/passwd', "$r/links/absolute");
wlink('does/not/exist', "$r/links/dangling");
wlink('dir', "$r/links/to-dir");
wlink('../links/dir/', "$r/links/to-dir-slash");
wlink('.', "$r/links/dot");
wlink('..', "$r/links/dotdot");
wlink('self', "$r/links/self");
wlink('loop-b', "$r/links/loop-a");
wlink('loop-a', "$r/links/loop-b");
wlink('to-dir', "$r/links/chain");
wlink("odd target\twith\nbytes\x{ff}", "$r/links/odd-target");
wlink('y' x 1000, "$r/links/long-1000");
wlink(join('/', ('z' x 200) x 20) . '/end', "$r/links/long-path");
wlink('t' x 4095, "$r/links/long-4095");
wlink('x' x 255, "$r/links/to-long-name");

# Empty directories, nested or not, and a deep chain.
wdir("$r/empty");
wdir("$r/empties");
wdir("$r/empties/$_") for ('a', 'b', 'c');
wdir("$r/empties/b/inner");
my $d = "$r/deep";
wdir($d);
for my $i (1 .. 40) {
	$d .= "/" . ($i % 2 ? 'd' : "level $i");
	wdir($d);
}
wfile("$d/bottom", "bottom\n", 0644);
wlink('../../..', "$d/up");

# ---- The random part ----
my @alpha = ('a' .. 'z', 'A' .. 'Z', '0' .. '9', '.', '-', '_', ' ', '+',
	     '=', ',', "\t", "\x{c3}\x{a9}", "\x{80}", "\x{ff}");
sub rname {
	my $len = 1 + (rnd(10) ? rnd(12) : rnd(255));
	my $s = '';
	$s .= pick(@alpha) while length($s) < $len;
	$s = substr($s, 0, 255);
	$s = "x$s" if $s eq '.' || $s eq '..';
	return $s;
}

my @dirs = ("$r/random");
wdir("$r/random");
for my $i (1 .. $size) {
	my $parent = pick(@dirs);
	my $name = rname();
	my $path = "$parent/$name";
	next if -e $path || -l $path;
	# Keep paths well under PATH_MAX so that every tool can walk them.
	next if length($path) > 3000;
	my $kind = rnd(10);
	if ($kind < 5) {
		my $sz = pick(0, 1, 7, 8, 9, rnd(100), rnd(5000), rnd(70000));
		wfile($path, content($sz), rnd(3) ? 0644 : 0755);
	} elsif ($kind < 8) {
		wdir($path);
		push @dirs, $path;
	} else {
		my $t = rnd(2) ? rname() : join('/', map { rname() } 0 .. rnd(5));
		wlink($t, $path);
	}
}
exit 0;
