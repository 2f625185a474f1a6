#!/bin/sh
# t3170-daemon-nix-client.sh - what Nix 2.8's clients (and older ones) ask of the daemon
# SPDX-License-Identifier: GPL-3.0-or-later
test_description='cix-daemon: nix copy (AddMultipleToStore), nix build -o (builtOutputs), plain .drv builds of old clients, ExportPath'
. "$(dirname "$0")/test-lib.sh"

test_private_store
test_sandbox_host_paths
test_nix_oracle
# A Nix store whose real directory is another builds in its sandbox.
NIX_CONFIG="$NIX_CONFIG
extra-sandbox-paths = /bin /lib /lib64 /usr"
T=$TRASH_DIRECTORY
printf 'trusted-users = root\n' >"$T/cix.conf"
SOCK=$T/sock
D="unix://$SOCK?store=$CIX_STORE_DIR&log=$CIX_LOG_DIR"
dst () { nix-store --store "$D" "$@"; }
nix3 () { nix --extra-experimental-features nix-command "$@"; }
[ -x /usr/bin/perl ] && test_set_prereq PERL
[ "$(id -u)" = 0 ] && command -v runuser >/dev/null && id nobody >/dev/null 2>&1 &&
	test_set_prereq NOBODY

# A derivation with two outputs, and one that depends on it.
cat >two.nix <<\EOF
rec {
  lib = derivation { name = "two"; system = "x86_64-linux"; builder = "/bin/sh";
    outputs = [ "out" "dev" ];
    args = [ "-c" "echo lib > $out; echo dev of $out > $dev" ]; };
  app = derivation { name = "app"; system = "x86_64-linux"; builder = "/bin/sh";
    args = [ "-c" "echo uses ${lib} > $out" ]; };
}
EOF

# client.pl SOCKET MINOR OP PATH: one operation as a client of protocol
# 1.MINOR. "build" (BuildPaths of the path, plain) prints the reply;
# "export" (ExportPath) prints, to stdout, the stream a client that
# exports one path makes of it: 1, the entry, 0.
cat >client.pl <<\EOF
use strict;
use warnings;
no warnings 'portable';
use IO::Socket::UNIX;
use Socket qw(SOCK_STREAM);
require "$ENV{CIX_SRC_DIR}/t/lib-wire.pl";
my ($path, $minor, $op, $arg) = @ARGV;
$SIG{ALRM} = sub { print STDERR "timeout\n"; exit 3; };
alarm 60;
my $s = IO::Socket::UNIX->new(Type => SOCK_STREAM, Peer => $path) or die "connect: $!\n";
put($s, u64(0x6e697863));
get_u64($s) == 0x6478696f or die "bad magic\n";
get_u64($s);
put($s, u64(0x100 | $minor) . u64(0) . u64(0));
get_str($s) if $minor >= 33;
my $data = '';
# Frames up to LAST; STDERR_WRITE data is kept.
sub frames {
	while (1) {
		my $f = get_u64($s);
		defined $f or die "eof in frames\n";
		return if $f == 0x616c7473;
		if ($f == 0x64617416) { $data .= get_str($s); next; }
		if ($f == 0x6f6c6d67) { get_str($s); next; }
		if ($f == 0x53545254) {   # START_ACTIVITY
			get_u64($s); get_u64($s); get_u64($s); get_str($s);
			my $n = get_u64($s);
			for (1 .. $n) { get_u64($s) == 1 ? get_str($s) : get_u64($s); }
			get_u64($s);
			next;
		}
		if ($f == 0x53544f50) { get_u64($s); next; }   # STOP_ACTIVITY
		if ($f == 0x52534c54) {                       # RESULT
			get_u64($s); get_u64($s);
			my $n = get_u64($s);
			for (1 .. $n) { get_u64($s) == 1 ? get_str($s) : get_u64($s); }
			next;
		}
		die sprintf("unexpected frame %x\n", $f) unless $f == 0x63787470;
		die "error: " . ($minor >= 26 ? join(' ', get_str($s), get_u64($s), get_str($s), get_str($s)) : get_str($s)) . "\n";
	}
}
frames();
if ($op eq 'build') {
	put($s, u64(9) . u64(1) . str($arg) . ($minor >= 15 ? u64(0) : ''));
	frames();
	print "built ", get_u64($s), "\n";
} elsif ($op eq 'export') {
	put($s, u64(16) . str($arg) . u64(0));
	frames();
	get_u64($s) == 1 or die "no 1 after the export\n";
	binmode STDOUT;
	print u64(1), $data, u64(0);
}
EOF

test_expect_success 'set-up: the oracle builds the derivations; the daemon starts' '
	nixs --realise $(nix-instantiate --store "$N" two.nix -A app 2>/dev/null) >app.nix.out &&
	nixs -qR $(cat app.nix.out) | sort >closure &&
	test_line_count = 2 closure &&
	test_start_daemon "$SOCK" CIX_CONF_FILE="$T/cix.conf"
'

test_expect_success 'nix copy --to the daemon: AddMultipleToStore registers the closure as Nix has it' '
	nix3 copy --from "$N" --to "$D" $(cat app.nix.out) &&
	for p in $(cat closure); do
		test "$(dst -q --hash $p)" = "$(nixs -q --hash $p)" &&
		test "$(dst -q --references $p | sort)" = "$(nixs -q --references $p | sort)" || return 1
	done &&
	cix store --verify-path $(cat closure)
'

test_expect_success 'nix copy of a path already there, and back from the daemon' '
	nix3 copy --from "$N" --to "$D" $(cat app.nix.out) &&
	nix3 copy --no-check-sigs --from "$D" \
		--to "local?store=$CIX_STORE_DIR&real=$T/back&state=$T/backstate" $(cat app.nix.out) &&
	test "$(cat $T/back/$(basename $(cat app.nix.out)))" = "$(cat $(cat app.nix.out))"
'

test_expect_success 'nix build -o through the daemon: the outputs are named in builtOutputs' '
	nix3 build --store "$D" -f two.nix lib --json -o res >built.json &&
	grep "\"out\":\"$(readlink res)\"" built.json &&
	test "$(cat res)" = lib &&
	nix3 build --store "$N" -f two.nix lib --json --no-link >oracle.json &&
	test_cmp oracle.json built.json
'

test_expect_success 'nix build of outputs valid already, and of another output: each one named' '
	nix3 build --store "$D" -f two.nix lib --json -o res2 >again.json &&
	test_cmp built.json again.json &&
	nix3 build --store "$D" -f two.nix lib.dev --json -o dev >dev.json &&
	nix3 build --store "$N" -f two.nix lib.dev --json --no-link >oracle-dev.json &&
	test_cmp oracle-dev.json dev.json &&
	test "$(cat dev-dev)" = "dev of $(readlink res)"
'

test_expect_success 'a path built here is ultimately trusted; one copied in is not' '
	out=$(readlink dev-dev) &&
	nix3 path-info --store "$D" --json $out >built-info.json &&
	grep "\"ultimate\":true" built-info.json &&
	nix3 store verify --store "$D" $out &&
	nix3 path-info --store "$D" --json $(cat app.nix.out) >copied-info.json &&
	! grep "\"ultimate\":true" copied-info.json &&
	test_must_fail nix3 store verify --store "$D" $(cat app.nix.out) 2>verify.err &&
	grep "untrusted" verify.err
'

test_expect_success PERL 'a client before 1.30 names a plain .drv: all its outputs are built' '
	drv=$(nix-instantiate --store "$D" -E "derivation { name = \"two-old\"; system = \"x86_64-linux\"; builder = \"/bin/sh\"; outputs = [ \"out\" \"dev\" ]; args = [ \"-c\" \"echo a > \$out; echo b > \$dev\" ]; }" 2>/dev/null) &&
	test "$(dst --check-validity --print-invalid $(dst -q --outputs "$drv") | wc -l)" = 2 &&
	perl client.pl "$SOCK" 28 build "$drv" >reply &&
	grep "^built 1" reply &&
	for o in $(dst -q --outputs "$drv"); do
		test "$(dst --check-validity --print-invalid $o)" = "" || return 1
	done
'

test_expect_success PERL 'a client of 1.34 naming a plain .drv means the file: nothing is built' '
	drv=$(nix-instantiate --store "$D" -E "derivation { name = \"two-new\"; system = \"x86_64-linux\"; builder = \"/bin/sh\"; args = [ \"-c\" \"echo c > \$out\" ]; }" 2>/dev/null) &&
	perl client.pl "$SOCK" 34 build "$drv" >reply &&
	grep "^built 1" reply &&
	test "$(dst --check-validity --print-invalid $(dst -q --outputs "$drv"))" != ""
'

test_expect_success PERL 'ExportPath writes the entry alone: 1, the entry and 0 import anywhere' '
	p=$(cat app.nix.out) &&
	dep=$(nixs -q --references $p) &&
	perl client.pl "$SOCK" 34 export "$dep" >one.export &&
	perl client.pl "$SOCK" 34 export "$p" >two.export &&
	nixs --export $dep >nix-one.export &&
	cmp one.export nix-one.export &&
	cix store --delete $p &&
	test "$(dst --check-validity --print-invalid $p)" = $p &&
	cix store --import <two.export >imported &&
	test "$(cat imported)" = $p &&
	cix store --verify-path $p &&
	nix-store --store "local?store=$CIX_STORE_DIR&real=$T/imp&state=$T/impstate" \
		--import <one.export >nix-imported &&
	test "$(cat nix-imported)" = $dep
'

test_expect_success 'a trusted client'"'"'s post-build-hook, secret-key-files and auto-optimise-store' '
	cat >hook.sh <<-EOF &&
	#!/bin/sh
	echo "hook \$DRV_PATH \$OUT_PATHS" >>"$T/hook.out"
	echo "the hook ran"
	EOF
	chmod +x hook.sh &&
	nix-store --generate-binary-cache-key test-key-1 sk pk &&
	drv=$(nix-instantiate --store "$D" -E "derivation { name = \"dup\"; system = \"x86_64-linux\"; builder = \"/bin/sh\"; args = [ \"-c\" \"/bin/mkdir \$out; echo same > \$out/a; echo same > \$out/b\" ]; }" 2>/dev/null) &&
	dst --realise $drv --option post-build-hook "$T/hook.sh" --option secret-key-files "$T/sk" \
		--option auto-optimise-store true >out 2>hook.log &&
	o=$(cat out) &&
	grep "the hook ran" hook.log &&
	test "$(cat hook.out)" = "hook $drv $o" &&
	nix3 path-info --store "$D" --sigs $o | grep "test-key-1:" &&
	nix3 store verify --store "$D" --option trusted-public-keys "$(cat pk)" --sigs-needed 1 $o &&
	test_must_fail nix3 store verify --store "$D" --option trusted-public-keys "$(cat pk)" \
		--sigs-needed 2 $o 2>/dev/null &&
	test "$(stat -c %i $o/a)" = "$(stat -c %i $o/b)"
'

test_expect_success 'nix store sign through the daemon (AddSignatures): trusted clients only' '
	nix-store --generate-binary-cache-key test-key-2 sk2 pk2 &&
	o=$(cat out) &&
	nix3 store sign --store "$D" --key-file sk2 $o &&
	nix3 store sign --store "$D" --key-file sk2 $o &&
	test "$(nix3 path-info --store "$D" --sigs $o | grep -o "test-key-2:" | wc -l)" = 1 &&
	nix3 store verify --store "$D" --option trusted-public-keys "$(cat pk2)" --sigs-needed 1 $o &&
	nix-store --generate-binary-cache-key test-key-3 sk2-nobody pk3 && chown nobody sk2-nobody &&
	test_must_fail runuser -u nobody -- env HOME=/nonexistent \
		nix --extra-experimental-features nix-command store sign --store "$D" --key-file "$T/sk2-nobody" $o 2>nbsign.err &&
	grep "not privileged to add signatures" nbsign.err
'

test_expect_success 'repeat: a build that differs when repeated fails; one that does not passes' '
	rnd=$(nix-instantiate --store "$D" -E "derivation { name = \"rnd\"; system = \"x86_64-linux\"; builder = \"/bin/sh\"; args = [ \"-c\" \"/bin/od -An -N8 -tx8 /dev/urandom > \$out\" ]; }" 2>/dev/null) &&
	same=$(nix-instantiate --store "$D" -E "derivation { name = \"same-rep\"; system = \"x86_64-linux\"; builder = \"/bin/sh\"; args = [ \"-c\" \"echo same > \$out\" ]; }" 2>/dev/null) &&
	dst --realise $same --option repeat 1 &&
	test_must_fail dst --realise $rnd --option repeat 1 2>err &&
	grep "deterministic" err
'

test_expect_success NOBODY 'an untrusted client'"'"'s restricted settings are refused with a warning' '
	: >"$T/hook.out" &&
	drv=$(nix-instantiate --store "$D" -E "derivation { name = \"nb-hook\"; system = \"x86_64-linux\"; builder = \"/bin/sh\"; args = [ \"-c\" \"echo nb > \$out\" ]; }" 2>/dev/null) &&
	runuser -u nobody -- env HOME=/nonexistent nix-store --store "$D" --realise $drv \
		--option post-build-hook "$T/hook.sh" >/dev/null 2>nb.log &&
	grep "ignoring the client-specified setting .post-build-hook." nb.log &&
	test ! -s "$T/hook.out"
'

test_expect_success 'repair: a modified output is built again from its deriver (verify, realise)' '
	drv=$(nix-instantiate --store "$D" -E "derivation { name = \"fixme\"; system = \"x86_64-linux\"; builder = \"/bin/sh\"; args = [ \"-c\" \"/bin/mkdir \$out; echo good > \$out/f\" ]; }" 2>/dev/null) &&
	o=$(dst --realise $drv) &&
	chmod u+w $o/f && echo bad >$o/f && chmod u-w $o/f &&
	test_must_fail dst --verify --check-contents 2>v1 &&
	grep "was modified" v1 &&
	dst --verify --check-contents --repair 2>v2 &&
	grep "repaired" v2 &&
	test "$(cat $o/f)" = good &&
	dst --verify --check-contents &&
	chmod u+w $o/f && echo worse >$o/f && chmod u-w $o/f &&
	dst --realise --repair $drv >/dev/null &&
	test "$(cat $o/f)" = good &&
	dst --verify --check-contents
'

test_expect_success 'repair: a path nothing here can build again is reported, and stays' '
	p=$(dst --add two.nix) &&
	chmod u+w $p && echo x >>$p && chmod u-w $p &&
	test_must_fail dst --verify --check-contents --repair 2>v3 &&
	grep "cannot repair .*$p" v3 &&
	chmod u+w $p && cp two.nix $p && chmod u-w $p
'

test_expect_success 'nix profile install: a source path with references, added through the daemon' '
	nix3 profile install --store "$D" --profile "$T/prof" $(cat app.nix.out) &&
	p=$(readlink -f "$T/prof") &&
	dst -q --references $p | grep -F -x $(cat app.nix.out) &&
	test_path_is_file $p/manifest.json &&
	nix3 path-info --store "$D" --json $p | grep "\"ca\":\"fixed:r:sha256:" &&
	cix store --verify-path $p
'

test_expect_success 'nix-store -r --keep-going: after a failed build the daemon goes on with the others' '
	cat >kg.nix <<-\EOF &&
	let mk = name: deps: derivation { name = name; system = "x86_64-linux";
	      builder = "/bin/sh"; inherit deps; args = [ "-c" "echo ${name} $deps > $out" ]; };
	    bad = derivation { name = "kg-bad"; system = "x86_64-linux"; builder = "/bin/sh";
	      args = [ "-c" "exit 7" ]; };
	in mk "kg-top" [ (mk "kg-m2" [ (mk "kg-m1" [ bad ]) ]) (mk "kg-l0" []) (mk "kg-l1" []) ]
	EOF
	drv=$(nix-instantiate --store "$D" kg.nix 2>/dev/null) &&
	leaves=$(dst -qR $drv | grep "kg-l[01].drv$") &&
	test_must_fail dst -r -j 1 $drv 2>err &&
	test "$(dst --check-validity --print-invalid $(for d in $leaves; do dst -q --outputs $d; done) | wc -l)" = 2 &&
	test_must_fail dst -r -j 1 --keep-going $drv 2>err &&
	grep "kg-bad" err &&
	test "$(dst --check-validity --print-invalid $(for d in $leaves; do dst -q --outputs $d; done))" = "" &&
	top=$(dst -q --outputs $drv) &&
	test "$(dst --check-validity --print-invalid $top)" = "$top"
'

test_expect_success 'keep-outputs of a trusted client: a rooted derivation keeps its outputs' '
	drv=$(nix-instantiate --store "$D" --add-root "$T/kept.drv" -E "derivation { name = \"keep-me\"; system = \"x86_64-linux\"; builder = \"/bin/sh\"; args = [ \"-c\" \"echo keep > \$out\" ]; }" 2>/dev/null) &&
	o=$(dst --realise $drv) &&
	dst --gc --option keep-outputs true >/dev/null &&
	test "$(dst --check-validity --print-invalid $o)" = "" &&
	dst --gc --option keep-outputs false >/dev/null &&
	test "$(dst --check-validity --print-invalid $o)" = $o
'

test_done
