#!/bin/sh
# t3190-daemon-stdio.sh - cix-daemon --stdio, the program ssh runs for a remote store
# SPDX-License-Identifier: GPL-3.0-or-later
test_description='cix-daemon --stdio: one client on standard input and output; root served at once, other users through the daemon, with their own rights'
. "$(dirname "$0")/test-lib.sh"

T=$TRASH_DIRECTORY
test_private_store
test_private_conf 'trusted-users = root'
SOCK=$T/sock

[ "$(id -u)" = 0 ] && command -v runuser >/dev/null && id nobody >/dev/null 2>&1 &&
	test_set_prereq NOBODY

# stdio.pl PATH CMD...: CMD run with pipes as its standard input and output
# (as ssh gives them); the handshake, then IsValidPath PATH; then the end
# of its input, and how CMD exited.
cat >stdio.pl <<\EOF
use strict;
use warnings;
no warnings 'portable';
use IPC::Open2;
require "$ENV{CIX_SRC_DIR}/t/lib-wire.pl";
$SIG{ALRM} = sub { print "timeout\n"; exit 3; };
alarm 30;
my ($path, @cmd) = @ARGV;
my $pid = open2(my $from, my $to, @cmd);
binmode $from; binmode $to;
sub frames {
	my $s = shift;
	while (1) {
		my $f = get_u64($s);
		return 0 if !defined $f;
		return 1 if $f == 0x616c7473;
		if ($f == 0x63787470) {
			my ($e1, $lvl, $e2, $msg) = (get_str($s), get_u64($s), get_str($s), get_str($s));
			print "error $msg\n";
			return 0;
		}
		if ($f == 0x6f6c6d67) { get_str($s); next; }
		return 0;
	}
}
put($to, u64(0x6e697863));
my ($m, $v) = (get_u64($from), get_u64($from));
if (defined $m && $m == 0x6478696f) {
	put($to, u64(0x122) . u64(0) . u64(0));
	my $ver = get_str($from);
	print "version $ver\n" if defined $ver;
	if (frames($from)) {
		put($to, u64(1) . str($path));
		frames($from) and print "valid ", get_u64($from), "\n";
	}
} else {
	print "no handshake\n";
}
close $to;
waitpid $pid, 0;
print "exit ", $? >> 8, "\n";
EOF

test_expect_success '--help names --stdio' '
	cix-daemon --help >help && grep -e "--stdio" help
'

test_expect_success 'as root: served at once, trusted, on pipes; ends with its input' '
	echo hello >f && p=$(cix store --add f) &&
	perl stdio.pl "$p" cix-daemon --stdio --debug >out 2>err &&
	cat out &&
	grep "^version " out && grep -x "valid 1" out && grep -x "exit 0" out &&
	grep "connection from uid 0 .*(trusted)" err &&
	perl stdio.pl "$CIX_STORE_DIR/00000000000000000000000000000000-nothing" \
		cix-daemon --stdio >out2 2>err2 &&
	grep -x "valid 0" out2 && grep -x "exit 0" out2
'

test_expect_success 'a client that leaves at once: no error, exit 0' '
	cix-daemon --stdio </dev/null >o 2>e &&
	test_line_count = 0 e
'

# bridge.pl SOCKET CMD...: as inetd, CMD run for each connection to
# SOCKET with the connection as its standard input and output.
cat >bridge.pl <<\EOF
use strict;
use warnings;
use IO::Socket::UNIX;
use POSIX ();
my ($path, @cmd) = @ARGV;
unlink $path;
my $l = IO::Socket::UNIX->new(Type => SOCK_STREAM(), Local => $path, Listen => 8) or die "listen: $!\n";
$SIG{CHLD} = 'IGNORE';
while (my $c = $l->accept) {
	my $pid = fork;
	if (defined $pid && $pid == 0) {
		POSIX::dup2(fileno($c), 0) or die; POSIX::dup2(fileno($c), 1) or die;
		exec @cmd or die "exec: $!\n";
	}
	close $c;
}
EOF

test_expect_success NIX 'Nix 2.8'"'"'s client through it, as for a remote store: add, query, verify' '
	perl bridge.pl "$T/bridge" cix-daemon --stdio 2>>bridge.log &
	echo $! >>"$T/.daemons" &&
	test_wait_for "$T/bridge" &&
	B="unix://$T/bridge?store=$CIX_STORE_DIR&log=$CIX_LOG_DIR" &&
	echo through stdio >g &&
	p=$(nix-store --store "$B" --add g) &&
	test "$p" = "$(cix store --add g)" &&
	test "$(nix-store --store "$B" -q --hash "$p")" = "$(cix store -q --hash "$p")" &&
	nix-store --store "$B" -q --references "$p" >refs && test_line_count = 0 refs &&
	nix-store --store "$B" --verify 2>verify.err &&
	! grep -i error verify.err
'

test_expect_success NOBODY 'another user: served by the daemon, with that user'"'"'s rights' '
	test_start_daemon "$SOCK" &&
	p=$(cix store --add f) &&
	chmod 755 "$T" &&
	runuser -u nobody -- perl stdio.pl "$p" cix-daemon --stdio --listen "$SOCK" >out3 2>err3 &&
	cat out3 err3 &&
	grep -x "valid 1" out3 && grep -x "exit 0" out3 &&
	grep "connection from uid $(id -u nobody) " daemon.log >conn &&
	! grep "(trusted)" conn
'

test_expect_success NOBODY 'another user and no daemon: one line, exit 1' '
	test_expect_code 1 runuser -u nobody -- cix-daemon --stdio --listen "$T/no-such-socket" \
		</dev/null >o4 2>e4 &&
	test_line_count = 1 e4 &&
	grep "cannot connect to the daemon at .*no-such-socket" e4 &&
	test_line_count = 0 o4
'

test_done
