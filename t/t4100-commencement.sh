#!/bin/sh
# t4100-commencement.sh - the tool chain's stages, checked without building them
# SPDX-License-Identifier: GPL-3.0-or-later
test_description='(gnu packages commencement): the stages lower to derivations that use what doc/bootstrap.md says and nothing else; the means are hidden; glibc alone asks for a /bin/sh. Nothing is built (GCC and glibc take an hour: make distro-check builds them).'
real_home=${HOME:-/root}
. "$(dirname "$0")/test-lib.sh"
. "$CIX_SRC_DIR/t/lib-bootstrap.sh"

test_private_store
unset XDG_CACHE_HOME
bootstrap_prereq

# inputs NAME: the names of the derivations NAME's derivation takes, sorted.
inputs () {
	cix derivation show "$(cat "$1.drv")" |
		sed -n 's|.*"\(/[^"]*\.drv\)": *\[.*|\1|p' |
		sed 's|^.*/[a-z0-9]\{32\}-||; s|\.drv$||' | sort
}

test_expect_success BOOTSTRAP 'setup: the seeds in the store; every stage lowers' '
	cix store --add-fixed sha256 "$BOOT/bootstrap-tools-gnu.tar.xz" >/dev/null &&
	cix store --add-fixed sha256 "$BOOT/bootstrap-tools-extra.tar.xz" >/dev/null &&
	cix store --add "$BOOT/busybox" >/dev/null &&
	for p in linux-headers glibc binutils bash gcc gcc-toolchain; do
		cix build -d $p >$p.drv 2>$p.err || { cat $p.err; return 1; }
	done
'

test_expect_success BOOTSTRAP 'glibc: the seeds, the kernel headers, bison, busybox at /bin/sh; no wrapped compiler' '
	inputs glibc >in &&
	grep -x "bootstrap-tools-full-0" in &&
	grep -x "linux-headers-6.1.176" in &&
	grep -x "bison-boot0-3.8.2" in &&
	! grep -e "^seed-gcc" -e "^bootstrap-tools-0" -e "^gcc-" in &&
	cix derivation show "$(cat glibc.drv)" >show &&
	grep -q "\"__cixBinSh\": \"$CIX_STORE_DIR/[a-z0-9]*-busybox/bin/busybox\"" show &&
	grep -qF "\"configureFlags\": \"CC=\${bootstrap_tools}/usr/bin/x86_64-linux-gnu-gcc-12" show
'

test_expect_success BOOTSTRAP 'GCC: built by seed-gcc, linked by the ld wrapper, against glibc' '
	inputs gcc >in &&
	for d in seed-gcc-12.2.0 ld-wrapper-0 binutils-2.40 glibc-2.36 m4-boot0-1.4.19; do
		grep -x "$d" in || return 1
	done &&
	grep -x "gmp-6.2.1.tar.xz" in && grep -x "mpc-1.3.1.tar.gz" in &&
	cix derivation show "$(cat gcc.drv)" >show &&
	grep -q -- "--with-native-system-header-dir=\${glibc}/include" show &&
	! grep -q __cixBinSh show
'

test_expect_success BOOTSTRAP 'only glibc asks for a /bin/sh' '
	for p in linux-headers binutils bash gcc gcc-toolchain; do
		! cix derivation show "$(cat $p.drv)" | grep -q __cixBinSh || return 1
	done
'

test_expect_success BOOTSTRAP 'the means are hidden, the tool chain is listed' '
	cix package -A >avail &&
	for p in glibc binutils bash gcc gcc-toolchain linux-headers; do
		grep -q "^$p	" avail || { echo "$p not listed"; return 1; }
	done &&
	! grep -e "^seed-gcc	" -e "^ld-wrapper	" -e "^m4-boot0	" -e "^bison-boot0	" \
		-e "^bootstrap-tools" avail
'

test_done
