#!/bin/sh
# t3040-daemon-snapshot.sh - a worker's kept read transaction never hides a commit
# SPDX-License-Identifier: GPL-3.0-or-later
test_description='cix-daemon: queries kept in one read transaction see every commit made before them'
. "$(dirname "$0")/test-lib.sh"

T=$TRASH_DIRECTORY
test_private_store
SOCK=$T/sock
S="unix://$SOCK?store=$CIX_STORE_DIR"
[ -x /usr/bin/perl ] && test_set_prereq PERL

# snapshot.pl SOCKET ROUNDS [DELETE-CMD...]: connection A queries without
# pause (never idle long enough to give up its read transaction) while B
# adds a text, and asks for the path as soon as B has it: "valid" or
# "STALE". With DELETE-CMD, after a pause A asks again, then the same
# while that command deletes the path (appended to it): "gone" or "STALE". A query must see every commit
# made before it, by anyone.
cat >snapshot.pl <<\EOF
use strict;
use warnings;
no warnings 'portable';
use IO::Socket::UNIX;
use IO::Select;
use POSIX ':sys_wait_h';
use Socket qw(SOCK_STREAM);

my ($path, $rounds, @delete) = @ARGV;
$SIG{ALRM} = sub { print "timeout\n"; exit 3; };
alarm 60;
require "$ENV{CIX_SRC_DIR}/t/lib-wire.pl";

sub frames {
	my $s = shift;
	while (1) {
		my $f = get_u64($s);
		die "eof in frames\n" if !defined $f;
		return if $f == 0x616c7473;
		die "daemon error: " . get_str($s) . "\n" if $f == 0x63787470;
		if ($f == 0x6f6c6d67) { get_str($s); next; }
		die sprintf("unexpected frame %x\n", $f);
	}
}
sub conn {
	my $s = IO::Socket::UNIX->new(Type => SOCK_STREAM, Peer => $path) or die "connect: $!\n";
	put($s, u64(0x6e697863)) or die "write\n";
	get_u64($s); get_u64($s);
	put($s, u64((1 << 8) | 21) . u64(0) . u64(0)) or die "write\n";
	frames($s);
	$s;
}
sub is_valid {
	my ($s, $p) = @_;
	put($s, u64(1) . str($p)) or die "write\n";
	frames($s);
	get_u64($s);
}

my $a = conn();
my $dummy = "$ENV{CIX_STORE_DIR}/00000000000000000000000000000000-none";
for my $round (1 .. $rounds) {
	# A's read transaction begins: the store as it is now.
	is_valid($a, $dummy);
	my $b = conn();
	put($b, u64(8) . str("snap-$round") . str("round $round of $$\n") . u64(0)) or die "write\n";
	# A stays busy (a query every 5 ms) until B's add is committed.
	my $sel = IO::Select->new($b);
	is_valid($a, $dummy) until $sel->can_read(0.005);
	frames($b);
	my $p = get_str($b);
	print is_valid($a, $p) ? "valid\n" : "STALE\n";
	close $b;   # (its temporary root with it)
	next if !@delete;
	# Idle a while (a new transaction then), A sees it; then busy again.
	select(undef, undef, undef, 0.3);
	print is_valid($a, $p) ? "valid\n" : "STALE\n";
	my $pid = fork // die "fork: $!\n";
	if (!$pid) { open STDOUT, '>', '/dev/null'; exec @delete, $p; exit 127; }
	is_valid($a, $dummy) until waitpid($pid, WNOHANG) == $pid;
	die "the delete failed: $?\n" if $?;
	print is_valid($a, $p) ? "STALE\n" : "gone\n";
}
EOF

test_expect_success PERL 'daemon starts' '
	test_start_daemon "$SOCK"
'

test_expect_success PERL 'a path added through one connection is valid at once on another' '
	perl snapshot.pl "$SOCK" 5 >out &&
	printf "valid\n" >one &&
	cat one one one one one >expect &&
	test_cmp expect out
'

test_expect_success PERL,NIX 'a path deleted by another client is gone at once' '
	perl snapshot.pl "$SOCK" 3 nix-store --store "$S" --delete >out &&
	printf "valid\nvalid\ngone\n" >two &&
	cat two two two >expect &&
	test_cmp expect out
'

# A worker killed while it holds a temporary root leaves its file behind;
# workers no longer clean the store each, but the next one after a
# killed worker does.
test_expect_success PERL 'the next worker removes what a killed worker left' '
	p=$(CIX_DAEMON_SOCKET=$SOCK cix store --add snapshot.pl) &&
	{ perl "$CIX_SRC_DIR/t/lib-temp-root-client.pl" "$SOCK" "$p" release >rooted & } &&
	for i in $(seq 100); do grep -q rooted rooted && break; sleep 0.1; done &&
	worker=$(ls "$CIX_STATE_DIR/temproots") &&
	test -n "$worker" &&
	kill -9 "$worker" &&
	# (until the daemon has reaped it: kill -0 reaches a zombie too)
	for i in $(seq 100); do kill -0 "$worker" 2>/dev/null || break; sleep 0.1; done &&
	test -e "$CIX_STATE_DIR/temproots/$worker" &&
	touch release &&
	CIX_DAEMON_SOCKET=$SOCK cix store --add snapshot.pl >/dev/null &&
	test_path_is_missing "$CIX_STATE_DIR/temproots/$worker"
'

test_expect_success PERL 'the daemon still serves' '
	CIX_DAEMON_SOCKET=$SOCK cix store --add snapshot.pl >p &&
	test -s p
'

test_done
