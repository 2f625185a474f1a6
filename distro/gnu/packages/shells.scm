;;; shells.scm - (gnu packages shells): other command shells
;;; SPDX-License-Identifier: GPL-3.0-or-later
(define-module (gnu packages shells)
  #:use-module (guix packages)
  #:use-module (guix download)
  #:use-module (guix build-system gnu)
  #:use-module ((guix licenses) #:select (x11-style))
  #:use-module (gnu packages ncurses)
  #:use-module (gnu packages dbm)
  #:use-module (gnu packages multiprecision)
  #:export (zsh))

(define zsh
  (package
    (name "zsh")
    (version "5.9")
    (source (origin
              (method url-fetch)
              (uri (string-append "https://www.zsh.org/pub/zsh-" version ".tar.xz"))
              ;; Debian's orig tarball of this version, not repacked by Debian.
              (sha256
               (base32 "1mdc8lnq8qxq1ahxp8610n799pd7a9kqg3liy7xq2pjvvp71x3cv"))))
    (build-system gnu-build-system)
    ;; Its tests (make check, Test/*.ztst) run whole: the sandbox has
    ;; pseudo-terminals for the line editor's (zpty).
    (inputs (list ncurses gdbm gmp))
    (arguments
     (list #:configure-flags '("--with-tcsetpgrp" "--enable-pcre=no" "--enable-maildir-support")))
    (synopsis "The Z shell")
    (description
     "Zsh is a Bourne-style command shell for interactive use and scripting,
with programmable completion, shared history, spelling correction,
globbing qualifiers, and compatibility modes for sh and ksh.")
    (home-page "https://www.zsh.org/")
    (license (x11-style "https://sourceforge.net/p/zsh/code/ci/master/tree/LICENCE"))))
