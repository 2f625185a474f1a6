#!/bin/sh
# t5015-package-manifest.sh - cix package -m FILE, and the search paths packages declare
# SPDX-License-Identifier: GPL-3.0-or-later
test_description='cix package -m/--manifest: the profile holds exactly the manifest'"'"'s entries, in one generation; --search-paths[=exact|prefix|suffix] from the search paths the installed packages declare; version-1 profile manifests still read'
. "$(dirname "$0")/test-lib.sh"

test_private_store
P=$TRASH_DIRECTORY/pkgs
CIX_SCHEME_PATH=$CIX_SCHEME_PATH:$P
USER_NAME=$(id -un)
PROFILE=$CIX_STATE_DIR/profiles/per-user/$USER_NAME/cix-profile

# $MKPKG -d builds the test's packages: $out/bin/NAME saying "NAME VERSION",
# and $out/share/doc/NAME/README (as in t5010).
[ -x "$MKPKG" ] && test_set_prereq STATIC
mkdir -p "$P/gnu/packages"
# gamma declares search paths: one for a directory every package has, one
# for a directory none has, one file found by a pattern (the first, no
# separator), one over several files; delta propagates gamma.
cat >"$P/gnu/packages/tp.scm" <<EOF
(define-module (gnu packages tp)
  #:use-module (guix packages)
  #:use-module (guix build-system trivial))
(define* (tp name version prog #:key (search-paths '()) (propagated '()))
  (package
    (name name) (version version)
    (build-system trivial-build-system)
    (inputs \`(("mkpkg" ,(local-file "$MKPKG" "mkpkg"))))
    (propagated-inputs propagated)
    (native-search-paths search-paths)
    (arguments \`(#:implicit-inputs? #f
                  #:builder ((input "mkpkg") "-d" ,prog ,version)))
    (synopsis "s") (description "d") (home-page "h") (license #f)))
(define-public alpha-1 (tp "alpha" "1" "alpha"))
(define-public alpha-2 (tp "alpha" "2" "alpha"))
(define-public beta (tp "beta" "1" "beta"))
(define-public gamma
  (tp "gamma" "1" "gamma"
      #:search-paths
      (list (search-path-specification
             (variable "GAMMA_DOCS")
             (files '("share/doc")))
            (search-path-specification
             (variable "GAMMA_NONE")
             (files '("share/none")))
            (search-path-specification
             (variable "GAMMA_README")
             (separator #f)
             (file-type 'regular)
             (file-pattern "^README\$")
             (files '("share/doc")))
            (search-path-specification
             (variable "GAMMA_MULTI")
             (separator ";")
             (files '("share/none" "bin" "share/doc"))))))
(define-public delta (tp "delta" "1" "delta" #:propagated \`(("gamma" ,gamma))))
EOF

SP=$TRASH_DIRECTORY/sp/p
SQ=$TRASH_DIRECTORY/sq/p

generations () { cix package -p "$1" -l | grep -c "^Generation"; }

test_expect_success STATIC 'specifications->manifest: a new profile holds exactly its entries' '
	echo "(specifications->manifest (list \"alpha\" \"beta\"))" >m1.scm &&
	cix package -m m1.scm 2>err &&
	grep -q "generation 1:" err &&
	test "$(cat "$PROFILE/bin/alpha")" = "alpha 2" &&
	test "$(cat "$PROFILE/bin/beta")" = "beta 1" &&
	cix package -I >installed &&
	test_line_count = 2 installed &&
	grep -q "^alpha	2	out	" installed &&
	grep -q "^beta	1	out	" installed &&
	head -n 1 "$PROFILE/manifest" >head &&
	echo "cix-manifest 2" >expect && test_cmp expect head
'

test_expect_success STATIC 'the same manifest again: nothing to be done, no generation' '
	cix package --manifest=m1.scm 2>err &&
	grep -q "nothing to be done" err &&
	test "$(readlink "$PROFILE")" = cix-profile-1-link &&
	test $(generations "$PROFILE") = 1
'

test_expect_success STATIC 'a manifest removes what it does not list, in one generation' '
	cix package -i gamma 2>err && grep -q "generation 2:" err &&
	cat >m2.scm <<-\EOF &&
	(use-modules (gnu packages tp))
	;; a package, and a package with its output
	(packages->manifest (list alpha-1 (list beta "out")))
	EOF
	cix package -m m2.scm 2>err &&
	grep -q "generation 3:" err &&
	test $(generations "$PROFILE") = 3 &&
	cix package -I >installed &&
	test_line_count = 2 installed &&
	grep -q "^alpha	1	out	" installed &&
	grep -q "^beta	1	out	" installed &&
	test_path_is_missing "$PROFILE/bin/gamma" &&
	test "$(cat "$PROFILE/bin/alpha")" = "alpha 1"
'

test_expect_success STATIC 'manifest entries, and the order of a manifest does not matter' '
	cat >m3.scm <<-\EOF &&
	(use-modules (gnu packages tp))
	(manifest (list (manifest-entry (item beta))
	                (package->manifest-entry alpha-1 "out")))
	EOF
	cix package -m m3.scm 2>err &&
	grep -q "nothing to be done" err &&
	test "$(readlink "$PROFILE")" = cix-profile-3-link
'

test_expect_success STATIC '-n -m says what would be installed and removed, changes nothing' '
	echo "(specifications->manifest (list \"gamma\"))" >m4.scm &&
	cix package -n -m m4.scm 2>err &&
	grep -q "would install gamma-1:out" err &&
	grep -q "would remove alpha-1:out" err &&
	grep -q "would remove beta-1:out" err &&
	test "$(readlink "$PROFILE")" = cix-profile-3-link
'

# A bad manifest: one line naming the file, exit 1, the profile as it was.
bad_manifest () {
	printf "%s\n" "$2" >"$1" &&
	test_expect_code 1 cix package -m "$1" 2>err &&
	test_line_count = 1 err &&
	grep -q "$1" err &&
	test "$(readlink "$PROFILE")" = cix-profile-3-link &&
	test $(generations "$PROFILE") = 3
}

test_expect_success STATIC 'bad manifest files: one line with the file, nothing changed' '
	bad_manifest unknown.scm "(specifications->manifest (list \"nosuch\"))" &&
	grep -q "nosuch: unknown package" err &&
	bad_manifest output.scm "(specifications->manifest (list \"alpha:doc\"))" &&
	grep -q "no output" err &&
	bad_manifest syntax.scm "(specifications->manifest (list \"alpha\"" &&
	bad_manifest number.scm "42" &&
	grep -q "not a manifest" err &&
	bad_manifest unbound.scm "(packages->manifest (list no-such-variable))" &&
	grep -q "no-such-variable" err &&
	bad_manifest item.scm "(manifest (list (manifest-entry (item \"/x\"))))" &&
	grep -q "item must be a package" err &&
	bad_manifest list.scm "(list beta alpha-1 alpha-2)" &&
	grep -q "gives (#<<package> name: \"beta\" .*, not a manifest$" err &&
	test $(wc -c <err) -lt 300 &&
	bad_manifest utf8.scm "(error \"caf$(printf "\303\251") $(printf "\342\200\246")\")" &&
	grep -q "utf8.scm:1:0: caf$(printf "\303\251") $(printf "\342\200\246")$" err &&
	test_expect_code 1 cix package -m missing.scm 2>err &&
	test_line_count = 1 err && grep -q "missing.scm" err &&
	test "$(readlink "$PROFILE")" = cix-profile-3-link
'

test_expect_success '-m with -i, -r, -e or -u is refused' '
	test_expect_code 2 cix package -m m1.scm -i alpha 2>err &&
	grep -q "cannot be combined" err &&
	test_expect_code 2 cix package -m m1.scm -r alpha 2>err &&
	test_expect_code 2 cix package -m m1.scm -u 2>err &&
	test_expect_code 2 cix package -e "(specification->package \"alpha\")" -m m1.scm 2>err &&
	grep -q "cannot be combined" err &&
	test_expect_code 2 cix package --search-paths=nearby 2>err &&
	grep -q "unknown search path kind" err
'

test_expect_success STATIC '--search-paths: the declared ones whose files exist, exact' '
	echo "(specifications->manifest (list \"gamma\"))" >gamma.scm &&
	cix package -p "$SP" -m gamma.scm 2>err &&
	grep -q "	search-path	GAMMA_DOCS	:	directory		share/doc$" "$SP/manifest" &&
	cix package -p "$SP" --search-paths >out &&
	cat >expect <<-EOF &&
	export PATH="$SP/bin"
	export GAMMA_DOCS="$SP/share/doc"
	export GAMMA_README="$SP/share/doc/gamma/README"
	export GAMMA_MULTI="$SP/bin;$SP/share/doc"
	EOF
	test_cmp expect out &&
	cix package -p "$SP" --search-paths=exact >out &&
	test_cmp expect out
'

test_expect_success STATIC '--search-paths=prefix and =suffix' '
	cix package -p "$SP" --search-paths=prefix >out &&
	cat >expect <<-EOF &&
	export PATH="$SP/bin\${PATH:+:}\$PATH"
	export GAMMA_DOCS="$SP/share/doc\${GAMMA_DOCS:+:}\$GAMMA_DOCS"
	export GAMMA_README="$SP/share/doc/gamma/README"
	export GAMMA_MULTI="$SP/bin;$SP/share/doc\${GAMMA_MULTI:+;}\$GAMMA_MULTI"
	EOF
	test_cmp expect out &&
	cix package -p "$SP" --search-paths=suffix >out &&
	cat >expect <<-EOF &&
	export PATH="\$PATH\${PATH:+:}$SP/bin"
	export GAMMA_DOCS="\$GAMMA_DOCS\${GAMMA_DOCS:+:}$SP/share/doc"
	export GAMMA_README="$SP/share/doc/gamma/README"
	export GAMMA_MULTI="\$GAMMA_MULTI\${GAMMA_MULTI:+;}$SP/bin;$SP/share/doc"
	EOF
	test_cmp expect out
'

test_expect_success STATIC 'the lines are shell: sourced, they set the variables' '
	cix package -p "$SP" --search-paths=prefix >lines &&
	(
		set +u && PATH=/usr/bin:/bin GAMMA_DOCS=/else &&
		. ./lines &&
		test "$PATH" = "$SP/bin:/usr/bin:/bin" &&
		test "$GAMMA_DOCS" = "$SP/share/doc:/else" &&
		test "$GAMMA_MULTI" = "$SP/bin;$SP/share/doc"
	)
'

test_expect_success STATIC 'a propagated package brings its search paths; each variable once' '
	echo "(specifications->manifest (list \"delta\" \"alpha\" \"gamma\"))" >delta.scm &&
	cix package -p "$SP" -m delta.scm 2>err &&
	test "$(cat "$SP/bin/gamma")" = "gamma 1" &&
	cix package -p "$SP" --search-paths >out &&
	test $(grep -c "^export GAMMA_DOCS=" out) = 1 &&
	grep -q "^export GAMMA_README=\"$SP/share/doc/alpha/README\"$" out &&
	echo "(specifications->manifest (list \"delta\"))" >delta1.scm &&
	cix package -p "$SP" -m delta1.scm 2>err &&
	cix package -p "$SP" -I >installed && test_line_count = 1 installed &&
	cix package -p "$SP" --search-paths >out &&
	grep -q "^export GAMMA_DOCS=\"$SP/share/doc\"$" out
'

test_expect_success STATIC '-i records the search paths too; -r drops them' '
	cix package -p "$SQ" -i gamma -i beta 2>err &&
	cix package -p "$SQ" --search-paths >out &&
	grep -q "^export GAMMA_DOCS=" out &&
	cix package -p "$SQ" -r gamma 2>err &&
	cix package -p "$SQ" --search-paths >out &&
	echo "export PATH=\"$SQ/bin\"" >expect &&
	test_cmp expect out
'

test_expect_success STATIC 'a profile whose manifest is of version 1 is still read' '
	cix package -p "$SQ" -i alpha-1 2>err &&
	alpha=$(cix package -p "$SQ" -I alpha | cut -f4) &&
	mkdir -p old/gen &&
	printf "cix-manifest 1\nalpha\t1\tout\t%s\t\n" "$alpha" >old/gen/manifest &&
	ln -s "$alpha/bin" old/gen/bin &&
	ln -s gen old/p &&
	cix package -p old/p -I >installed &&
	printf "alpha\t1\tout\t%s\n" "$alpha" >expect &&
	test_cmp expect installed &&
	cix package -p old/p --search-paths >out &&
	echo "export PATH=\"$TRASH_DIRECTORY/old/p/bin\"" >expect &&
	test_cmp expect out &&
	cix package -p "$TRASH_DIRECTORY/old/p" -i gamma 2>err &&
	grep -q "generation 1:" err &&
	cix package -p old/p -I >installed &&
	test_line_count = 2 installed &&
	grep -q "^alpha	1	out	$alpha$" installed &&
	head -n 1 old/p/manifest >head &&
	echo "cix-manifest 2" >expect && test_cmp expect head &&
	cix package -p old/p --search-paths >out &&
	grep -q "^export GAMMA_DOCS=" out
'

test_expect_success STATIC 'the distribution: ncurses declares TERMINFO_DIRS' '
	cat >nc.scm <<-\EOF &&
	(use-modules (guix packages) (gnu packages ncurses) (gnu packages tp))
	(for-each (lambda (s)
	            (format #t "~a ~s ~s~%" (search-path-specification-variable s)
	                    (search-path-specification-files s)
	                    (search-path-specification-separator s)))
	          (package-native-search-paths ncurses))
	beta
	EOF
	cix build -n -f nc.scm >out &&
	grep -q "^TERMINFO_DIRS (\"share/terminfo\") \":\"$" out
'

test_done
