;;; bison.scm - (gnu packages bison): the GNU parser generator
;;; SPDX-License-Identifier: GPL-3.0-or-later
(define-module (gnu packages bison)
  #:use-module (guix packages)
  #:use-module (guix download)
  #:use-module (guix build-system gnu)
  #:use-module (guix licenses)
  #:use-module (gnu packages m4)
  #:use-module (gnu packages perl)
  #:export (bison))

(define bison
  (package
    (name "bison")
    (version "3.8.2")
    (source (origin
              (method url-fetch)
              (uri (string-append "mirror://gnu/bison/bison-" version ".tar.xz"))
              ;; Debian's bison_3.8.2+dfsg.orig.tar.xz: upstream's release
              ;; less its manual, so not upstream's file byte for byte.
              (sha256
               (base32 "1rbv2wffgafjx1jgancyp0amhxppw54zm9v2iy122hfkdp4s7y6z"))))
    (build-system gnu-build-system)
    ;; bison runs m4 when it generates a parser: an input at run time too.
    (native-inputs (list perl))
    (propagated-inputs (list m4))
    (arguments
     ;; The test suite (700 Autotest groups) runs its groups in parallel.
     ;; Debian's tarball has no manual: no Info file is made or installed
     ;; (INFO_DEPS empty), and an empty doc/bison.texi, older than the
     ;; examples extracted from the manual into the tarball, stands for
     ;; it, so that they are not extracted again; the Makefile's
     ;; all-local, which rewrites the Info file, is emptied.
     (list #:make-flags '("TESTSUITEFLAGS=-j2" "INFO_DEPS=")
           #:phases
           (modify-phases %standard-phases
             (add-after 'unpack 'no-manual
               "test ! -e doc/bison.texi && test -e examples/extracted.stamp
touch -d @0 doc/bison.texi
sed -i 's/^all-local: .*info\\.bak$/all-local:/' Makefile.in
grep -q '^all-local:$' Makefile.in"))))
    (synopsis "Generator of parsers from grammars (yacc)")
    (description
     "GNU Bison turns the description of a context-free grammar into a
parser in C, C++, D or Java: deterministic LR (LALR(1), IELR(1),
canonical LR(1)) or generalized LR.  It is compatible with yacc, and
its parsers report precise errors and locations.")
    (home-page "https://www.gnu.org/software/bison/")
    (license gpl3+)))
