#!/bin/sh
# t5032-package-eval-cache.sh - cix package -i SPEC from the evaluation cache
# SPDX-License-Identifier: GPL-3.0-or-later
test_description='cix package -i answers a specification it evaluated before from the evaluation cache, without Guile, while nothing it came from has changed: modules, compiled modules, local files, the store'
. "$(dirname "$0")/test-lib.sh"

test_private_store
XDG_CACHE_HOME=$TRASH_DIRECTORY/cache
export XDG_CACHE_HOME
unset CIX_NO_EVAL_CACHE
P=$TRASH_DIRECTORY/pkgs
CIX_SCHEME_PATH=$CIX_SCHEME_PATH:$P

[ -x "$MKPKG" ] && test_set_prereq STATIC
echo one >note

# module VERSION-OF-GAMMA: (gnu packages ec), saying "loading ec" when loaded.
module () {
	mkdir -p "$P/gnu/packages" &&
	cat >"$P/gnu/packages/ec.scm" <<-EOF
	(define-module (gnu packages ec)
	  #:use-module (guix packages)
	  #:use-module (guix build-system trivial))
	(format (current-error-port) "loading ec~%")
	(define (ep name version)
	  (package
	    (name name) (version version)
	    (build-system trivial-build-system)
	    (inputs \`(("mkpkg" ,(local-file "$MKPKG" "mkpkg"))
	              ("note" ,(local-file "$TRASH_DIRECTORY/note" "note"))))
	    (arguments \`(#:implicit-inputs? #f
	                  #:builder ((input "mkpkg") ,name ,version)))
	    (synopsis "s") (description "d") (home-page "h") (license #f)))
	(define-public alpha (ep "alpha" "1"))
	(define-public gamma (ep "gamma" "$1"))
	EOF
}

evaluated () {
	grep -q "^loading ec" err
}

test_expect_success STATIC 'first install: evaluated, and the cache written' '
	module 1 &&
	cix package -p p1 -i alpha 2>err &&
	evaluated &&
	test "$(cat p1/bin/alpha)" = "alpha 1" &&
	test -n "$(ls cache/cix/eval)" &&
	grep -q "^spec	alpha	" cache/cix/eval/* &&
	cix package -p p1 -I >installed1
'

test_expect_success STATIC 'again, in another profile: from the cache, the same entry' '
	cix package -p p2 -i alpha 2>err &&
	! evaluated &&
	cix package -p p2 -I >installed2 &&
	test_cmp installed1 installed2 &&
	test "$(readlink -f p1)" = "$(readlink -f p2)"
'

test_expect_success STATIC 'a hit and a miss in one command; -n from the cache' '
	cix package -p p3 -i alpha -i gamma 2>err &&
	evaluated &&
	test "$(cat p3/bin/gamma)" = "gamma 1" &&
	cix package -p p4 -n -i alpha -i gamma 2>err &&
	! evaluated &&
	grep -q "would install alpha-1:out" err &&
	grep -q "would install gamma-1:out" err
'

test_expect_success STATIC 'a changed module: evaluated again, its new version' '
	sleep 0.01 &&
	module 2 &&
	cix package -p p3 -i gamma 2>err &&
	evaluated &&
	test "$(cat p3/bin/gamma)" = "gamma 2" &&
	cix package -p p5 -i gamma 2>err &&
	! evaluated
'

test_expect_success STATIC 'a module touched, or a new module: evaluated again' '
	sleep 0.01 && touch "$P/gnu/packages/ec.scm" &&
	cix package -p p6 -i alpha 2>err && evaluated &&
	cix package -p p6 -i alpha 2>err && ! evaluated &&
	printf "(define-module (gnu packages ec2))\n" >"$P/gnu/packages/ec2.scm" &&
	cix package -p p7 -i alpha 2>err && evaluated
'

test_expect_success STATIC 'a changed local file: evaluated again, another derivation' '
	cix package -p p8 -i alpha 2>err && ! evaluated &&
	old=$(readlink -f p8) &&
	sleep 0.01 && echo two >note &&
	cix package -p p9 -i alpha 2>err && evaluated &&
	test "$(readlink -f p9)" != "$old" &&
	cix package -p p10 -i alpha 2>err && ! evaluated &&
	test "$(readlink -f p10)" = "$(readlink -f p9)"
'

test_expect_success STATIC 'a derivation collected: evaluated again, written again' '
	drv=$(sed -n "s/^spec	alpha	\([^	]*\)	.*/\1/p" cache/cix/eval/*) &&
	test -f "$drv" &&
	rm -f p1 p1-* p2 p2-* p6 p6-* p7 p7-* p8 p8-* p9 p9-* p10 p10-* &&
	cix gc >/dev/null 2>&1 &&
	test ! -e "$drv" &&
	cix package -p p11 -i alpha 2>err && evaluated &&
	test -f "$drv"
'

test_expect_success STATIC 'a cache that does not parse is not trusted, and is written again' '
	for f in cache/cix/eval/*; do printf "garbage\n" >"$f"; done &&
	cix package -p p12 -i alpha 2>err && evaluated &&
	test "$(cat p12/bin/alpha)" = "alpha 1" &&
	grep -q "^spec	alpha	" cache/cix/eval/* &&
	sed -i "s/^file	\([^	]*\)	[0-9]*/file	\1	x/" cache/cix/eval/* &&
	cix package -p p13 -i alpha 2>err && evaluated
'

test_expect_success STATIC 'another store has its own cache' '
	cix package -p p14 -i alpha 2>err && ! evaluated &&
	CIX_STORE_DIR=$TRASH_DIRECTORY/store2 CIX_STATE_DIR=$TRASH_DIRECTORY/state2 \
		cix package -p p15 -i alpha 2>err &&
	evaluated &&
	test "$(ls cache/cix/eval | wc -l)" = 2
'

test_expect_success STATIC 'CIX_NO_EVAL_CACHE: always evaluated' '
	CIX_NO_EVAL_CACHE=1 cix package -p p16 -i alpha 2>err && evaluated
'

test_expect_success STATIC 'a local file that is a directory: nothing kept' '
	mkdir -p notedir && echo x >notedir/x &&
	sed -i "s|$TRASH_DIRECTORY/note\"|$TRASH_DIRECTORY/notedir\"|" "$P/gnu/packages/ec.scm" &&
	cix package -p p17 -i alpha 2>err && evaluated &&
	echo y >notedir/x &&
	cix package -p p18 -i alpha 2>err && evaluated &&
	test "$(readlink -f p17)" != "$(readlink -f p18)"
'

test_done
