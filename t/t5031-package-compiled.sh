#!/bin/sh
# t5031-package-compiled.sh - a user's package modules compiled on first use, kept in a cache
# SPDX-License-Identifier: GPL-3.0-or-later
test_description='package modules outside cix'\''s compiled path are compiled into $XDG_CACHE_HOME/cix/go on first use, compiled again when changed, evaluated from their source when they do not compile (the same errors) or when there is no cache'
. "$(dirname "$0")/test-lib.sh"

test_private_store
P=$TRASH_DIRECTORY/pkgs
CIX_SCHEME_PATH=$CIX_SCHEME_PATH:$P
XDG_CACHE_HOME=$TRASH_DIRECTORY/cache
export XDG_CACHE_HOME
M=$P/gnu/packages/cp.scm

# module VERSION [FIELD]: (gnu packages cp) with package cp of VERSION.
module () {
	mkdir -p "$P/gnu/packages" &&
	cat >"$M" <<-EOF
	(define-module (gnu packages cp)
	  #:use-module (guix packages)
	  #:use-module (guix build-system trivial))
	(define-public cp
	  (package
	    (name "cp") (version "$1") ${2:-}
	    (build-system trivial-build-system)
	    (arguments '(#:implicit-inputs? #f #:builder ("/nonexistent")))
	    (synopsis "s") (description "d") (home-page "h") (license #f)))
	EOF
}

test_must_be_empty_ () { [ ! -s "$1" ] || { cat "$1"; return 1; }; }
compiled () { find "$XDG_CACHE_HOME/cix/go" -path "*$M.go" 2>/dev/null; }

test_expect_success 'first use: compiled into the cache, nothing said about it' '
	module 1 &&
	cix build -d cp >out 2>err &&
	grep -q "cp-1.drv$" out &&
	test_must_be_empty_ err &&
	test "$(compiled | wc -l)" = 1
'

test_expect_success 'then loaded from the cache: the same derivation' '
	before=$(cat out) &&
	cix build -d cp >out2 2>err &&
	test "$(cat out2)" = "$before" &&
	test_must_be_empty_ err
'

test_expect_success 'a changed module is compiled again' '
	go=$(compiled) &&
	sleep 0.01 && module 2 &&
	cix build -d cp >out 2>err &&
	grep -q "cp-2.drv$" out &&
	test_must_be_empty_ err &&
	test "$(compiled)" = "$go" && test "$go" -nt "$M"
'

test_expect_success 'a module that does not compile: its error, located, in one line' '
	module 3 "(colour 1)" &&
	test_must_fail cix build -d cp 2>err &&
	test_line_count = 1 err &&
	grep -q "$M:[0-9]*:[0-9]*: package: unknown field .colour." err
'

test_expect_success 'an expression (-e) sees them too' '
	module 4 &&
	cix build -d -e "(@ (gnu packages cp) cp)" >out 2>err &&
	grep -q "cp-4.drv$" out && test_must_be_empty_ err &&
	test "$(compiled | wc -l)" = 1
'

test_expect_success 'no cache directory: evaluated from the source, to the same derivation' '
	module 5 &&
	env -u XDG_CACHE_HOME HOME=relative cix build -d cp >out 2>err &&
	grep -q "cp-5.drv$" out && test_must_be_empty_ err &&
	cix build -d cp >compiled-out &&
	test_cmp out compiled-out
'

test_expect_success 'a cache that cannot be written: evaluated from the source, quietly' '
	module 6 &&
	rm -rf "$XDG_CACHE_HOME" && echo file >"$XDG_CACHE_HOME" &&
	cix build -d cp >out 2>err &&
	grep -q "cp-6.drv$" out && test_must_be_empty_ err &&
	rm -f "$XDG_CACHE_HOME"
'

test_done
