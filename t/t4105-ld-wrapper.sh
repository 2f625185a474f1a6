#!/bin/sh
# t4105-ld-wrapper.sh - the tool chain's ld wrapper, run on the host's ld
# SPDX-License-Identifier: GPL-3.0-or-later
test_description='distro/bootstrap/ld-wrapper.in, made with the host bash and ld: a RUNPATH entry for each store library linked, a GNU build ID for every program and library unless the link asks for none or is relocatable.'
. "$(dirname "$0")/test-lib.sh"

command -v ld >/dev/null && command -v gcc >/dev/null && command -v readelf >/dev/null &&
	test_set_prereq LD

build_id () { readelf -n "$1" | sed -n 's/^ *Build ID: //p'; }

test_expect_success LD 'setup: the wrapper, a store with a library, an object' '
	mkdir -p store/aaaa-lib/lib &&
	sed -e "s|@bash@|$(command -v bash)|" -e "s|@ld@|$(command -v ld)|" \
		-e "s|@store@|$TRASH_DIRECTORY/store|" "$CIX_SRC_DIR/distro/bootstrap/ld-wrapper.in" >ld-wrapper &&
	chmod +x ld-wrapper &&
	printf "int lib(void) { return 1; }\n" >lib.c &&
	gcc -fPIC -c lib.c -o lib.o &&
	ld -shared --build-id=none -o store/aaaa-lib/lib/libx.so lib.o &&
	printf "int lib(void); int f(void) { return lib(); }\n" >f.c &&
	gcc -fPIC -c f.c -o f.o
'

test_expect_success LD 'a shared library gets a build ID and the RUNPATH of its store library' '
	NIX_STORE=$TRASH_DIRECTORY/store ./ld-wrapper -shared -o libf.so f.o -L"$TRASH_DIRECTORY/store/aaaa-lib/lib" -lx &&
	test -n "$(build_id libf.so)" &&
	readelf -d libf.so | grep "RUNPATH.*$TRASH_DIRECTORY/store/aaaa-lib/lib"
'

test_expect_success LD 'the same link gives the same build ID' '
	NIX_STORE=$TRASH_DIRECTORY/store ./ld-wrapper -shared -o libf2.so f.o -L"$TRASH_DIRECTORY/store/aaaa-lib/lib" -lx &&
	test "$(build_id libf.so)" = "$(build_id libf2.so)"
'

test_expect_success LD 'the link asks for its own build ID, or none: the wrapper adds none' '
	./ld-wrapper -shared --build-id=none -o libn.so f.o &&
	test -z "$(build_id libn.so)" &&
	./ld-wrapper -shared --build-id=md5 -o libm.so f.o &&
	test "$(build_id libm.so | wc -c)" = 33
'

test_expect_success LD 'a relocatable link gets no build ID' '
	./ld-wrapper -r -o r.o f.o &&
	test -z "$(build_id r.o)"
'

test_done
