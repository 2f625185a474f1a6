#!/bin/sh
# t5010-package-profile.sh - cix package: install, remove, generations, roll-back
# SPDX-License-Identifier: GPL-3.0-or-later
test_description='cix package -i/-r/-I/-l/-S/--roll-back/--delete-generations on profiles: generations built by builtin:profile, switched atomically'
. "$(dirname "$0")/test-lib.sh"

test_private_store
P=$TRASH_DIRECTORY/pkgs
CIX_SCHEME_PATH=$CIX_SCHEME_PATH:$P
USER_NAME=$(id -un)
PROFILE=$CIX_STATE_DIR/profiles/per-user/$USER_NAME/cix-profile

# $MKPKG -d builds the test's packages: $out/bin/NAME saying "NAME VERSION",
# and $out/share/doc/NAME/README.
[ -x "$MKPKG" ] && test_set_prereq STATIC
mkdir -p "$P/gnu/packages"
cat >"$P/gnu/packages/tp.scm" <<EOF
(define-module (gnu packages tp)
  #:use-module (guix packages)
  #:use-module (guix build-system trivial))
(define (tp name version prog)
  (package
    (name name) (version version)
    (build-system trivial-build-system)
    (inputs \`(("mkpkg" ,(local-file "$MKPKG" "mkpkg"))))
    (arguments \`(#:implicit-inputs? #f
                  #:builder ((input "mkpkg") "-d" ,prog ,version)))
    (synopsis "s") (description "d") (home-page "h") (license #f)))
(define-public alpha-1 (tp "alpha" "1" "alpha"))
(define-public alpha-2 (tp "alpha" "2" "alpha"))
(define-public beta (tp "beta" "1" "beta"))
(define-public clash (tp "clash" "1" "alpha"))
EOF

test_expect_success 'nothing to do is a usage error; queries and actions are separate' '
	test_expect_code 2 cix package 2>err && grep -q "nothing to do" err &&
	test_expect_code 2 cix package -A -i alpha 2>err && grep -q "separate" err
'

test_expect_success STATIC 'install: generation 1, ~/.cix-profile, the package in bin/' '
	cix package -i alpha-1 2>err &&
	grep -q "generation 1:" err &&
	test "$(readlink "$HOME/.cix-profile")" = "$PROFILE" &&
	test "$(readlink "$PROFILE")" = cix-profile-1-link &&
	test "$(cat "$HOME/.cix-profile/bin/alpha")" = "alpha 1" &&
	cix package -I >installed &&
	test_line_count = 1 installed &&
	grep -q "^alpha	1	out	$CIX_STORE_DIR/.*-alpha-1$" installed
'

test_expect_success STATIC 'install another: generation 2 holds both, shared directories merged' '
	cix package -i beta 2>err && grep -q "generation 2:" err &&
	test "$(cat "$PROFILE/bin/beta")" = "beta 1" &&
	test "$(cat "$PROFILE/bin/alpha")" = "alpha 1" &&
	test -d "$PROFILE/share/doc" && ! test -L "$PROFILE/share/doc" &&
	test "$(cat "$PROFILE/share/doc/alpha/README")" = "alpha 1" &&
	cix package -I >installed && test_line_count = 2 installed
'

test_expect_success STATIC 'installing what is installed makes no new generation' '
	cix package -i beta 2>err && grep -q "nothing to be done" err &&
	test "$(readlink "$PROFILE")" = cix-profile-2-link
'

test_expect_success STATIC 'the newest version replaces the installed one' '
	cix package -i alpha 2>err && grep -q "generation 3:" err &&
	test "$(cat "$PROFILE/bin/alpha")" = "alpha 2" &&
	cix package -I alpha >installed && test_line_count = 1 installed &&
	grep -q "^alpha	2	" installed
'

test_expect_success STATIC 'remove: a new generation without it; an unknown one refused' '
	cix package -r beta 2>err && grep -q "generation 4:" err &&
	test_path_is_missing "$PROFILE/bin/beta" &&
	test_expect_code 1 cix package -r beta 2>err &&
	grep -q "not installed" err &&
	test "$(readlink "$PROFILE")" = cix-profile-4-link
'

test_expect_success STATIC 'a conflict fails, and the current generation stays' '
	test_must_fail cix package -i clash 2>err &&
	grep -q "conflict" err &&
	test "$(readlink "$PROFILE")" = cix-profile-4-link
'

test_expect_success STATIC '-n says what would be done and does nothing' '
	cix package -n -i beta 2>err &&
	grep -q "would" err &&
	test "$(readlink "$PROFILE")" = cix-profile-4-link
'

test_expect_success STATIC 'roll back, list and switch generations' '
	cix package --roll-back 2>err && grep -q "switched to generation 3" err &&
	test "$(cat "$PROFILE/bin/beta")" = "beta 1" &&
	cix package -l >gens &&
	grep -q "^Generation 3	.*(current)" gens &&
	test $(grep -c "^Generation" gens) = 4 &&
	cix package -S 1 2>err && test "$(readlink "$PROFILE")" = cix-profile-1-link &&
	cix package -S +2 && test "$(readlink "$PROFILE")" = cix-profile-3-link &&
	cix package -S -1 && test "$(readlink "$PROFILE")" = cix-profile-2-link &&
	test_must_fail cix package -S 9 2>err && grep -q "does not exist" err
'

test_expect_success STATIC 'delete generations; the current one is refused' '
	cix package --delete-generations=1,3..4 2>err &&
	cix package -l >gens && test $(grep -c "^Generation" gens) = 1 &&
	test_must_fail cix package --delete-generations=2 2>err &&
	grep -q "current" err
'

test_expect_success STATIC 'rolling back from the first generation goes to an empty generation 0' '
	cix package --roll-back 2>err && grep -q "switched to generation 0" err &&
	test "$(readlink "$PROFILE")" = cix-profile-0-link &&
	cix package -I >installed && test_line_count = 0 installed &&
	test_must_fail cix package --roll-back 2>err
'

test_expect_success STATIC '-p: another profile, its own generations' '
	cix package -p "$TRASH_DIRECTORY/other/p" -i beta 2>err &&
	test "$(readlink other/p)" = p-1-link &&
	test "$(cat other/p/bin/beta)" = "beta 1"
'

test_expect_success STATIC 'the words after -i or -r are more packages, in one generation' '
	cix package -p "$TRASH_DIRECTORY/many/p" -i alpha-1 beta 2>err &&
	test "$(readlink many/p)" = p-1-link &&
	test "$(cat many/p/bin/alpha)" = "alpha 1" &&
	test "$(cat many/p/bin/beta)" = "beta 1" &&
	cix package -p "$TRASH_DIRECTORY/many/p" -r alpha beta 2>err &&
	test "$(readlink many/p)" = p-2-link &&
	test ! -e many/p/bin/alpha && test ! -e many/p/bin/beta &&
	test_expect_code 2 cix package -p "$TRASH_DIRECTORY/many/p" beta -i alpha 2>err &&
	grep -q "unexpected argument .beta." err &&
	test_expect_code 2 cix package -p "$TRASH_DIRECTORY/many/p" -i alpha -n beta 2>err &&
	grep -q "unexpected argument .beta." err &&
	test "$(readlink many/p)" = p-2-link
'

test_expect_success STATIC '-u upgrades what matches to the newest version' '
	cix package -p "$TRASH_DIRECTORY/up/p" -i alpha-1 -i beta 2>/dev/null &&
	cix package -p "$TRASH_DIRECTORY/up/p" -u beta 2>err &&
	grep -q "nothing to be done" err &&
	cix package -p "$TRASH_DIRECTORY/up/p" -u 2>err &&
	grep -q "upgrading alpha 1 to 2" err &&
	test "$(cat up/p/bin/alpha)" = "alpha 2" &&
	test "$(cat up/p/bin/beta)" = "beta 1" &&
	test "$(readlink up/p)" = p-2-link
'

test_expect_success STATIC '-e installs the package an expression gives; --search-paths' '
	cix package -p "$TRASH_DIRECTORY/ex/p" -e "(specification->package \"beta\")" 2>err &&
	test "$(cat ex/p/bin/beta)" = "beta 1" &&
	cix package -p "$TRASH_DIRECTORY/ex/p" --search-paths >sp &&
	echo "export PATH=\"$TRASH_DIRECTORY/ex/p/bin\"" >expect &&
	test_cmp expect sp
'

test_expect_success '-e of an expression that gives a derivation: refused, nothing installed' '
	test_must_fail cix package -p "$TRASH_DIRECTORY/drv/p" -e "\"/x/y.drv\"" 2>err &&
	test_line_count = 1 err && grep -q "gives a derivation, not a package" err &&
	test_path_is_missing drv/p
'

test_expect_success STATIC 'the generations are roots: the profile store paths are kept' '
	test -L "$CIX_STATE_DIR/gcroots/profiles" &&
	test "$(readlink "$CIX_STATE_DIR/gcroots/profiles")" = "$CIX_STATE_DIR/profiles"
'

test_done
