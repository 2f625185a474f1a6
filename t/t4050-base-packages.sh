#!/bin/sh
# t4050-base-packages.sh - the GNU packages of (gnu packages base): sed, grep, diffutils, patch, findutils
# SPDX-License-Identifier: GPL-3.0-or-later
test_description='packages: (gnu packages base) evaluates each of its packages; sed builds from its real source with the bootstrap, passes its tests and runs'
real_home=${HOME:-/root}
. "$(dirname "$0")/test-lib.sh"
. "$CIX_SRC_DIR/t/lib-bootstrap.sh"

packages_setup sed

# Evaluating a package needs the bootstrap binaries in the store.
test_expect_success BOOTSTRAP 'the bootstrap binaries are added to the store' '
	cix store --add-fixed sha256 "$BOOT/bootstrap-tools-gnu.tar.xz" &&
	cix store --add "$BOOT/busybox"
'

test_expect_success BOOTSTRAP 'each package of (gnu packages base) evaluates to a derivation' '
	for p in hello sed grep diffutils patch findutils; do
		cix build -d $p >$p.drv || exit 1
		test_line_count = 1 $p.drv &&
		grep -q -- "-$p-[0-9][0-9.]*\.drv$" $p.drv || exit 1
	done &&
	cix build -d sed >sed2.drv && test_cmp sed.drv sed2.drv
'

test_expect_success 'each package'"'"'s source is its upstream tarball' '
	for p in sed grep diffutils patch findutils; do
		cix build -S -d $p >$p.src || exit 1
		grep -q -- "-$p-[0-9][0-9.]*\.tar\.xz\.drv$" $p.src || exit 1
	done
'

test_expect_success PACKAGES 'sed builds from its source (its tests pass) and runs' '
	cix build sed >sed.out 2>sed.log &&
	test_line_count = 1 sed.out &&
	grep -q "starting phase .check." sed.log &&
	grep -q "^# FAIL: *0$" sed.log &&
	s=$(cat sed.out)/bin/sed &&
	"$s" --version >version &&
	head -1 version >v1 && grep -q "(GNU sed) 4\.9$" v1 &&
	printf "hello world\nhello again\n" | "$s" -e "s/hello/bye/" -e "2s/\(a\)gain/\1new/" >subst &&
	printf "bye world\nbye anew\n" >expect && test_cmp expect subst
'

test_expect_success PACKAGES 'nothing of the host in sed: loader and RUNPATH in the store' '
	s=$(cat sed.out)/bin/sed &&
	elf_in_store "$s" "^$CIX_STORE_DIR/.*-bootstrap-tools-0/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2$"
'

test_done
