;;; algebra.scm - (gnu packages algebra): calculators and algebra
;;; SPDX-License-Identifier: GPL-3.0-or-later
(define-module (gnu packages algebra)
  #:use-module (guix packages)
  #:use-module (guix download)
  #:use-module (guix build-system gnu)
  #:use-module (guix licenses)
  #:use-module (gnu packages readline)
  #:export (bc))

(define bc
  (package
    (name "bc")
    (version "1.07.1")
    (source (origin
              (method url-fetch)
              (uri (string-append "mirror://gnu/bc/bc-" version ".tar.gz"))
              (sha256
               (base32 "0amh9ik44jfg66csyvf4zz1l878c4755kjndq9j0270akflgrbb2"))))
    (build-system gnu-build-system)
    ;; ncurses comes with readline, which propagates it.
    (inputs (list readline))
    (arguments
     ;; Nothing the tarball ships is made again: the parser and scanner
     ;; (bc/bc.c from bc.y, bc/scan.c from scan.l) are newer than their
     ;; sources, and so are the info manuals (see keep-shipped-manuals),
     ;; so neither bison, flex nor makeinfo runs (none is in the build;
     ;; were one needed, the build would fail).  But configure refuses
     ;; readline unless the lexer is flex ("readline works only with
     ;; flex"): it is told that flex is there, with the answers of its
     ;; flex tests given, and make never calls it.
     ;; There is no test suite: "make check" builds and checks nothing,
     ;; and Test/ holds timing scripts with no expected results.
     (list #:configure-flags
           '("--with-readline"
             "LEX=flex" "LEXLIB=" "ac_cv_prog_lex_root=lex.yy"
             "ac_cv_prog_lex_yytext_pointer=yes")
           #:tests? #f
           #:phases
           (modify-phases %standard-phases
             ;; bc/libmath.h (the math library -l, compiled to bc's byte
             ;; code by a first bc) is not shipped but made, and finished
             ;; by fix-libmath_h, an ed script.  The ed of the build is
             ;; busybox's, which cannot substitute an empty match (s/^/"/)
             ;; and leaves the file as it was: the same edits in sed.
             (add-after 'unpack 'fix-libmath-h-without-ed
               "cat >bc/fix-libmath_h <<'EOF'
# Make libmath.h a C initializer: each line quoted, the last (empty) one
# dropped, all in {...,0}.
sed '$d' libmath.h | sed -e 's/^/\"/' -e 's/$/\",/' -e '1s/^\"/{\"/' -e '$s/,$/,0}/' >libmath.h.new
mv libmath.h.new libmath.h
EOF")
             ;; The manuals depend on doc/texi-ver.incl, which configure
             ;; makes from texi-ver.incl.in (the version, for the title
             ;; page of the printed manual only): the shipped info files,
             ;; made from the same bc.texi and dc.texi, are made newer than
             ;; it, or make would run makeinfo.
             (add-after 'configure 'keep-shipped-manuals
               "test doc/texi-ver.incl -nt doc/bc.info
touch doc/bc.info doc/dc.info"))))
    (synopsis "Calculator language with numbers of any precision")
    (description
     "GNU bc is an interpreter of the POSIX bc language: numbers of any
size, with as many decimal digits as asked, and a C-like syntax of
variables, arrays, functions, loops and conditions, with a library of
mathematical functions (sine, cosine, arctangent, logarithm, exponential,
Bessel).  It can be used interactively, with line editing by readline, or
run scripts.  The package also provides dc, a reverse-Polish desk
calculator.")
    (home-page "https://www.gnu.org/software/bc/")
    (license gpl3+)))
