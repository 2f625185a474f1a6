# lib-guix-client.pl - a client speaking Guix's dialect of the worker protocol,
# written from the protocol as (guix store) speaks it: it announces 0x163 and
# follows the daemon's minor version; it knows only the frames NEXT, READ,
# WRITE, LAST and ERROR (message, status), so anything else the daemon sends
# fails it.
# Usage: perl lib-guix-client.pl SOCKET <COMMANDS
# One command a line (words split on blanks); each prints its reply, or
# "error STATUS: MESSAGE" and the connection goes on:
#   options [trace=0|1] [NAME=VALUE...]  SetOptions (the pairs as given)
#   text NAME CONTENT [REF...]   AddTextToStore
#   textfile NAME FILE [REF...]  AddTextToStore of FILE's contents
#   add NAME RECURSIVE ALGO FILE  AddToStore, the NAR inline
#   valid PATH | info PATH | temproot PATH | indirect LINK | roots
#   build MODE PATH...   BuildPaths; prints the "@ " trace lines seen
#   log                  the builder's lines of the last build
#   export FILE PATH...  export-paths: ExportPath of each, the markers ours
#   import FILE          ImportPaths of FILE
#   gc ACTION [PATH...]  CollectGarbage; prints the paths, then "freed N"
# $GUIX_CLIENT_VERSION, if set, is announced instead of 0x163.
#   failed | clear PATH... | builtins | raw OP   (raw: an operation alone)
# SPDX-License-Identifier: GPL-3.0-or-later
use strict;
use warnings;
no warnings 'portable';
use IO::Socket::UNIX;
use Socket qw(SOCK_STREAM);
require "$ENV{CIX_SRC_DIR}/t/lib-wire.pl";

my $path = shift;
$SIG{ALRM} = sub { print "timeout\n"; exit 3; };
alarm 120;
my $s = IO::Socket::UNIX->new(Type => SOCK_STREAM, Peer => $path) or die "connect: $!\n";
my ($sink, $source, @log) = ('', '');

sub rd_str {
	my $n = get_u64($s);
	defined $n or die "eof\n";
	my $b = get($s, $n + (8 - $n % 8) % 8);
	defined $b or die "eof\n";
	substr($b, 0, $n);
}
sub rd_u64 { my $v = get_u64($s); defined $v or die "eof\n"; $v }
sub rd_strs { my $n = rd_u64(); map { rd_str() } 1 .. $n }
sub strs { my $r = u64(scalar @_); $r .= str($_) for @_; $r }

# The frames up to LAST (1), or an error (0, printed).
sub frames {
	while (1) {
		my $f = rd_u64();
		return 1 if $f == 0x616c7473;
		if ($f == 0x6f6c6d67) { push @log, split /(?<=\n)/, rd_str(); next; }
		if ($f == 0x64617416) { $sink .= rd_str(); next; }
		if ($f == 0x64617461) {
			my $n = rd_u64();
			my $chunk = substr($source, 0, $n, '');
			put($s, str($chunk));
			next;
		}
		if ($f == 0x63787470) {
			my $msg = rd_str();
			my $status = rd_u64();
			$msg =~ s/\n/ /g;
			print "error $status: $msg\n";
			return 0;
		}
		die sprintf("unexpected frame %x\n", $f);
	}
}
sub request { put($s, join('', @_)); frames(); }

sub nar_of {
	my $file = shift;
	open my $fh, '<:raw', $file or die "$file: $!\n";
	local $/;
	my $data = <$fh>;
	my $x = -x $file ? str('executable') . str('') : '';
	str('nix-archive-1') . str('(') . str('type') . str('regular') . $x .
		str('contents') . str($data) . str(')');
}

# The handshake: magic, the daemon's version, ours, CPU affinity, reserve space.
put($s, u64(0x6e697863));
rd_u64() == 0x6478696f or die "bad magic\n";
my $daemon = rd_u64();
my $minor = $daemon & 0xff;
my $version = defined $ENV{GUIX_CLIENT_VERSION} ? hex($ENV{GUIX_CLIENT_VERSION}) : 0x163;
put($s, u64($version) . ($minor >= 14 ? u64(0) : '') . ($minor >= 11 ? u64(1) : ''));
frames() or exit 1;
printf "daemon %#x\n", $daemon;

my %ops = (
	options => sub {
		my $trace = 1;
		my @pairs;
		for (@_) {
			my ($k, $v) = split /=/, $_, 2;
			if ($k eq 'trace') { $trace = $v; } else { push @pairs, $k, $v; }
		}
		# keep-failed keep-going fallback verbosity max-jobs max-silent
		# build-hook build-verbosity log-type print-build-trace cores substitutes
		request(u64(19), map(u64($_), 0, 0, 0, 0, 1, 3600, 0, 0, 0, $trace, 1, 0),
			u64(@pairs / 2), map(str($_), @pairs)) and print "options set\n";
	},
	text => sub {
		my ($name, $text, @refs) = @_;
		request(u64(8), str($name), str($text), strs(@refs)) and print rd_str(), "\n";
	},
	textfile => sub {
		my ($name, $file, @refs) = @_;
		open my $fh, '<:raw', $file or die "$file: $!\n";
		local $/;
		my $text = <$fh>;
		request(u64(8), str($name), str($text), strs(@refs)) and print rd_str(), "\n";
	},
	add => sub {
		my ($name, $rec, $algo, $file) = @_;
		request(u64(7), str($name), u64(1), u64($rec), str($algo), nar_of($file))
			and print rd_str(), "\n";
	},
	valid => sub { request(u64(1), str($_[0])) and print "valid ", rd_u64(), "\n"; },
	info => sub {
		request(u64(26), str($_[0])) or return;
		my ($deriver, $hash, @refs) = (rd_str(), rd_str(), rd_strs());
		my ($time, $size) = (rd_u64(), rd_u64());
		print "deriver [$deriver] hash $hash refs [@refs] time ", ($time > 0 ? "set" : 0),
			" size $size\n";
	},
	temproot => sub { request(u64(11), str($_[0])) and print "temproot ", rd_u64(), "\n"; },
	indirect => sub { request(u64(12), str($_[0])) and print "indirect ", rd_u64(), "\n"; },
	roots => sub {
		request(u64(14)) or return;
		my $n = rd_u64();
		for (1 .. $n) { my ($l, $p) = (rd_str(), rd_str()); print "root $l $p\n"; }
	},
	build => sub {
		my ($mode, @paths) = @_;
		@log = ();
		my $ok = request(u64(9), strs(@paths), u64($mode));
		print grep { /^@ / } @log;
		$ok and print "built ", rd_u64(), "\n";
	},
	log => sub { print map { "log: $_" } grep { !/^@ / } @log; },
	export => sub {
		my ($file, @paths) = @_;
		$sink = '';
		for (@paths) {
			$sink .= u64(1);
			request(u64(16), str($_), u64(0)) or return;
			rd_u64() == 1 or die "no 1 after an export\n";
		}
		open my $fh, '>:raw', $file or die "$file: $!\n";
		print $fh $sink, u64(0);
		close $fh;
		print "exported ", scalar(@paths), "\n";
	},
	import => sub {
		open my $fh, '<:raw', $_[0] or die "$_[0]: $!\n";
		local $/;
		$source = <$fh>;
		request(u64(27)) or return;
		print "imported $_\n" for rd_strs();
	},
	gc => sub {
		my ($action, @paths) = @_;
		request(u64(20), u64($action), strs(@paths), u64(0), u64(~0), u64(0), u64(0), u64(0))
			or return;
		print "path $_\n" for rd_strs();
		print "freed ", rd_u64(), "\n";
		rd_u64();
	},
	failed => sub { request(u64(24)) and print "failed [", join(' ', rd_strs()), "]\n"; },
	clear => sub { request(u64(25), strs(@_)) and print "cleared ", rd_u64(), "\n"; },
	builtins => sub { request(u64(80)) and print "builtins [", join(' ', rd_strs()), "]\n"; },
	raw => sub { request(u64($_[0])) and print "raw done\n"; },
);

while (my $line = <STDIN>) {
	my ($cmd, @args) = split ' ', $line;
	next unless defined $cmd;
	my $fn = $ops{$cmd} or die "unknown command $cmd\n";
	$fn->(@args);
}
