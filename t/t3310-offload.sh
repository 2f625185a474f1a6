#!/bin/sh
# t3310-offload.sh - builds offloaded to other machines over ssh-ng:// (machines files, --builders)
# SPDX-License-Identifier: GPL-3.0-or-later
test_description='offloading: with -j0 or the local slots taken, derivations build on the machines of a machines file (mount namespaces with their own stores, Debian sshd on 127.0.0.1), inputs sent, outputs brought back checked; dead machines passed over; failures and tampered outputs refused'
. "$(dirname "$0")/test-lib.sh"
. "$CIX_SRC_DIR/t/lib-ssh.sh"

T=$TRASH_DIRECTORY
test_private_store
test_sandbox_host_paths
test_nix_oracle
ssh_setup
test_have_prereq NIX && test_have_prereq SSHD && test_set_prereq NIX_SSHD

# machine_line NAME [JOBS [SYSTEMS]]: NAME's line of a machines file.
machine_line () {
	m_=$T/machines/$1
	echo "ssh-ng://root@127.0.0.1:$(cat "$m_/port")?remote-program=$CIX_BUILD_DIR/cix-daemon" \
		"${3:-x86_64-linux}" "$T/ssh/id" "${2:-1}" 1 - - "$(base64 -w0 <"$m_/hostkey.pub")"
}
on_machine () { n_=$1; shift; ssh_on "$n_" cix store "$@"; }

test_expect_success NIX_SSHD 'derivations written by Nix; machines a and b start' '
	cat >d.nix <<-\EOF &&
	let sh = "/bin/sh"; sys = "x86_64-linux"; in rec {
	  lib = derivation { name = "lib"; system = sys; builder = sh;
	    args = [ "-c" "echo library > $out" ]; };
	  app = derivation { name = "app"; system = sys; builder = sh; inherit lib;
	    args = [ "-c" "/bin/mkdir $out; echo uses $lib > $out/f; /bin/cat $lib >> $out/f" ]; };
	  fails = derivation { name = "fails"; system = sys; builder = sh;
	    args = [ "-c" "echo going wrong on purpose; exit 3" ]; };
	  arm = derivation { name = "arm"; system = "aarch64-linux"; builder = sh;
	    args = [ "-c" "echo > $out" ]; };
	  many = builtins.genList (i: derivation { name = "many-${toString i}"; system = sys;
	    builder = sh; args = [ "-c" "/bin/sleep 0.3; echo ${toString i} > $out" ]; }) 20;
	  tampered = derivation { name = "tampered"; system = sys; builder = sh;
	    args = [ "-c" "echo genuine > $out" ]; };
	}
	EOF
	for x in app fails arm tampered; do
		nix-instantiate --store "$N" d.nix -A $x 2>/dev/null >$x.drv || return 1
	done &&
	nix-instantiate --store "$N" d.nix -A many 2>/dev/null >many.drvs &&
	test_line_count = 20 many.drvs &&
	nixs --export $(nixs -qR $(cat *.drv many.drvs)) >drvs.export &&
	cix store --import <drvs.export >/dev/null &&
	ssh_machine_start a && ssh_machine_start b &&
	machine_line a >machines.a && { machine_line a 2; machine_line b 2; } >machines.ab
'

test_expect_success NIX_SSHD '-j0: built on the machine, the output here, valid, the same hash' '
	cix store --realise -j0 --builders @$T/machines.a $(cat app.drv) >out 2>err &&
	cat err && app=$(cat out) &&
	grep "^uses $CIX_STORE_DIR/.*-lib$" "$app/f" && grep "^library$" "$app/f" &&
	grep "building .*-app.drv. on .ssh-ng://root@127.0.0.1" err &&
	on_machine a --check-validity "$app" &&
	on_machine a -q --hash "$app" >h2 && cix store -q --hash "$app" >h1 && test_cmp h1 h2 &&
	cix store -q --references "$app" >r && grep -e "-lib$" r &&
	cix store --verify --check-contents
'

test_expect_success NIX_SSHD 'without machines, -j0 refuses to build, in one line' '
	test_must_fail cix store --realise -j0 --builders "" $(cat tampered.drv) 2>err &&
	test_line_count = 1 err && grep "max-jobs=0" err
'

test_expect_success NIX_SSHD 'no machine for the system: one line' '
	test_must_fail cix store --realise -j0 --builders @$T/machines.a $(cat arm.drv) 2>err &&
	cat err && grep "aarch64-linux\|no build machine" err &&
	test_line_count = 1 err
'

test_expect_success NIX_SSHD 'twenty builds shared by two machines by their slots' '
	cix store --realise -j0 --builders @$T/machines.ab $(cat many.drvs) >out 2>err &&
	test_line_count = 20 out &&
	for p in $(cat out); do test -f "$p" || return 1; done &&
	na=0 nb=0 &&
	for p in $(cat out); do
		if on_machine a --check-validity "$p" 2>/dev/null; then na=$((na + 1)); fi
		if on_machine b --check-validity "$p" 2>/dev/null; then nb=$((nb + 1)); fi
	done &&
	test $((na + nb)) = 20 &&
	echo "a built $na, b built $nb" &&
	test "$na" -ge 1 && test "$nb" -ge 1
'

test_expect_success NIX_SSHD 'a build that fails there: its log here, nothing registered' '
	test_must_fail cix store --realise -j0 --builders @$T/machines.a $(cat fails.drv) 2>err &&
	cat err && grep "going wrong on purpose" err &&
	grep "build of .*-fails.drv. on .ssh-ng://root@127.0.0.1:[0-9]*. failed" err &&
	out=$(cix store -q --outputs $(cat fails.drv)) &&
	! cix store --check-validity "$out" 2>/dev/null && ! test -e "$out"
'

test_expect_success NIX_SSHD 'a dead machine is passed over; all dead: one line naming them' '
	port=$(ssh_free_port_) &&
	{ echo "ssh-ng://root@127.0.0.1:$port?connect-timeout=3 x86_64-linux $T/ssh/id 1 1";
	  machine_line b; } >machines.dead-b &&
	cix store --realise -j0 --builders @$T/machines.dead-b $(cat tampered.drv) >out 2>err &&
	cat err && grep "127.0.0.1:$port.*trying elsewhere" err &&
	test -f "$(cat out)" &&
	cix gc -d "$(cat out)" && rm -rf "$CIX_STATE_DIR/offload" &&
	echo "ssh-ng://root@127.0.0.1:$port?connect-timeout=3 x86_64-linux $T/ssh/id 1 1" >machines.dead &&
	test_must_fail cix store --realise -j0 --builders @$T/machines.dead $(cat tampered.drv) 2>err &&
	cat err && tail -n1 err | grep "no build machine .*answers (tried ssh-ng://root@127.0.0.1:$port)" &&
	rm -rf "$CIX_STATE_DIR/offload"
'

test_expect_success NIX_SSHD 'an output changed on the machine is refused here' '
	out=$(cix store -q --outputs $(cat tampered.drv)) &&
	! cix store --check-validity "$out" 2>/dev/null &&
	on_machine b --check-validity "$out" &&
	ssh_on b sh -c "chmod u+w $out && echo forged >$out" &&
	test_must_fail cix store --realise -j0 --builders "$(machine_line b)" $(cat tampered.drv) 2>err &&
	cat err && grep -i "hash" err &&
	! cix store --check-validity "$out" 2>/dev/null
'

test_expect_success NIX_SSHD 'an output whose references the machine misstates is refused' '
	app=$(cix store -q --outputs $(cat app.drv)) &&
	on_machine a --check-validity "$app" &&
	ssh_on a python3 -c "
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
db.execute(\"delete from Refs where referrer = (select id from ValidPaths where path = ?)\", (sys.argv[2],))
db.commit()" "$CIX_STATE_DIR/db/db.sqlite" "$app" &&
	on_machine a -q --references "$app" >r && test_line_count = 0 r &&
	cix gc -d "$app" >/dev/null 2>&1 && ! cix store --check-validity "$app" 2>/dev/null &&
	test_must_fail cix store --realise -j0 --builders "$(machine_line a)" $(cat app.drv) 2>err &&
	cat err && grep "refers to paths the machine does not say" err &&
	! cix store --check-validity "$app" 2>/dev/null
'

test_expect_success NIX_SSHD 'with a local slot free, the build stays here' '
	rm -f machines.none &&
	out=$(cix store -q --outputs $(cat tampered.drv)) &&
	cix store --realise -j1 --builders @$T/machines.a $(cat tampered.drv) >o 2>err &&
	! grep "on .ssh-ng" err && grep genuine "$out"
'

test_expect_success NIX_SSHD 'cix build -j0 --builders, of a derivation' '
	out=$(cix store -q --outputs $(cat app.drv)) && { cix gc -d "$out" >/dev/null 2>&1 || :; } &&
	cix build -j0 --builders "$(machine_line b)" $(cat app.drv) >o 2>err &&
	test "$(cat o)" = "$out" && grep "on .ssh-ng://root@127.0.0.1:$(cat machines/b/port)." err
'

test_expect_success NIX_SSHD 'through the daemon: its machines file; the log reaches the client' '
	echo "builders = @$T/machines.b" >daemon.conf && machine_line b >machines.b &&
	test_start_daemon "$T/d.sock" CIX_CONF_FILE=$T/daemon.conf &&
	out=$(cix store -q --outputs $(cat app.drv)) && { cix gc -d "$out" >/dev/null 2>&1 || :; } &&
	CIX_DAEMON_SOCKET=$T/d.sock cix store --realise -j0 $(cat app.drv) >o 2>err &&
	cat err && grep "building .*-app.drv. on .ssh-ng://root@127.0.0.1:$(cat machines/b/port)." err &&
	test "$(cat o)" = "$out" && on_machine b --check-validity "$out" &&
	cix store --verify --check-contents
'

test_done
