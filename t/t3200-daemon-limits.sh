#!/bin/sh
# t3200-daemon-limits.sh - one user against the daemon's limits (issue 20)
# SPDX-License-Identifier: GPL-3.0-or-later
test_description='cix-daemon: connections per user, idle clients, build limits, request memory, crashes'
. "$(dirname "$0")/test-lib.sh"

T=$TRASH_DIRECTORY
test_private_store
test_private_conf 'trusted-users = root'
test_sandbox_host_paths
SOCK=$T/sock
S="unix://$SOCK?store=$CIX_STORE_DIR"
# A user made for the race of first connections, removed at the end.
U=cixt3200
NOBODY_UID=$(id -u nobody 2>/dev/null)

[ "$(id -u)" = 0 ] && command -v runuser >/dev/null && id nobody >/dev/null 2>&1 &&
	test_set_prereq NOBODY
[ -x /usr/bin/perl ] && test_set_prereq PERL
[ "$(id -u)" = 0 ] && command -v useradd >/dev/null && command -v userdel >/dev/null &&
	! id "$U" >/dev/null 2>&1 && test_set_prereq USERADD
# Workers killed with SIGSEGV below: no core files.
ulimit -c 0

nb () { runuser -u nobody -- env HOME="$T/nb" "$@"; }

# client.pl SOCKET SCENARIO ARGS...: a raw client of the worker protocol.
cat >client.pl <<\EOF
use strict;
use warnings;
no warnings 'portable';
use IO::Socket::UNIX;
use Socket qw(SOCK_STREAM);

my ($path, $what, @args) = @ARGV;
$SIG{ALRM} = sub { print "timeout\n"; exit 3; };
$SIG{PIPE} = 'IGNORE';
$| = 1;
alarm 90;

sub conn { IO::Socket::UNIX->new(Type => SOCK_STREAM, Peer => $path) or die "connect: $!\n"; }
require "$ENV{CIX_SRC_DIR}/t/lib-wire.pl";
# Frames up to LAST (''), an error ("error: MESSAGE"), or the end ('eof').
sub frames {
	my $s = shift;
	while (1) {
		my $f = get_u64($s);
		return 'eof' if !defined $f;
		return '' if $f == 0x616c7473;
		if ($f == 0x63787470) {
			my ($e1, $lvl, $e2, $msg) = (get_str($s), get_u64($s), get_str($s), get_str($s));
			get_u64($s); get_u64($s);
			return "error: " . ($msg // 'eof');
		}
		if ($f == 0x6f6c6d67) { get_str($s); next; }
		return sprintf "frame %x", $f;
	}
}
# The client's half of the handshake after the magic, at minor 34.
sub shake {
	my $s = shift;
	put($s, u64(0x122) . u64(0) . u64(0));
	defined get_str($s) or return 'eof';
	frames($s);
}
sub handshake {
	my $s = conn();
	put($s, u64(0x6e697863));
	defined get($s, 16) or return ($s, 'eof');
	($s, shake($s));
}
sub nap { select(undef, undef, undef, 0.1) }

if ($what eq 'hold') {        # N connections until STOP exists; then is each alive?
	my ($n, $stop) = @args;
	my @keep;
	for (1 .. $n) {
		my ($s, $r) = handshake();
		if ($r eq '') { print "ok\n"; push @keep, $s; } else { print "refused: $r\n"; }
	}
	print "held\n";
	for (1 .. 600) { last if -e $stop || !-e $path; nap(); }
	for my $s (@keep) {           # SyncWithGC: LAST, then 1
		put($s, u64(13));
		my $r = frames($s);
		print $r eq '' && defined get_u64($s) ? "alive\n" : "dead: $r\n";
	}
} elsif ($what eq 'idle') {   # shakes hands, says nothing more: until the end
	my ($s, $r) = handshake();
	die "handshake: $r\n" if $r ne '';
	print defined get($s, 8) ? "data\n" : "closed\n";
} elsif ($what eq 'silent') { # says nothing at all
	my $s = conn();
	print defined get($s, 8) ? "data\n" : "closed\n";
} elsif ($what eq 'bigrefs') { # QueryValidPaths of 2^20 paths of 4000 bytes
	my ($daemon) = @args;
	my $limit = 96 << 20;
	# The daemon's children named cix-daemon (not its committer).
	my $worker = sub {
		my ($p, $st, $c) = @_;
		open($st, '<', "/proc/$p/stat") or return 0;
		my @f = split ' ', ((<$st> // '') =~ s/.*\) //r);
		return 0 unless @f && $f[1] == $daemon;
		open($c, '<', "/proc/$p/comm") or return 0;
		(<$c> // '') eq "cix-daemon\n";
	};
	my $workers = sub { opendir(my $d, "/proc") or die; grep { /^\d+$/ && $worker->($_) } readdir $d };
	my %before = map { $_ => 1 } $workers->();
	my ($s, $r) = handshake();
	die "handshake: $r\n" if $r ne '';
	my @w = grep { !$before{$_} } $workers->();
	die "workers: @w\n" if @w != 1;
	# VmHWM: the most the worker ever had in memory (KiB), while it lives.
	my $hwm = sub { open(my $f, '<', "/proc/$w[0]/status") or return undef;
			while (<$f>) { return $1 if /^VmHWM:\s+(\d+)/ } undef };
	my ($base, $sent) = ($hwm->(), 0);
	my $max = $base;
	my $chunk = str('/' . ('a' x 3999)) x 256;
	put($s, u64(31) . u64(1 << 20));
	while ($sent < $limit && put($s, $chunk)) {
		$sent += length $chunk;
		my $h = $hwm->();
		$max = $h if defined $h && $h > $max;
	}
	printf "sent %d MiB\n", $sent >> 20;
	printf "growth %d MiB\n", ($max - $base) >> 10;
	print "said: ", frames($s), "\n";
} elsif ($what eq 'race') {   # N first connections at once, from one barrier
	my $n = $args[0];
	pipe(my $rd, my $wr) or die;
	my @kids;
	for (1 .. $n) {
		my $pid = fork() // die "fork: $!\n";
		if (!$pid) {
			close $wr;
			my $s = conn();
			put($s, u64(0x6e697863));
			get($s, 16) // exit 1;
			sysread($rd, my $x, 1);   # until the parent lets all go
			my $r = shake($s);
			print STDERR "race: $r\n" if $r ne '';
			exit($r eq '' ? 0 : 1);
		}
		push @kids, $pid;
	}
	close $rd;
	nap() for 1 .. 5;
	close $wr;
	my $ok = 0;
	for (@kids) { waitpid($_, 0); $ok++ if $? == 0; }
	print "ok $ok\n";
} elsif ($what eq 'fake-daemon') { # shakes hands, reads an operation's code, hangs up
	my $l = IO::Socket::UNIX->new(Type => SOCK_STREAM, Local => $path, Listen => 1) or die "listen: $!\n";
	my $c = $l->accept or die;
	get($c, 8);
	put($c, u64(0x6478696f) . u64(0x122));
	get($c, 24);
	put($c, str("2.8.0") . u64(0x616c7473));
	get($c, 8);
	close $c;
	print "hung up\n";
} else {
	die "unknown scenario $what\n";
}
EOF
chmod 644 client.pl
# A stop file there already: hold, check and let go at once.
: >now
client () { perl "$T/client.pl" "$SOCK" "$@"; }

# (the user is known by its comment: never remove one this test did not make)
remove_user () {
	getent passwd "$U" | grep -q ":cix t3200:" && userdel "$U"
	! id "$U" >/dev/null 2>&1
}
cleanup () {
	[ -d "$T" ] && touch "$T"/stop.all && kill $(cat "$T"/*.pid 2>/dev/null) 2>/dev/null
	remove_user 2>/dev/null
}
trap cleanup EXIT

# start_daemon OPTION...: the test's daemon, alone on SOCKET with OPTIONs.
start_daemon () {
	stop_daemon &&
	rm -f "$SOCK" &&
	{ cix-daemon --listen "$SOCK" --debug "$@" 2>>"$T/daemon.log" & } &&
	echo $! >"$T/daemon.pid" &&
	test_wait_for "$SOCK"
}
stop_daemon () {
	[ -f "$T/daemon.pid" ] || return 0
	kill "$(cat "$T/daemon.pid")" 2>/dev/null
	rm -f "$T/daemon.pid"
}

# wait_line FILE LINE: until FILE has LINE (10 s at most).
wait_line () {
	for i_ in $(seq 100); do
		grep -qx "$2" "$1" 2>/dev/null && return 0
		sleep 0.1
	done
	echo "no '$2' in $1:"; cat "$1"; return 1
}

# workers: the daemon's workers (not its committer) alive now.
workers () { pgrep -P "$(cat "$T/daemon.pid")" -x cix-daemon | wc -l; }

# until_workers N: until the daemon has N workers (10 s at most).
until_workers () {
	for i_ in $(seq 100); do
		[ "$(workers)" -le "$1" ] && return 0
		sleep 0.1
	done
	echo "still $(workers) workers"; return 1
}

test_expect_success NOBODY,PERL 'a user at its cap is refused at once, with a word; root still connects' '
	start_daemon --max-connections=6 --max-connections-per-user=4 &&
	{ nb perl client.pl "$SOCK" hold 5 "$T/stop.1" >hold1.out & } &&
	wait_line hold1.out held &&
	test "$(grep -c "^ok$" hold1.out)" = 4 &&
	grep "^refused: error: user $NOBODY_UID has too many connections" hold1.out &&
	{ client hold 2 "$T/stop.2" >hold2.out & } &&
	wait_line hold2.out held &&
	test "$(grep -c "^ok$" hold2.out)" = 2 &&
	# six in all: even root is told so, not left in the listen queue
	client hold 1 "$T/now" >hold3.out &&
	grep "^refused: error: the cix daemon serves too many connections" hold3.out &&
	touch stop.1 stop.2 &&
	wait_line hold1.out alive && wait_line hold2.out alive &&
	! grep dead hold1.out hold2.out &&
	until_workers 0 &&
	# the connections that ended were counted off
	nb perl client.pl "$SOCK" hold 4 "$T/now" >hold4.out &&
	test "$(grep -c "^ok$" hold4.out)" = 4
'

test_expect_success NOBODY,PERL 'an idle untrusted connection is closed after --idle-timeout; root keeps its own' '
	start_daemon --idle-timeout=2 &&
	rm -f stop.5 &&
	{ client hold 1 "$T/stop.5" >hold5.out & } &&
	wait_line hold5.out held &&
	nb perl client.pl "$SOCK" idle >idle.out &&
	test "$(cat idle.out)" = closed &&
	nb perl client.pl "$SOCK" silent >silent.out &&
	test "$(cat silent.out)" = closed &&
	touch stop.5 &&
	wait_line hold5.out alive
'

test_expect_success NIX,NOBODY 'setup: derivations that outlive the daemon limits' '
	start_daemon --max-silent-time=2 --timeout=4 &&
	cat >slow.nix <<-\EOF &&
	{ quiet = derivation { name = "quiet"; system = "x86_64-linux"; builder = "/bin/sh";
	    args = [ "-c" "/bin/sleep 40.3200; echo > $out" ]; };
	  noisy = derivation { name = "noisy"; system = "x86_64-linux"; builder = "/bin/sh";
	    args = [ "-c" "i=0; while [ $i -lt 80 ]; do echo tick; /bin/sleep 0.5; i=$((i+1)); done; echo > $out" ]; }; }
	EOF
	nix-instantiate --store "$S" -A quiet slow.nix >quiet.drv 2>/dev/null &&
	nix-instantiate --store "$S" -A noisy slow.nix >noisy.drv 2>/dev/null &&
	chmod 755 "$T" && mkdir -p nb && chown nobody nb
'

test_expect_success NIX,NOBODY 'cix store -r (maxSilentTime=0) as nobody: the daemon'\''s --max-silent-time still ends the build' '
	{ nb env CIX_DAEMON_SOCKET="$SOCK" timeout 30 cix store -r "$(cat quiet.drv)" >out 2>err; echo $? >code; } &&
	cat err && test "$(cat code)" = 1 &&
	grep -i "silen" err
'

test_expect_success NIX 'nix-store -r asking for longer limits: the daemon'\''s --timeout still ends the build' '
	{ timeout 30 nix-store --store "$S" -r "$(cat noisy.drv)" --option timeout 3600 \
		--option max-silent-time 3600 >out 2>err; echo $? >code; } &&
	tail -n 3 err && test "$(cat code)" != 0 && test "$(cat code)" != 124 &&
	grep "timed out after 4 seconds" err
'

test_expect_success NOBODY,PERL 'a request of 2^20 references of 4000 bytes: refused within --max-request-memory' '
	start_daemon --max-request-memory=16M &&
	nb perl client.pl "$SOCK" bigrefs "$(cat daemon.pid)" >big.out &&
	cat big.out &&
	grep "^said: error: request too large: reading it would take more than 16777216 bytes" big.out &&
	growth=$(sed -n "s/^growth \([0-9]*\) MiB$/\1/p" big.out) &&
	test "$growth" -lt 32 &&
	client hold 1 "$T/now" >hold6.out && grep -x ok hold6.out
'

test_expect_success PERL 'workers that crash again and again: the daemon exits after --max-crashes' '
	# (under AddressSanitizer too, a SIGSEGV must kill the worker)
	ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}handle_segv=0 && export ASAN_OPTIONS &&
	start_daemon --max-crashes=3 &&
	dpid=$(cat daemon.pid) &&
	{ client hold 3 "$T/stop.all" >hold7.out & } &&
	wait_line hold7.out held &&
	test "$(workers)" = 3 &&
	for w in $(pgrep -P "$dpid" -x cix-daemon); do kill -SEGV "$w" || return 1; done &&
	for i in $(seq 100); do grep -q "workers crashed" daemon.log && break; sleep 0.1; done &&
	grep "3 workers crashed (--max-crashes=3): exiting" daemon.log &&
	{ wait "$dpid"; echo $? >code; } &&
	test "$(cat code)" = 1 &&
	rm -f daemon.pid && touch stop.all
'

test_expect_success PERL 'the daemon hangs up on cix: a message and a failure, not SIGPIPE' '
	rm -f fake.sock &&
	{ perl client.pl "$T/fake.sock" fake-daemon >fake.out & echo $! >fake.pid; } &&
	test_wait_for fake.sock &&
	head -c 4194304 /dev/zero >big &&
	{ CIX_DAEMON_SOCKET=$T/fake.sock cix store --add big >out 2>err; echo $? >code; } &&
	cat err &&
	test "$(cat code)" = 1 &&
	grep "cix store: the daemon closed the connection" err &&
	rm -f fake.pid
'

test_expect_success USERADD,PERL 'many first connections of a new user at once: its profile directory, no warning' '
	useradd -M -N -c "cix t3200" -s /usr/sbin/nologin "$U" &&
	# (no cap per user: the workers of one round may still be counted
	# when the next one connects)
	start_daemon --max-connections-per-user=0 &&
	logged=$(wc -l <daemon.log) &&
	# (the window is short: before the fix, about one round in ten showed it)
	for round in $(seq 30); do
		rm -rf "$CIX_STATE_DIR/profiles/per-user/$U" &&
		runuser -u "$U" -- perl "$T/client.pl" "$SOCK" race 60 >race.out &&
		test "$(cat race.out)" = "ok 60" || return 1
	done &&
	tail -n +$((logged + 1)) daemon.log >race.log &&
	! grep "owned by\|warning" race.log &&
	test "$(stat -c %U "$CIX_STATE_DIR/profiles/per-user/$U")" = "$U" &&
	! ls -a "$CIX_STATE_DIR/profiles/per-user" | grep "^\.new" &&
	remove_user
'

test_expect_success 'the daemon is stopped; nothing crashed' '
	stop_daemon && touch stop.all &&
	for i in $(seq 100); do pgrep -f -- "client.pl $SOCK" >/dev/null || break; sleep 0.1; done &&
	! pgrep -f -- "client.pl $SOCK" &&
	! grep -i "sanitizer\|runtime error" daemon.log
'

test_done
