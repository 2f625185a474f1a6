#!/bin/sh
# t4001-make-bootstrap-i686.sh - make-bootstrap --system i686-linux
# SPDX-License-Identifier: GPL-3.0-or-later
test_description='bootstrap tools for i686-linux from pinned i386 .debs: reproducible, they run on an x86_64 kernel, and cix build --system=i686-linux builds Hello from them'
real_home=${HOME:-/root}
. "$(dirname "$0")/test-lib.sh"
. "$CIX_SRC_DIR/t/lib-bootstrap.sh"

# As in t4000: the results kept between runs, keyed by the script's hash;
# the .debs in the same cache (their names carry the architecture).
CACHE=${CIX_BOOTSTRAP_CACHE:-$real_home/.cache/cix}
key=$(sha256sum <"$MB" | cut -c1-16)
BOOT32=$CACHE/bootstrap-i686-$key
DEBS=$CACHE/bootstrap-debs

if [ -f "$BOOT32/done" ]; then
	test_set_prereq I686
elif mkdir -p "$CACHE" 2>/dev/null &&
     "$MB" --system i686-linux --extra --fetch-only -c "$DEBS" >"$TRASH_DIRECTORY/fetch.log" 2>&1; then
	test_set_prereq I686
else
	say "skip: no pinned i386 .debs ($(tail -1 "$TRASH_DIRECTORY/fetch.log" 2>/dev/null))"
fi
command -v readelf >/dev/null 2>&1 || test_unset_prereq I686

test_expect_success 'an unknown system is refused in one line' '
	test_expect_code 2 "$MB" --system aarch64-linux -o out >stdout 2>stderr &&
	test_line_count = 0 stdout && test_line_count = 1 stderr &&
	grep "unknown system aarch64-linux" stderr &&
	test_expect_code 2 "$MB" --system=i386-linux -o out 2>stderr &&
	test_line_count = 1 stderr &&
	test_path_is_missing out
'

test_expect_success '--help names both systems' '
	"$MB" --help >help &&
	grep -e "--system SYSTEM" help && grep "x86_64-linux" help &&
	grep "i686-linux" help && grep "dpkg --add-architecture" help
'

test_expect_success I686 'make-bootstrap --system i686-linux gives the same bytes twice' '
	(
		flock 9 &&
		if [ ! -f "$BOOT32/done" ]; then
			rm -rf "$BOOT32.tmp" &&
			CIX_STORE_DIR=/cix/store "$MB" --system i686-linux --extra -c "$DEBS" \
				-o "$BOOT32.tmp/a" >"$BOOT32.log" 2>&1 &&
			"$MB" --system i686-linux --extra -c "$DEBS" -o "$BOOT32.tmp/b" >/dev/null 2>&1 &&
			cmp "$BOOT32.tmp/a/bootstrap-tools-gnu.tar.xz" "$BOOT32.tmp/b/bootstrap-tools-gnu.tar.xz" &&
			cmp "$BOOT32.tmp/a/bootstrap-tools-extra.tar.xz" "$BOOT32.tmp/b/bootstrap-tools-extra.tar.xz" &&
			cmp "$BOOT32.tmp/a/busybox/bin/busybox" "$BOOT32.tmp/b/busybox/bin/busybox" &&
			rm -rf "$BOOT32" && mv "$BOOT32.tmp/a" "$BOOT32" && rm -rf "$BOOT32.tmp" &&
			mv "$BOOT32.log" "$BOOT32/make-bootstrap.log" &&
			touch "$BOOT32/done"
		fi
	) 9>"$CACHE/bootstrap.lock" &&
	grep "^  store path .*-bootstrap-tools-gnu.tar.xz\$" "$BOOT32/make-bootstrap.log"
'

test_expect_success I686 'the i686 tarball is in the i386 layout' '
	xz -dc "$BOOT32/bootstrap-tools-gnu.tar.xz" | tar -tvf - >list &&
	! grep -e "-> /" list &&
	grep " \./lib/i386-linux-gnu/ld-linux\.so\.2\$" list &&
	! grep " \./lib/ld-linux\.so\.2" list &&
	xz -dc "$BOOT32/bootstrap-tools-gnu.tar.xz" | tar -xOf - ./usr/lib/i386-linux-gnu/libc.so >libc.so &&
	grep -F "AS_NEEDED ( /lib/i386-linux-gnu/ld-linux.so.2 )" libc.so &&
	grep " \./usr/lib/gcc/i686-linux-gnu/12/as -> ../../../../bin/i686-linux-gnu-as\$" list &&
	grep " \./usr/lib/i386-linux-gnu/libc_nonshared\.a\$" list &&
	! grep -e "x86_64-linux-gnu/\$" -e " \./lib64/" list &&
	xz -dc "$BOOT32/bootstrap-tools-gnu.tar.xz" | tar -xOf - ./share/cix-bootstrap/interp-files >interp &&
	grep -x bin/bash interp && grep -x usr/bin/i686-linux-gnu-gcc-12 interp
'

# The tree unpacked as the unpack derivation does it, its interpreters set
# to its own loader; then its programs run here.
cat >p.c <<\EOF
#include <stdio.h>
int main(void) { printf("%d\n", (int)sizeof(void *)); return 0; }
EOF
cat >q.cc <<\EOF
#include <iostream>
int main() { std::cout << sizeof(long) << std::endl; }
EOF
test_expect_success I686 'busybox, bash, gcc, g++ and Python of the i686 tree run' '
	"$BOOT32/busybox/bin/busybox" true &&
	readelf -h "$BOOT32/busybox/bin/busybox" | grep "ELF32" &&
	mkdir t pe &&
	xz -dc "$BOOT32/bootstrap-tools-gnu.tar.xz" | tar -xf - -C t &&
	xz -dc "$BOOT32/bootstrap-tools-extra.tar.xz" | tar -xf - -C t &&
	T=$PWD/t && L=$T/lib/i386-linux-gnu &&
	cp "$T/usr/bin/patchelf" "$L/ld-linux.so.2" "$L/libc.so.6" "$L/libm.so.6" \
		"$L/libgcc_s.so.1" "$T/usr/lib/i386-linux-gnu/libstdc++.so.6" pe/ &&
	cat "$T"/share/cix-bootstrap/interp-files* | while read -r f; do
		pe/ld-linux.so.2 --library-path pe pe/patchelf --set-interpreter "$L/ld-linux.so.2" "$T/$f" ||
			exit 1
	done &&
	test "$(env -i "$T/bin/bash" -c "echo \$BASH_VERSION")" = "5.2.15(1)-release" &&
	env -i PATH="$T/bin" "$T/usr/bin/i686-linux-gnu-gcc-12" --sysroot="$T" -o p p.c \
		-Wl,-dynamic-linker="$L/ld-linux.so.2" -Wl,-rpath,"$L" &&
	readelf -h p | grep "ELF32" && test "$(./p)" = 4 &&
	env -i PATH="$T/bin" "$T/usr/bin/i686-linux-gnu-g++-12" --sysroot="$T" -o q q.cc \
		-Wl,-dynamic-linker="$L/ld-linux.so.2" -Wl,-rpath,"$L:$T/usr/lib/i386-linux-gnu" &&
	test "$(./q)" = 4 &&
	test "$(env -i "$T/bin/python3" -c "import struct, subprocess; print(struct.calcsize(\"P\"))")" = 4
'

# Hello for i686 from those seeds, with the bootstrap tool chain (as the
# other package tests build; the distribution's own chain for i686 is built
# the same way, by cix build --system=i686-linux with CIX_TOOL_CHAIN=final).
packages_setup hello

test_expect_success I686,PACKAGES 'cix build --system=i686-linux hello: a 32-bit Hello, run here' '
	cix store --add-fixed sha256 "$BOOT32/bootstrap-tools-gnu.tar.xz" >/dev/null &&
	cix store --add "$BOOT32/busybox" >/dev/null &&
	drv=$(cix build -d --system=i686-linux hello) &&
	cix derivation show "$drv" >drv.json &&
	grep "\"system\": \"i686-linux\"" drv.json &&
	! grep "\"system\": \"x86_64-linux\"" drv.json &&
	out=$(cix build --system=i686-linux hello 2>build.log) || { tail -20 build.log; false; } &&
	readelf -h "$out/bin/hello" | grep "ELF32" &&
	elf_in_store "$out/bin/hello" "^$CIX_STORE_DIR/.*-bootstrap-tools-0/lib/i386-linux-gnu/ld-linux\.so\.2\$" &&
	test "$("$out/bin/hello")" = "Hello, world!" &&
	grep "^# PASS: *4" build.log
'

test_done
