;;; libedit.scm - (gnu packages libedit): line editing with a BSD license
;;; SPDX-License-Identifier: GPL-3.0-or-later
(define-module (gnu packages libedit)
  #:use-module (guix packages)
  #:use-module (guix download)
  #:use-module (guix build-system gnu)
  #:use-module ((guix licenses) #:select (bsd-3))
  #:use-module (gnu packages ncurses)
  #:export (libedit))

(define libedit
  (package
    (name "libedit")
    (version "20221030-3.1")
    (source (origin
              (method url-fetch)
              (uri "https://thrysoee.dk/editline/libedit-20221030-3.1.tar.gz")
              ;; Debian's orig tarball of this version, not repacked by Debian.
              (sha256
               (base32 "1fz29dxgdvf4n51pjx4qq6p1fsbnm9ynnxhrxqbg26sbvxd5m4ph"))))
    (build-system gnu-build-system)
    (propagated-inputs (list ncurses))
    (synopsis "Command-line editing library of the BSD systems")
    (description
     "libedit (editline) gives programs that read lines from a terminal
editing in Emacs or vi style, with history and completion: the BSD
systems' counterpart of GNU Readline.")
    (home-page "https://thrysoee.dk/editline/")
    (license bsd-3)))
