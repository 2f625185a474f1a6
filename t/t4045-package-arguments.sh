#!/bin/sh
# t4045-package-arguments.sh - gnu-build-system's arguments written as Guix's packages write them
# SPDX-License-Identifier: GPL-3.0-or-later
test_description='quoted and quasiquoted arguments, (list ...), (string-append ...), (assoc-ref %outputs "out") and %build-inputs, #:tests?, #:make-flags, #:parallel-build? and a quoted (modify-phases ...) give the derivation the same values as cix'"'"'s own way of writing them; build-side Scheme (a lambda) is refused in one line. Derivations only: nothing is built.'
. "$(dirname "$0")/test-lib.sh"

test_private_store
CIX_TOOL_CHAIN=bootstrap
export CIX_TOOL_CHAIN

# env_of FILE NAME: the value of the variable NAME of FILE's derivation.
env_of () {
	cix build -d -f "$1" >"$1.drv" &&
	cix derivation show "$(cat "$1.drv")" >"$1.json" &&
	perl -MJSON::PP -e '
		my $j = decode_json(do { local $/; <STDIN> });
		my ($d) = values %$j;
		my $v = $d->{env}{$ARGV[0]};
		print defined $v ? "$v\n" : "UNSET\n";' "$2" <"$1.json"
}
command -v perl >/dev/null && perl -MJSON::PP -e 1 2>/dev/null && test_set_prereq JSONPP

head='(use-modules (guix packages) (guix build-system gnu) (guix licenses))'
tail='(synopsis "s") (description "d") (home-page #f) (license gpl3+))'

cat >guix-style.scm <<EOF
$head
(package
  (name "demo") (version "1") (source #f)
  (build-system gnu-build-system)
  (arguments
   \`(#:configure-flags '("--disable-nls" ,(string-append "--with-version=" "1"))
     #:make-flags (list (string-append "PREFIX=" (assoc-ref %outputs "out"))
                        (string-append "AWK=" (assoc-ref %build-inputs "gawk-x.y")
                                       "/bin/gawk")
                        (string-append "DOC=" %output "/doc"))
     #:tests? #f
     #:parallel-build? #f
     #:test-target "test"
     #:phases (modify-phases %standard-phases
                (delete 'strip)
                (replace 'check "make test")
                (add-before 'configure 'hello "echo hi")
                (add-after 'install 'greet "echo hi >\$out/greeting"))))
  $tail
EOF

# The same package as cix's own packages write it.
cat >cix-style.scm <<EOF
$head
(package
  (name "demo") (version "1") (source #f)
  (build-system gnu-build-system)
  (arguments
   (list #:configure-flags '("--disable-nls" "--with-version=1")
         #:make-flags '("PREFIX=\${out}" "AWK=\${gawk_x_y}/bin/gawk" "DOC=\${out}/doc")
         #:tests? #f
         #:parallel-build? #f
         #:test-target "test"
         #:phases (modify-phases %standard-phases
                    (delete 'strip)
                    (replace 'check "make test")
                    (add-before 'configure 'hello "echo hi")
                    (add-after 'install 'greet "echo hi >\$out/greeting"))))
  $tail
EOF

cat >quoted.scm <<EOF
$head
(package
  (name "demo") (version "1") (source #f)
  (build-system gnu-build-system)
  (arguments (quote (#:configure-flags (quote ("--disable-nls")) #:tests? #f)))
  $tail
EOF

cat >lambda.scm <<EOF
$head
(package
  (name "demo") (version "1") (source #f)
  (build-system gnu-build-system)
  (arguments (quote (#:phases (modify-phases %standard-phases
     (add-after (quote install) (quote wrap)
       (lambda* (#:key outputs #:allow-other-keys) #t))))))
  $tail
EOF

cat >flags.scm <<EOF
$head
(package
  (name "demo") (version "1") (source #f)
  (build-system gnu-build-system)
  (arguments (quote (#:configure-flags (list (getenv "HOME")))))
  $tail
EOF

test_expect_success JSONPP 'Guix-style arguments are worked out into the builder'"'"'s variables' '
	test "$(env_of guix-style.scm configureFlags)" = "--disable-nls
--with-version=1" &&
	test "$(env_of guix-style.scm makeFlags)" = "PREFIX=\${out}
AWK=\${gawk_x_y}/bin/gawk
DOC=\${out}/doc" &&
	test "$(env_of guix-style.scm tests)" = 0 &&
	test "$(env_of guix-style.scm parallelBuild)" = 0 &&
	test "$(env_of guix-style.scm testTarget)" = test &&
	env_of guix-style.scm phases >phases &&
	grep "hello configure" phases && grep "install greet" phases && ! grep strip phases &&
	test "$(env_of guix-style.scm phase_check)" = "make test"
'

test_expect_success 'written either way, the package is the same derivation' '
	cix build -d -f guix-style.scm >a &&
	cix build -d -f cix-style.scm >b &&
	test_cmp a b
'

test_expect_success JSONPP 'a quoted argument list, as Guix 0.3 writes it' '
	test "$(env_of quoted.scm configureFlags)" = --disable-nls &&
	test "$(env_of quoted.scm tests)" = 0
'

test_expect_success 'a phase written in Scheme is refused in one line, naming the form' '
	test_must_fail cix build -d -f lambda.scm 2>err &&
	test_line_count = 1 err &&
	grep "#:phases: (lambda\* .*build side, which cix does not run" err
'

test_expect_success 'other build-side code, and a bad clause, are refused too' '
	sed "s/(lambda\* (#:key outputs #:allow-other-keys) #t)/(invoke \"true\")/" lambda.scm >invoke.scm &&
	test_must_fail cix build -d -f invoke.scm 2>err &&
	grep "(invoke \"true\") is code of Guix" err &&
	sed -e "s/(add-after (quote install) (quote wrap)/(frobnicate (quote install) (quote wrap)/" \
		-e "s/(invoke \"true\")/\"true\"/" invoke.scm >clause.scm &&
	test_must_fail cix build -d -f clause.scm 2>err &&
	grep "modify-phases: a clause is" err &&
	test_must_fail cix build -d -f flags.scm 2>err &&
	grep "#:configure-flags" err
'

test_done
