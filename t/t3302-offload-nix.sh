#!/bin/sh
# t3302-offload-nix.sh - offloading with Nix 2.8 at either end: Nix to cix-daemon, cix to nix-daemon (BuildDerivation)
# SPDX-License-Identifier: GPL-3.0-or-later
test_description='offloading with Nix 2.8 at either end: Nix'"'"'s builders = ssh-ng://... running cix-daemon (inputs copied there, the derivation sent whole, built in cix'"'"'s sandbox, the outputs brought back), and cix'"'"'s builders running nix-daemon'
. "$(dirname "$0")/test-lib.sh"
. "$CIX_SRC_DIR/t/lib-ssh.sh"

T=$TRASH_DIRECTORY
test_private_store
test_sandbox_host_paths
ssh_setup
test_have_prereq NIX && test_have_prereq SSHD && test_set_prereq NIX_SSHD

N="local?store=$CIX_STORE_DIR&real=$T/nixreal&state=$T/nixstate&log=$T/nixlog"
nixs () { nix-store --store "$N" "$@"; }
builders () {
	hk_=$(base64 -w0 <"$T/machines/$1/hostkey.pub")
	echo "ssh-ng://root@127.0.0.1?store=$CIX_STORE_DIR&remote-program=$CIX_BUILD_DIR/cix-daemon x86_64-linux $T/ssh/id 1 1 - - $hk_"
}
# Nix builds nothing here: the machine does.
nix_offload () {
	NIX_SSHOPTS="-F /dev/null -p $(cat "$T/machines/c/port")" \
	nix-store --store "$N" --option builders "$(builders c)" --option max-jobs 0 \
		--option builders-use-substitutes false "$@"
}

cat >two.nix <<'EOF2'
rec {
  lib = derivation { name = "lib"; system = "x86_64-linux"; builder = "/bin/sh";
    args = [ "-c" "/bin/mkdir $out; echo library > $out/data" ]; };
  app = derivation { name = "app"; system = "x86_64-linux"; builder = "/bin/sh";
    args = [ "-c" "/bin/mkdir $out; echo app of ${lib} > $out/data; /bin/cat ${lib}/data >> $out/data" ]; };
  fails = derivation { name = "fails"; system = "x86_64-linux"; builder = "/bin/sh";
    args = [ "-c" "echo going wrong; exit 3" ]; };
}
EOF2

test_expect_success NIX_SSHD 'machine c (cix-daemon) starts' '
	ssh_machine_start c
'

test_expect_success NIX_SSHD 'nix-store --realise with max-jobs 0: both built on c, brought back' '
	drv=$(nix-instantiate --store "$N" two.nix -A app 2>/dev/null) &&
	nix_offload --realise "$drv" >out 2>err &&
	app=$(cat out) && cat "$T/nixreal/${app#$CIX_STORE_DIR/}/data" >got &&
	grep "^app of $CIX_STORE_DIR/.*-lib$" got && grep "^library$" got &&
	ssh_on c cix store --check-validity "$app" &&
	ssh_on c cix store -q --hash "$app" >h2 && nixs -q --hash "$app" >h1 && test_cmp h1 h2 &&
	nixs --verify --check-contents
'

test_expect_success NIX_SSHD 'a build that fails on c: Nix says so, with its log; nothing registered' '
	drv=$(nix-instantiate --store "$N" two.nix -A fails 2>/dev/null) &&
	! nix_offload --realise "$drv" >out 2>err &&
	cat err && grep "going wrong" err &&
	out=$(nixs -q --outputs "$drv") &&
	! nixs --check-validity "$out" 2>/dev/null &&
	! ssh_on c cix store --check-validity "$out" 2>/dev/null
'

ssh_nix_remote nix-remote.sh

test_expect_success NIX_SSHD 'the other way: cix offloads to a machine running nix-daemon' '
	ssh_machine_start n &&
	hk=$(base64 -w0 <"$T/machines/n/hostkey.pub") &&
	m="ssh-ng://root@127.0.0.1:$(cat machines/n/port)?remote-program=$T/nix-remote.sh x86_64-linux $T/ssh/id 1 1 - - $hk" &&
	drv=$(nix-instantiate --store "$N" two.nix -A app 2>/dev/null) &&
	app=$(nixs -q --outputs "$drv") &&
	nixs --export $(nixs -qR "$drv") >drvs.export && cix store --import <drvs.export >/dev/null &&
	! cix store --check-validity "$app" 2>/dev/null &&
	cix store --realise -j0 --builders "$m" "$drv" >out 2>err &&
	cat err && test "$(cat out)" = "$app" &&
	grep "^app of $CIX_STORE_DIR/.*-lib$" "$app/data" &&
	ssh_on n env NIX_STORE_DIR=$CIX_STORE_DIR NIX_STATE_DIR=$CIX_STATE_DIR/nix \
		nix-store -q --hash "$app" >h2 &&
	cix store -q --hash "$app" >h1 && test_cmp h1 h2 &&
	cix store --verify --check-contents
'

test_done
