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

# Bad input: a source that no mirror has, a source whose bytes are not the
# hash it is named by, a suite that fails; each package's row names the
# cause, the run goes on to the next, and `cix build` of each fails with
# its derivation named, registering nothing.
test_expect_success PACKAGES 'a missing source, a wrong hash, failing tests: rows of their own, the run goes on' '
	mkdir -p bad/gnu/packages src/failtests-1 dc/mirror/sha256 &&
	printf "all:\n\t@echo built\ncheck:\n\t@echo \"the suite of failtests failed\"; false\n" \
		>src/failtests-1/Makefile &&
	printf "#!/bin/sh\nexit 0\n" >src/failtests-1/configure && chmod +x src/failtests-1/configure &&
	tar -C src -czf failtests-1.tar.gz failtests-1 &&
	ft=$(cix hash -f nix-base32 failtests-1.tar.gz) &&
	cp failtests-1.tar.gz dc/mirror/sha256/$(cix hash -f base16 failtests-1.tar.gz) &&
	# The mirror holds other bytes under the name of the hash badhash wants.
	echo not the tarball >wrong &&
	printf badhash >named && bh=$(cix hash -f nix-base32 named) &&
	cp wrong dc/mirror/sha256/$(cix hash -f base16 named) &&
	cat >bad/gnu/packages/bad.scm <<-EOF &&
	(define-module (gnu packages bad)
	  #:use-module (guix packages)
	  #:use-module (guix download)
	  #:use-module (guix build-system gnu))
	(define (bad name hash)
	  (package
	    (name name) (version "1")
	    (source (origin (method url-fetch)
	                    (uri (string-append "mirror://gnu/" name "/" name "-1.tar.gz"))
	                    (sha256 (base32 hash))))
	    (build-system gnu-build-system)
	    (synopsis "bad") (description "bad") (home-page #f) (license #f)))
	(define-public nosrc (bad "nosrc" "0000000000000000000000000000000000000000000000000000"))
	(define-public badhash (bad "badhash" "$bh"))
	(define-public failtests (bad "failtests" "$ft"))
	EOF
	CIX_SCHEME_PATH=$CIX_SCHEME_PATH:$TRASH_DIRECTORY/bad \
		test_expect_code 1 "$DC" -d "$TRASH_DIRECTORY/dc" -k nosrc badhash failtests bzip2 >out4 2>err4 &&
	cat out4 &&
	grep "^nosrc .*BUILD FAILED: nosrc-1.tar.gz: .*not in the content-addressed mirrors" out4 &&
	grep "^badhash .*BUILD FAILED: badhash-1.tar.gz: .*hash" out4 &&
	grep "^failtests .*BUILD FAILED: failtests-1: .*check" out4 &&
	grep -q "^bzip2 .* ok (" out4 &&
	grep -q "^| failtests | 1 | - | BUILD FAILED: failtests-1: " dc/table.md &&
	for p in nosrc badhash failtests; do
		CIX_STORE_DIR=$TRASH_DIRECTORY/dc/store CIX_STATE_DIR=$TRASH_DIRECTORY/dc/state \
		CIX_LOG_DIR=$TRASH_DIRECTORY/dc/log CIX_CAS_DIRS=$TRASH_DIRECTORY/dc/mirror \
		CIX_SCHEME_PATH=$CIX_SCHEME_PATH:$TRASH_DIRECTORY/bad \
			test_expect_code 1 cix build $p >/dev/null 2>err-$p &&
		tail -1 err-$p | grep "^cix build: builder for .*-$p-1[.a-z]*\.drv. failed" &&
		! ls dc/store | grep -q -- "-$p-1\$" || return 1
	done
'

test_done
