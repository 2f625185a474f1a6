#!/bin/sh
# t4040-packages.sh - GNU Hello and gawk built from their real sources, with the bootstrap
# SPDX-License-Identifier: GPL-3.0-or-later
test_description='packages: hello and gawk from upstream tarballs in the sandbox with the bootstrap binaries, the seed article'"'"'s package file, --check, -n, -S, -d, no host path in outputs, hash mismatches'
real_home=${HOME:-/root}
. "$(dirname "$0")/test-lib.sh"
. "$CIX_SRC_DIR/t/lib-bootstrap.sh"

packages_setup hello gawk

test_expect_success PACKAGES 'the bootstrap binaries are added to the store as content-addressed items' '
	cix store --add-fixed sha256 "$BOOT/bootstrap-tools-gnu.tar.xz" >tarball.path &&
	cix store --add "$BOOT/busybox" >busybox.path &&
	cix build -d hello >hello.drv
'

test_expect_success PACKAGES '-n lists the builds and the download; -S -d and -d print derivations' '
	cix build -n hello 2>n.out &&
	grep -q -- "-hello-2.10.drv" n.out &&
	grep -q -- "-bootstrap-tools-0.drv" n.out &&
	grep -q -- "-cix-gnu-build-0.drv" n.out &&
	grep -q "would be downloaded" n.out && grep -q -- "-hello-2.10.tar.gz.drv" n.out &&
	cix build -S -d hello >src.drv && grep -q -- "-hello-2.10.tar.gz.drv$" src.drv &&
	test "$(cix build -d hello)" = "$(cat hello.drv)"
'

test_expect_success PACKAGES 'the source comes from the mirror, checked against its hash' '
	cix build -S hello >src.path &&
	test "$(cix hash -f base16 "$(cat src.path)")" = 31e066137a962676e89f69d1b65382de95a7ef7d914b8cb956f41ea72e0f516b
'

test_expect_success PACKAGES 'GNU Hello builds from source (its tests pass) and runs' '
	cix build hello >hello.out 2>hello.log &&
	grep -q "starting phase .check." hello.log &&
	grep -q "^PASS: tests/hello-1" hello.log &&
	test_line_count = 1 hello.out &&
	"$(cat hello.out)/bin/hello" >greeting &&
	echo "Hello, world!" >expect && test_cmp expect greeting
'

test_expect_success PACKAGES 'nothing of the host in hello: loader and RUNPATH in the store, no /usr or /lib' '
	h=$(cat hello.out)/bin/hello &&
	elf_in_store "$h" "^$CIX_STORE_DIR/.*-bootstrap-tools-0/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2$" &&
	{ strings "$h" | grep -E "(^|[^a-z0-9_])/(usr|lib|lib64|bin|etc)/" | grep -v "$CIX_STORE_DIR" >host || :; } &&
	test_line_count = 0 host &&
	cix store -q --references "$(cat hello.out)" >refs &&
	! grep -v "$CIX_STORE_DIR/" refs
'

test_expect_success PACKAGES 'cix build --check hello: built again, bit for bit the same' '
	cix build --check hello >check.out 2>check.log &&
	test_cmp hello.out check.out
'

test_expect_success PACKAGES 'gawk builds from its source, passes its tests, runs' '
	cix build gawk >gawk.out 2>gawk.log &&
	grep -q "ALL TESTS PASSED" gawk.log &&
	echo "a b c" | "$(cat gawk.out)/bin/gawk" "{ print \$2 }" >g &&
	echo b >expect && test_cmp expect g
'

# The seed article's hello (version 2.10: the one whose source is here).
cat >seed.scm <<'EOF'
(use-modules (guix packages)
             (guix download)
             (guix build-system gnu)
             (guix licenses)
             (gnu packages gawk))

(define hello
  (package
    (name "hello")
    (version "2.10")
    (source (origin
             (method url-fetch)
             (uri (string-append "mirror://gnu/hello/hello-" version
                                 ".tar.gz"))
             (sha256
              (base32 "0ssi1wpaf7plaswqqjwigppsg5fyh99vdlb9kzl7c9lng89ndq1i"))))
    (build-system gnu-build-system)
    (inputs `(("gawk" ,gawk)))
    (synopsis "GNU Hello")
    (description "Yeah...")
    (home-page "http://www.gnu.org/software/hello/")
    (license gpl3+)))
hello
EOF

test_expect_success PACKAGES 'the seed article'"'"'s package file builds with cix build -f (gawk as input)' '
	cix build -d -f seed.scm >seed.drv &&
	! test_cmp hello.drv seed.drv &&
	cix derivation show "$(cat seed.drv)" >seed.json &&
	grep -q "$(cix build -d gawk)" seed.json &&
	cix build -f seed.scm >seed.out 2>seed.log &&
	grep -q "buildInputs.*gawk-5.2.1" seed.json &&
	"$(cat seed.out)/bin/hello" >g2 &&
	echo "Hello, world!" >expect2 && test_cmp expect2 g2
'

test_expect_success PACKAGES,NIX 'a source whose bytes do not match its hash fails, and nothing is registered' '
	b32=0000000000000000000000000000000000000000000000000001 &&
	hex=$(nix-hash --type sha256 --to-base16 $b32) &&
	cp "$(cat src.path)" "mirror/sha256/$hex" &&
	cat >bad.scm <<-EOF &&
	(use-modules (guix packages) (guix download) (gnu packages base))
	(package (inherit hello) (name "hello-bad")
	  (source (origin (method url-fetch)
	                  (uri "mirror://gnu/hello/hello-2.10-bad.tar.gz")
	                  (sha256 (base32 "$b32")))))
	EOF
	src=$(cix build -S -d -f bad.scm) &&
	out=$(cix derivation show "$src" | sed -n "s/.*\"path\": \"\(.*\)\".*/\1/p" | head -1) &&
	test -n "$out" &&
	test_must_fail cix build -f bad.scm 2>bad.err &&
	grep -q "hash mismatch" bad.err &&
	test_must_fail cix store --check-validity "$out" &&
	test_path_is_missing "$out" &&
	cix build -d -f bad.scm >bad.drv &&
	o=$(cix derivation show "$(cat bad.drv)" | sed -n "s/.*\"path\": \"\(.*-hello-bad-2.10\)\".*/\1/p" | head -1) &&
	test -n "$o" && test_path_is_missing "$o"
'

test_done
