#!/bin/sh
# t4060-compression-packages.sh - gzip, xz, bzip2 and m4: their package modules evaluate, gzip builds and round-trips
# SPDX-License-Identifier: GPL-3.0-or-later
test_description='packages: (gnu packages compression) and (gnu packages m4) evaluate; gzip builds from its source with the bootstrap, passes its tests and round-trips a file'
real_home=${HOME:-/root}
. "$(dirname "$0")/test-lib.sh"
. "$CIX_SRC_DIR/t/lib-bootstrap.sh"

packages_setup gzip xz-utils bzip2 m4

test_expect_success PACKAGES 'the bootstrap binaries are added to the store' '
	cix store --add-fixed sha256 "$BOOT/bootstrap-tools-gnu.tar.xz" &&
	cix store --add "$BOOT/busybox"
'

for p in gzip-1.12 xz-5.4.1 bzip2-1.0.8 m4-1.4.19
do
	test_expect_success PACKAGES "${p%-*} evaluates to its derivation, its source to the mirror's file" '
		cix build -d '"${p%-*}"' >drv &&
		grep -q -- "-'"$p"'.drv$" drv &&
		cix build -S -d '"${p%-*}"' >src.drv &&
		grep -q -- "-'"$p"'.tar.[gx]z.drv$" src.drv
	'
done

test_expect_success PACKAGES 'the sources are the mirror'"'"'s files (Debian'"'"'s origs, byte-identical to upstream)' '
	for p in gzip xz bzip2 m4
	do
		s=$(cix build -S $p) &&
		h=$(cix hash -f base16 "$s") &&
		test -f "mirror/sha256/$h" || return 1
	done
'

test_expect_success PACKAGES 'gzip builds from its source, passes its tests and runs' '
	cix build gzip >gzip.out 2>gzip.log &&
	test_line_count = 1 gzip.out &&
	grep -q "starting phase .check." gzip.log &&
	grep -q "^# FAIL: *0$" gzip.log &&
	grep -q "^PASS: help-version" gzip.log &&
	"$(cat gzip.out)/bin/gzip" --version >v &&
	grep -q "^gzip 1.12$" v
'

test_expect_success PACKAGES 'a file round-trips through gzip and gunzip, and the host gzip reads it' '
	g=$(cat gzip.out)/bin &&
	seq 1 20000 >file && cp file orig &&
	"$g/gzip" -9 file &&
	test_path_is_missing file &&
	gzip -t file.gz && gzip -dc file.gz >host && test_cmp orig host &&
	"$g/gunzip" file.gz &&
	test_cmp orig file &&
	gzip -c orig | "$g/gzip" -dc >back && test_cmp orig back
'

test_expect_success PACKAGES 'nothing of the host in gzip: loader and RUNPATH in the store' '
	h=$(cat gzip.out)/bin/gzip &&
	elf_in_store "$h"
'

test_done
