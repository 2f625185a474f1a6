#!/bin/sh
# t4071-package-hints.sh - lookups by name load only the modules the package index names
# SPDX-License-Identifier: GPL-3.0-or-later
test_description='with an up-to-date package index, cix build NAME and cix package -i NAME load only the modules that export NAME; the same packages are found as without it'
. "$(dirname "$0")/test-lib.sh"

test_private_store
XDG_CACHE_HOME=$TRASH_DIRECTORY/cache
export XDG_CACHE_HOME
P=$TRASH_DIRECTORY/pkgs
M=$P/gnu/packages
CIX_SCHEME_PATH=$CIX_SRC_DIR/scheme/modules:$P

# module NAME PACKAGE... : (gnu packages NAME), saying "loading NAME" on
# stderr when loaded, exporting trivial packages given as NAME@VERSION.
module () {
	mod=$1 && shift &&
	{
		printf '(define-module (gnu packages %s)\n' "$mod" &&
		printf '  #:use-module (guix packages)\n  #:use-module (guix build-system trivial))\n' &&
		printf '(format (current-error-port) "loading %s~%%")\n' "$mod" &&
		for p in "$@"
		do
			printf '(define-public %s\n  (package (name "%s") (version "%s")\n' \
				"$(echo "$p" | tr @. --)" "${p%@*}" "${p#*@}" &&
			printf "    (build-system trivial-build-system)\n"
			printf "    (arguments '(#:implicit-inputs? #f #:builder (\"/nonexistent\")))\n" &&
			printf '    (synopsis "s") (description "d") (home-page "h") (license #f)))\n'
		done
	} >"$M/$mod.scm"
}

# loaded: the modules the last command loaded, sorted, on one line.
loaded () {
	sed -n 's/^loading //p' err | sort | tr '\n' ' '
}

test_expect_success 'setup: three modules' '
	mkdir -p "$M" &&
	module one a@1.0 shared@1.0 &&
	module two b@2.0 shared@2.0 &&
	module three c@3.0
'

test_expect_success 'without an index: every module is loaded, and the index written' '
	cix build -d a >out 2>err &&
	grep -q -- "-a-1.0.drv$" out &&
	test "$(loaded)" = "one three two " &&
	test -n "$(ls "$XDG_CACHE_HOME/cix/packages")" &&
	cp out a.drv
'

test_expect_success 'with it: only the module of the name' '
	cix build -d a >out 2>err &&
	test_cmp a.drv out &&
	test "$(loaded)" = "one " &&
	cix build -d c >out 2>err &&
	grep -q -- "-c-3.0.drv$" out &&
	test "$(loaded)" = "three "
'

test_expect_success 'a name in two modules: both, and the newest version' '
	cix build -d shared >out 2>err &&
	grep -q -- "-shared-2.0.drv$" out &&
	test "$(loaded)" = "one two " &&
	cix build -d shared@1.0 >out 2>err &&
	grep -q -- "-shared-1.0.drv$" out &&
	cix build -d shared-1.0 >out 2>err &&
	grep -q -- "-shared-1.0.drv$" out &&
	test "$(loaded)" = "one "
'

test_expect_success 'cix package -n -i loads only the module too; -n with a package not built' '
	cix package -p prof -n -i b >out 2>err &&
	test "$(loaded)" = "two " &&
	grep -q "would install b-2.0:out" err &&
	grep -q "would make a new generation: .*-profile$" err &&
	test ! -e prof && test ! -e prof-1-link
'

test_expect_success 'a changed module: every module loaded once, then the index is right again' '
	sleep 0.01 &&
	module three c@3.0 d@4.0 &&
	cix build -d d >out 2>err &&
	grep -q -- "-d-4.0.drv$" out &&
	test "$(loaded)" = "one three two " &&
	cix build -d d >out 2>err &&
	test "$(loaded)" = "three "
'

test_expect_success 'a package gone from its module is unknown, in one line' '
	sleep 0.01 &&
	module one shared@1.0 &&
	test_must_fail cix build -d a 2>err &&
	grep -q "a: unknown package" err &&
	test "$(grep -vc ^loading err)" = 1 &&
	test_must_fail cix build -d a 2>err &&
	grep -q "a: unknown package" err
'

test_expect_success 'a name no module has: unknown, in one line' '
	test_must_fail cix build -d nosuch 2>err &&
	grep -q "nosuch: unknown package" err &&
	test "$(grep -vc ^loading err)" = 1
'

test_expect_success 'a module that does not load: its error, not a wrong hint' '
	sleep 0.01 &&
	printf "(define-module (gnu packages bad))\n(car 1)\n" >"$M/bad.scm" &&
	test_must_fail cix build -d c 2>err &&
	grep -q "In procedure car" err &&
	rm "$M/bad.scm" &&
	cix build -d c >out 2>err &&
	grep -q -- "-c-3.0.drv$" out
'

test_expect_success 'hidden packages are not found by name, as in Guix' '
	sleep 0.01 &&
	cat >>"$M/three.scm" <<-\EOF &&
	(define-public hid
	  (package (inherit c-3-0) (name "hid") (properties (quote ((hidden? . #t))))))
	EOF
	test_must_fail cix build -d hid 2>err &&
	grep -q "hid: unknown package" err &&
	test_must_fail cix build -d hid 2>err &&
	grep -q "hid: unknown package" err
'

test_done
