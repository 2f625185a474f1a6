#!/bin/sh
# t8000-cross.sh - cross-building for aarch64-linux-gnu: cix build --target, the Scheme API
# SPDX-License-Identifier: GPL-3.0-or-later
test_description='GNU Hello, sed and grep cross-built for aarch64-linux-gnu with the tool chain made from pinned Debian packages: AArch64 ELF files whose loader and libraries are in the store, run under qemu-user; native inputs for the build machine, inputs for the target; %current-target-system and package-cross-derivation'
real_home=${HOME:-/root}
. "$(dirname "$0")/test-lib.sh"
. "$CIX_SRC_DIR/t/lib-bootstrap.sh"

packages_setup hello sed grep
if test_have_prereq PACKAGES && cross_make aarch64-linux-gnu; then
	test_set_prereq CROSS
else
	say "skip: no cross tool chain ($(tail -1 "${CROSS:-.}/aarch64-linux-gnu.log" 2>/dev/null))"
fi
QEMU=$(command -v qemu-aarch64-static || command -v qemu-aarch64 || true)
test -n "$QEMU" && test_set_prereq QEMU
T=aarch64-linux-gnu

# machine_of FILE: the Machine line of its ELF header.
machine_of () {
	readelf -h "$1" | sed -n "s/^ *Machine: *//p"
}

test_expect_success CROSS 'setup: the bootstrap and the cross tool chain in the store' '
	cix store --add-fixed sha256 "$BOOT/bootstrap-tools-gnu.tar.xz" >/dev/null &&
	cix store --add "$BOOT/busybox" >/dev/null &&
	cix store --add-fixed sha256 "$CROSS/cross-tools-$T.tar.xz" >/dev/null
'

test_expect_success CROSS 'a cross derivation differs from the native one, and says --host' '
	cix build -d hello >native.drv &&
	cix build -d --target=$T hello >cross.drv &&
	! test_cmp native.drv cross.drv &&
	cix derivation show "$(cat cross.drv)" >cross.show &&
	grep -q "aarch64-linux-gnu" cross.show &&
	grep -q "cross-tools-aarch64-linux-gnu" cross.show &&
	cix derivation show "$(cat native.drv)" >native.show &&
	! grep -q "cross-tools" native.show
'

test_expect_success CROSS,QEMU 'cross-built GNU Hello: AArch64, its loader in the store, runs under qemu' '
	H=$(cix build --target=$T hello) && echo "$H" >hello.path &&
	test "$(machine_of "$H/bin/hello")" = AArch64 &&
	elf_in_store "$H/bin/hello" "^$CIX_STORE_DIR/.*-cross-tools-$T-12-lib/lib/ld-linux-aarch64.so.1$" &&
	"$QEMU" "$H/bin/hello" >out && test "$(cat out)" = "Hello, world!" &&
	"$QEMU" "$H/bin/hello" -g Bonjour >out && test "$(cat out)" = Bonjour &&
	cix gc --references "$H" >refs &&
	grep -q -- "-cross-tools-$T-12-lib$" refs &&
	! grep -q -- "-cross-tools-$T-12$" refs &&
	! grep -q -- "-bootstrap-tools-0$" refs
'

test_expect_success CROSS,QEMU 'cross-built sed and grep run under qemu and do their work' '
	S=$(cix build --target=$T sed) && G=$(cix build --target=$T grep) &&
	test "$(machine_of "$S/bin/sed")" = AArch64 &&
	test "$(machine_of "$G/bin/grep")" = AArch64 &&
	elf_in_store "$S/bin/sed" && elf_in_store "$G/bin/grep" &&
	echo "hello world" | "$QEMU" "$S/bin/sed" -e "s/world/aarch64/" >out &&
	test "$(cat out)" = "hello aarch64" &&
	printf "one\ntwo\nthree\n" | "$QEMU" "$G/bin/grep" -c "^t" >out &&
	test "$(cat out)" = 2
'

test_expect_success CROSS 'native inputs for the build machine, inputs for the target' '
	cat >mixed.scm <<-\EOF &&
	(use-modules (guix packages) (gnu packages base))
	(package (inherit hello) (name "mixed")
	  (inputs `(("sed" ,sed)))
	  (native-inputs `(("grep" ,grep))))
	EOF
	cix build -d --target=$T -f mixed.scm >mixed.drv &&
	cix derivation show "$(cat mixed.drv)" >mixed.show &&
	native_grep=$(cix build -d grep) && native_sed=$(cix build -d sed) &&
	cross_sed=$(cix build -d --target=$T sed) &&
	grep -q "$native_grep" mixed.show &&
	grep -q "$cross_sed" mixed.show &&
	! grep -q "$native_sed" mixed.show
'

test_expect_success CROSS '%current-target-system and package-cross-derivation' '
	cix build -d --target=$T -e "(begin (use-modules (guix packages) (gnu packages base))
	  (if (equal? (%current-target-system) \"$T\") hello sed))" >a &&
	test_cmp cross.drv a &&
	cix build -d -e "(begin (use-modules (guix packages) (gnu packages base))
	  (if (%current-target-system) hello sed))" >b &&
	test "$(cat b)" = "$(cix build -d sed)" &&
	cix build -d -e "(begin (use-modules (guix packages) (gnu packages base))
	  (package-cross-derivation hello \"$T\"))" >c &&
	test_cmp cross.drv c &&
	cix build -d -e "(begin (use-modules (guix packages) (gnu packages base))
	  (package-derivation hello))" >d &&
	test_cmp native.drv d
'

test_expect_success CROSS,QEMU 'cix package --target installs the cross-built package into a profile' '
	cix package -p "$TRASH_DIRECTORY/prof" --target=$T -i hello 2>install.log &&
	test "$(readlink -f prof/bin/hello)" = "$(cat hello.path)/bin/hello" &&
	test "$(machine_of prof/bin/hello)" = AArch64 &&
	"$QEMU" prof/bin/hello >out && test "$(cat out)" = "Hello, world!" &&
	cix package -p "$TRASH_DIRECTORY/prof" -I >installed &&
	grep -q "^hello" installed &&
	test_expect_code 2 cix package -p "$TRASH_DIRECTORY/prof" --target="x y" -i hello
'

test_expect_success CROSS 'an unknown or malformed target: a clear error' '
	test_expect_code 1 cix build -d --target=sparc64-unknown-plan9 hello 2>err &&
	grep -q "no cross tool chain for .sparc64-unknown-plan9" err &&
	test_expect_code 2 cix build --target="a b" hello 2>err &&
	grep -q "not a GNU triplet" err &&
	test_expect_code 2 cix build --target= hello 2>err
'

test_done
