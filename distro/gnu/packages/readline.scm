;;; readline.scm - (gnu packages readline): GNU Readline
;;; SPDX-License-Identifier: GPL-3.0-or-later
(define-module (gnu packages readline)
  #:use-module (guix packages)
  #:use-module (guix download)
  #:use-module (guix build-system gnu)
  #:use-module (guix licenses)
  #:use-module (gnu packages ncurses)
  #:export (readline))

(define readline
  (package
    (name "readline")
    (version "8.2")
    (source (origin
              (method url-fetch)
              (uri (string-append "mirror://gnu/readline/readline-" version
                                  ".tar.gz"))
              (sha256
               (base32 "0dbw02ai0z8x6d9s14pl0hnaa2g1kdxnv8qqra1fx13ay5qp3srz"))))
    (build-system gnu-build-system)
    ;; Propagated: a program linking libreadline statically needs
    ;; -lncurses too, and configure scripts test "-lreadline -lncurses".
    (propagated-inputs (list ncurses))
    (arguments
     ;; The terminal functions come from ncurses (-lncurses, which its
     ;; linker script makes -lncursesw), and libreadline.so records that
     ;; it needs them, so that programs linking it alone get them.
     (list #:configure-flags '("--with-curses" "--with-shared-termcap-library")
           #:phases
           (modify-phases %standard-phases
             ;; Readline has no test suite: its top-level "check" target is
             ;; empty.  In its stead, the examples' rlversion is linked
             ;; against the library just built and must report this version
             ;; (what examples' own "check" does, which looks rlversion up
             ;; in PATH and so never finds it).
             (replace 'check
               "make -C examples rlversion
test \"$(examples/rlversion)\" = 8.2"))))
    (synopsis "Library for editing command lines, with a history")
    (description
     "GNU Readline lets the programs that read lines from a terminal offer
editing of the line being typed, with Emacs or vi key bindings, completion,
and a history of the lines entered before that can be searched and
reused.  Its bindings are set in an inputrc file.  The companion History
library keeps such lists of lines for other programs.")
    (home-page "https://tiswww.case.edu/php/chet/readline/rltop.html")
    (license gpl3+)))
