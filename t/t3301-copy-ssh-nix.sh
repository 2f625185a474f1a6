#!/bin/sh
# t3301-copy-ssh-nix.sh - ssh-ng:// both ways with Nix 2.8: cix copies to nix-daemon --stdio, Nix copies to cix-daemon --stdio
# SPDX-License-Identifier: GPL-3.0-or-later
test_description='ssh-ng:// with Nix 2.8 at either end: cix copy to and from a machine whose remote program is nix-daemon, nix copy to and from one whose remote program is cix-daemon'
. "$(dirname "$0")/test-lib.sh"
. "$CIX_SRC_DIR/t/lib-ssh.sh"

PATH=$CIX_BUILD_DIR/bench:$PATH
T=$TRASH_DIRECTORY
test_private_store
ssh_setup
test_have_prereq NIX && test_have_prereq SSHD && test_set_prereq NIX_SSHD

# On machine n, Nix's daemon serves the machine's store: the same store
# directory, its own database (Nix's, in the machine's state directory).
ssh_nix_remote nix-remote.sh

# Nix's client here: its own store of the same store directory.
N="local?store=$CIX_STORE_DIR&real=$T/nixreal&state=$T/nixstate&log=$T/nixlog"
nixs () { nix-store --store "$N" "$@"; }
# Nix's ssh-ng:// takes no port in the URI: NIX_SSHOPTS gives it.
nix_uri () {
	m_=$T/machines/$1
	hk_=$(base64 -w0 <"$m_/hostkey.pub")
	echo "ssh-ng://root@127.0.0.1?store=$CIX_STORE_DIR&ssh-key=$T/ssh/id&base64-ssh-public-host-key=$hk_&remote-program=$2"
}
nix_sshopts () { echo "-F /dev/null -p $(cat "$T/machines/$1/port")"; }

test_expect_success NIX_SSHD 'machines n (nix-daemon) and c (cix-daemon) start' '
	ssh_machine_start n && ssh_machine_start c &&
	gen-closure -p ends "$CIX_STORE_DIR" 30 >c.exp 2>/dev/null &&
	cix store --import <c.exp >/dev/null &&
	echo "made by Nix" >nf && nixs --add nf >np
'

test_expect_success NIX_SSHD 'cix copy --to a nix-daemon: Nix has the closure, the same hashes' '
	top=$(sed -n 1p ends) &&
	cix copy --to "$(ssh_uri n remote-program=$T/nix-remote.sh)" "$top" &&
	cix store -qR "$top" | sort >want &&
	ssh_on n env NIX_STORE_DIR=$CIX_STORE_DIR NIX_STATE_DIR=$CIX_STATE_DIR/nix \
		nix-store -qR "$top" | sort >got &&
	test_cmp want got &&
	ssh_on n env NIX_STORE_DIR=$CIX_STORE_DIR NIX_STATE_DIR=$CIX_STATE_DIR/nix \
		nix-store -q --hash "$top" >h2 &&
	cix store -q --hash "$top" >h1 && test_cmp h1 h2 &&
	ssh_on n env NIX_STORE_DIR=$CIX_STORE_DIR NIX_STATE_DIR=$CIX_STATE_DIR/nix \
		nix-store --verify --check-contents
'

test_expect_success NIX_SSHD 'cix copy --from a nix-daemon' '
	ssh_on n env NIX_STORE_DIR=$CIX_STORE_DIR NIX_STATE_DIR=$CIX_STATE_DIR/nix \
		sh -c "echo made on n >g && nix-store --add g" >pn &&
	pn=$(cat pn) &&
	cix copy --from "$(ssh_uri n remote-program=$T/nix-remote.sh)" "$pn" &&
	grep "made on n" "$pn" && cix store --verify --check-contents
'

test_expect_success NIX_SSHD 'nix copy --to a cix-daemon' '
	np=$(cat np) &&
	NIX_SSHOPTS=$(nix_sshopts c) nix copy --store "$N" \
		--to "$(nix_uri c $CIX_BUILD_DIR/cix-daemon)" "$np" &&
	ssh_on c cix store -q --hash "$np" >h2 && nixs -q --hash "$np" >h1 && test_cmp h1 h2 &&
	ssh_on c cat "$np" >got && grep "made by Nix" got
'

test_expect_success NIX_SSHD 'nix copy --from a cix-daemon' '
	top=$(sed -n 1p ends) &&
	cix copy --to "$(ssh_uri c)" "$top" &&
	NIX_SSHOPTS=$(nix_sshopts c) nix copy --store "$N" --no-check-sigs \
		--from "$(nix_uri c $CIX_BUILD_DIR/cix-daemon)" "$top" &&
	nixs -qR "$top" | sort >got && cix store -qR "$top" | sort >want &&
	test_cmp want got && nixs --verify --check-contents
'

test_done
