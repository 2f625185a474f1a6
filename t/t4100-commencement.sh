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

# The boot stages: the packages bound at the top of (gnu packages
# commencement) and (gnu packages bootstrap), hidden or not; what is not a
# package (a string, an origin, a procedure) does not lower and is passed.
test_expect_success BOOTSTRAP 'the boot stages lower with the final tool chain too' '
	for m in commencement bootstrap; do
		sed -n "s/^(define \([^ ()][^ ()]*\).*/\1/p" \
			"$CIX_SRC_DIR/distro/gnu/packages/$m.scm" |
		while read -r v; do
			CIX_TOOL_CHAIN=final cix build -d -e "(@@ (gnu packages $m) $v)" 2>/dev/null &&
			echo "$m $v" >>bound
		done
	done | sort -u >stages &&
	# make run and distro-check build every stage of the module.
	grep "^commencement " bound | while read -r m v; do
		sed "s/#.*//" "$CIX_SRC_DIR/distro/commencement-stages" | tr " " "\n" |
		grep -qx -e "$v" -e "@$v" || { echo "$v: not in distro/commencement-stages"; return 1; }
	done &&
	grep -q -- "-coreutils-9.1.drv$" stages &&
	grep -q -- "-cix-gnu-build-0.drv$" stages &&
	test $(grep -c -- "-cix-gnu-build-0.drv$" stages) = 2 &&
	grep -q -- "-gcc-toolchain-12.2.0.drv$" stages
'

# is_boot ITEM: a bootstrap binary, or what unpacks one.
boot_items="-bootstrap-tools-0.drv\$|-bootstrap-tools-full-0.drv\$|-bootstrap-tools-(gnu|extra).tar.xz\$|-busybox\$"

test_expect_success BOOTSTRAP 'every package of the distribution reaches the bootstrap binaries only through the boot stages' '
	CIX_TOOL_CHAIN=final cix package -A | cut -f1 | sort -u >names &&
	test $(wc -l <names) -ge 20 &&
	while read -r p; do
		CIX_TOOL_CHAIN=final cix build -d "$p" || return 1
	done <names >drvs &&
	cix gc -R $(cat drvs) | grep "\.drv$" | sort -u >graph &&
	test $(wc -l <graph) -gt $(wc -l <drvs) &&
	grep -E -e "$boot_items" graph >/dev/null &&
	comm -23 graph stages >others &&
	grep -q -- "-hello-2.10.drv$" others &&
	while read -r d; do
		if cix gc --references "$d" | grep -E -e "$boot_items"; then
			echo "$d takes a bootstrap binary but is not a boot stage"; return 1
		fi
	done <others
'

test_expect_success BOOTSTRAP 'with the final tool chain, a package takes no bootstrap binary itself' '
	CIX_TOOL_CHAIN=final cix build -d hello >hello.drv &&
	inputs hello >in &&
	grep -x "gcc-12.2.0" in && grep -x "glibc-2.36" in && grep -x "ld-wrapper-0" in &&
	grep -x "coreutils-9.1" in && grep -x "cix-gnu-build-0" in &&
	! grep -e "^bootstrap-tools" -e "^seed-gcc" in
'

test_expect_success BOOTSTRAP 'CIX_TOOL_CHAIN=bootstrap: the bootstrap binaries; anything else is refused' '
	CIX_TOOL_CHAIN=bootstrap cix build -d hello >hello.drv &&
	inputs hello >in &&
	grep -x "bootstrap-tools-0" in && ! grep -x "gcc-12.2.0" in &&
	test_must_fail env CIX_TOOL_CHAIN=foo cix build -d hello 2>err &&
	grep -q "CIX_TOOL_CHAIN: unknown tool chain .foo." err &&
	test $(wc -l <err) = 1
'

test_expect_success BOOTSTRAP 'trivial-build-system: a snippet runs in the implicit inputs'"'"' bash; without them it is refused' '
	cat >triv.scm <<-\EOF &&
	(use-modules (guix packages) (guix build-system trivial))
	(package (name "triv") (version "1") (source #f)
	  (build-system trivial-build-system)
	  (arguments (quote (#:builder "mkdir $out"))))
	EOF
	CIX_TOOL_CHAIN=final cix build -d -f triv.scm >triv.drv &&
	cix derivation show "$(cat triv.drv)" >show &&
	grep -q "\"builder\": \"$CIX_STORE_DIR/[a-z0-9]*-bash-5.2.15/bin/bash\"" show &&
	grep -qF "export PATH=\$bash/bin:\$coreutils/bin" show &&
	sed "s/(quote (#:builder/(quote (#:implicit-inputs? #f #:builder/" triv.scm >triv2.scm &&
	test_must_fail cix build -d -f triv2.scm 2>err &&
	grep -q "a shell snippet as #:builder needs the implicit inputs" err
'

test_done
