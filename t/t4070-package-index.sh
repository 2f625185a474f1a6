#!/bin/sh
# t4070-package-index.sh - cix package -A and -s, answered from the package index
# SPDX-License-Identifier: GPL-3.0-or-later
test_description='cix package -A/-s: formats, regexps, the index kept up to date module by module, broken modules and indexes, every package of the distribution evaluates'
real_home=${HOME:-/root}
. "$(dirname "$0")/test-lib.sh"
. "$CIX_SRC_DIR/t/lib-bootstrap.sh"

test_private_store
unset XDG_CACHE_HOME
# Lowering needs the bootstrap binaries in the store: the cached ones, made
# here if need be.
bootstrap_prereq
DISTRO_PATH=$CIX_SCHEME_PATH
P=$TRASH_DIRECTORY/pkgs
M=$P/gnu/packages
CIX_SCHEME_PATH=$CIX_SRC_DIR/scheme/modules:$P
TAB=$(printf '\t')

# line_of FILE NAME: the line of the (package form that defines NAME.
line_of () {
	awk -v n="(name \"$2\")" 'index($0, "(package") { at = NR } index($0, n) { print at; exit }' "$1"
}

test_expect_success 'setup: two package modules of the test' '
	mkdir -p "$M" &&
	cat >"$M/test-idx.scm" <<-\EOF &&
	(define-module (gnu packages test-idx)
	  #:use-module (guix packages)
	  #:use-module (guix build-system trivial)
	  #:use-module (guix licenses)
	  #:export (zeta alpha alpha-old))
	(format (current-error-port) "evaluating test-idx~%")
	(define zeta
	  (package
	    (name "zeta") (version "0.1") (source #f)
	    (build-system trivial-build-system)
	    (synopsis "Last letter")
	    (description "Zeta comes
	last.")
	    (home-page "https://example.org/zeta")
	    (license gpl3+)))
	(define alpha
	  (package
	    (name "alpha") (version "1.10") (source #f)
	    (build-system trivial-build-system)
	    (outputs (list "out" "doc"))
	    (synopsis "First LETTER")
	    (description "The start of the alphabet.")
	    (home-page "https://example.org/alpha")
	    (license (list gpl3+ lgpl2.1+))))
	(define alpha-old
	  (package (inherit alpha) (version "1.9")))
	EOF
	cat >"$M/test-idx2.scm" <<-\EOF
	(define-module (gnu packages test-idx2)
	  #:use-module (guix packages)
	  #:use-module (guix build-system trivial)
	  #:export (middle hidden))
	(format (current-error-port) "evaluating test-idx2~%")
	(define middle
	  (package (name "middle") (version "2") (source #f)
	    (build-system trivial-build-system)))
	(define hidden
	  (package (name "hidden") (version "1") (source #f)
	    (build-system trivial-build-system)
	    (properties (quote ((hidden? . #t))))))
	EOF
'

test_expect_success 'cix package --help and --version; nothing to do is a usage error' '
	cix package --help >help.out && grep -q -- "--list-available" help.out &&
	cix package --version >v.out && grep -q "cix package (cix)" v.out &&
	test_expect_code 2 cix package 2>err && grep -q "nothing to do" err &&
	test_expect_code 2 cix package --frobnicate 2>err && test_line_count = 2 err &&
	test_expect_code 2 cix package -s 2>err
'

test_expect_success 'a bad regexp: one line, exit 1' '
	test_expect_code 1 cix package -A "(" 2>err &&
	test_line_count = 1 err && grep -q "invalid regular expression" err &&
	test_expect_code 1 cix package -s "a[" 2>err && test_line_count = 1 err
'

test_expect_success '-A: name, version, outputs, file:line, sorted by name, newest first' '
	cix package -A >all.out 2>all.err &&
	grep -q "evaluating test-idx$" all.err && grep -q "evaluating test-idx2$" all.err &&
	za=$(line_of "$M/test-idx.scm" zeta) && al=$(line_of "$M/test-idx.scm" alpha) &&
	ao=$(grep -n "(package (inherit alpha)" "$M/test-idx.scm" | cut -d: -f1) &&
	mi=$(line_of "$M/test-idx2.scm" middle) &&
	{
		echo "alpha${TAB}1.10${TAB}out,doc${TAB}gnu/packages/test-idx.scm:$al" &&
		echo "alpha${TAB}1.9${TAB}out,doc${TAB}gnu/packages/test-idx.scm:$ao" &&
		echo "middle${TAB}2${TAB}out${TAB}gnu/packages/test-idx2.scm:$mi" &&
		echo "zeta${TAB}0.1${TAB}out${TAB}gnu/packages/test-idx.scm:$za"
	} >expect &&
	test_cmp expect all.out
'

test_expect_success '-A REGEXP: over names, ignoring case, also as a separate word' '
	cix package -A "^ALPHA$" >a.out 2>/dev/null &&
	head -2 all.out >expect && test_cmp expect a.out &&
	cix package --list-available=et >b.out 2>/dev/null &&
	grep "^zeta" all.out >expect && test_cmp expect b.out &&
	cix package -A nomatch >c.out 2>/dev/null && test_line_count = 0 c.out
'

test_expect_success '-s: recutils records over name, synopsis and description, ignoring case' '
	cix package -s "^zeta$" >z.out 2>/dev/null &&
	cat >expect <<-EOF &&
	name: zeta
	version: 0.1
	outputs: out
	location: gnu/packages/test-idx.scm:$(line_of "$M/test-idx.scm" zeta)
	homepage: https://example.org/zeta
	license: GPL 3+
	synopsis: Last letter
	description: Zeta comes
	+ last.

	EOF
	test_cmp expect z.out &&
	cix package -s "letter" >l.out 2>/dev/null &&
	grep "^name:" l.out >names &&
	printf "name: %s\n" alpha alpha zeta >expect && test_cmp expect names &&
	grep -q "^license: GPL 3+, LGPL 2.1+$" l.out &&
	cix package --search="ALPHABET" >d.out 2>/dev/null &&
	grep -c "^name: alpha$" d.out >n && echo 2 >expect && test_cmp expect n &&
	cix package -s middle >m.out 2>/dev/null && grep -q "^name: middle$" m.out
'

test_expect_success 'hidden packages are not listed' '
	! grep -q hidden all.out &&
	cix package -s hidden >h.out 2>/dev/null && test_line_count = 0 h.out
'

test_expect_success 'the index is kept: a second query evaluates no module' '
	ls "$HOME"/.cache/cix/packages/* >idx &&
	test_line_count = 1 idx &&
	head -1 "$(cat idx)" | grep -q "^cix-package-index 1 " &&
	cix package -A >again.out 2>again.err &&
	test_cmp all.out again.out &&
	test_line_count = 0 again.err
'

test_expect_success 'an edited module is evaluated again, and only it' '
	cat >>"$M/test-idx.scm" <<-\EOF &&
	(define-public beta
	  (package (inherit zeta) (name "beta") (version "3")))
	EOF
	cix package -A >edit.out 2>edit.err &&
	echo "evaluating test-idx" >expect && test_cmp expect edit.err &&
	grep -q "^beta${TAB}3${TAB}" edit.out &&
	test_line_count = 5 edit.out
'

test_expect_success 'a new module is found, a removed one forgotten' '
	sed "s/test-idx2/test-idx3/; s/\"middle\"/\"other\"/" "$M/test-idx2.scm" >"$M/test-idx3.scm" &&
	cix package -A >new.out 2>new.err &&
	echo "evaluating test-idx3" >expect && test_cmp expect new.err &&
	grep -q "^other${TAB}" new.out &&
	rm "$M/test-idx3.scm" &&
	cix package -A >gone.out 2>gone.err &&
	test_line_count = 0 gone.err &&
	test_cmp edit.out gone.out
'

test_expect_success 'a broken module: a warning naming it, the others still answered' '
	cp "$M/test-idx2.scm" saved.scm &&
	echo "(define broken" >>"$M/test-idx2.scm" &&
	cix package -A >broken.out 2>broken.err &&
	grep -q "warning: .*gnu/packages/test-idx2.scm" broken.err &&
	grep -q "^zeta" broken.out && ! grep -q "^middle" broken.out &&
	cp saved.scm "$M/test-idx2.scm" &&
	cix package -A >fixed.out 2>/dev/null &&
	test_cmp edit.out fixed.out
'

test_expect_success 'a corrupt or foreign index is not trusted: it is made again' '
	f=$(cat idx) &&
	printf "cix-package-index 1 x\npath\t/\nmodule\tgnu/packages/evil.scm\n" >"$f" &&
	cix package -A >c1.out 2>c1.err &&
	test_cmp edit.out c1.out &&
	grep -q "evaluating test-idx$" c1.err &&
	head -c 100000 /dev/urandom >"$f" &&
	cix package -A >c2.out 2>/dev/null && test_cmp edit.out c2.out &&
	cix package -A >c3.out 2>c3.err && test_line_count = 0 c3.err
'

test_expect_success 'an unwritable cache does not stop the answer' '
	rm -rf "$HOME/.cache/cix/packages" && mkdir -p "$HOME/.cache/cix" &&
	: >"$HOME/.cache/cix/packages" &&
	cix package -A >u.out 2>u.err &&
	test_cmp edit.out u.out &&
	grep -q "warning: cannot" u.err &&
	rm "$HOME/.cache/cix/packages"
'

test_expect_success 'every package of the distribution evaluates, with a license, a synopsis, a description, a home page' '
	CIX_SCHEME_PATH=$DISTRO_PATH cix package -A >dist.out 2>dist.err &&
	test_line_count = 0 dist.err &&
	test $(wc -l <dist.out) -ge 11 &&
	cut -f1 dist.out >names && LC_ALL=C sort -c names &&
	CIX_SCHEME_PATH=$DISTRO_PATH cix package -s . >dist.rec &&
	test $(grep -c "^name: " dist.rec) = $(wc -l <dist.out) &&
	! grep -E "^(license|synopsis|description|homepage): *$" dist.rec
'

test_expect_success BOOTSTRAP 'and lowers to a derivation' '
	cix store --add-fixed sha256 "$BOOT/bootstrap-tools-gnu.tar.xz" >/dev/null &&
	cix store --add "$BOOT/busybox" >/dev/null &&
	cix store --add-fixed sha256 "$BOOT/bootstrap-tools-extra.tar.xz" >/dev/null &&
	while read -r name; do
		CIX_SCHEME_PATH=$DISTRO_PATH cix build -d "$name" >"$name.drv" 2>"$name.err" &&
		grep -q "^$CIX_STORE_DIR/.*-$name-.*\.drv$" "$name.drv" || {
			echo "$name does not lower:"; cat "$name.err"; return 1
		}
	done <names
'

test_expect_success 'the cix package is this cix: the same version' '
	v=$(sed -n "s/^VERSION *:= *//p" "$CIX_SRC_DIR/Makefile") &&
	test -n "$v" &&
	cix --version | grep -q " $v\$" &&
	CIX_SCHEME_PATH=$DISTRO_PATH cix package -A "^cix\$" >cix.out &&
	test "$(cut -f1,2 cix.out)" = "cix	$v"
'

test_done
