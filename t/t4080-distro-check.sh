#!/bin/sh
# t4080-distro-check.sh - scripts/distro-check on a small part of the distribution
# SPDX-License-Identifier: GPL-3.0-or-later
test_description='distro-check: a package built from source with its tests, its closure checked in a sandbox holding only the store, a host binary caught'
real_home=${HOME:-/root}
. "$(dirname "$0")/test-lib.sh"
. "$CIX_SRC_DIR/t/lib-bootstrap.sh"

packages_setup bzip2
DC=$CIX_SRC_DIR/scripts/distro-check
# distro-check makes its own store under -d, and its own mirror.
unset CIX_STORE_DIR CIX_STATE_DIR CIX_LOG_DIR CIX_CAS_DIRS

test_expect_success 'distro-check -h; an unknown package is refused' '
	"$DC" -h >help && grep -q "closure check" help &&
	test_must_fail "$DC" -d "$TRASH_DIRECTORY/dc0" no-such-package 2>err &&
	grep -q "no-such-package: no such package" err
'

test_expect_success PACKAGES 'bzip2: built with its tests, its closure checked, a table' '
	"$DC" -d "$TRASH_DIRECTORY/dc" bzip2 >out 2>err &&
	grep -q "^bzip2 *1.0.8 " out &&
	grep "^| bzip2 | 1.0.8 | [0-9]* | passed" dc/table.md &&
	grep -q "| ok ([1-9][0-9]* ELF files" dc/table.md &&
	grep -q "^round-trip$" dc/store/*-bzip2-closure-check-1.0.8/smoke
'

test_expect_success PACKAGES 'with -k, kept builds are reported from their logs' '
	"$DC" -d "$TRASH_DIRECTORY/dc" -k bzip2 >out2 2>err2 &&
	grep -q "(kept)" out2 && grep -q "| ok (" dc/table.md
'

test_expect_success PACKAGES 'a program that needs a library of the host fails the closure check' '
	mkdir -p extra/gnu/packages &&
	cat >extra/gnu/packages/hostbin.scm <<-\EOF &&
	(define-module (gnu packages hostbin)
	  #:use-module (guix packages)
	  #:use-module (guix build-system trivial))
	(define-public hostbin
	  (package
	    (name "hostbin") (version "1")
	    (source (local-file "/bin/true" "true"))
	    (build-system trivial-build-system)
	    (arguments (quote (#:builder "export PATH=$bootstrap_tools/bin
	mkdir -p $out/bin && cp $src $out/bin/true && chmod +x $out/bin/true")))))
	EOF
	CIX_SCHEME_PATH=$CIX_SCHEME_PATH:$TRASH_DIRECTORY/extra \
		test_expect_code 1 "$DC" -d "$TRASH_DIRECTORY/dc" -k hostbin >out3 2>err3 &&
	grep -q "hostbin.*FAIL: closure-check: .*/bin/true: the loader cannot load it" out3 &&
	grep -q "libc.so.6" dc/logs/hostbin.check.log
'

test_done
