;;; less.scm - (gnu packages less): the less pager
;;; SPDX-License-Identifier: GPL-3.0-or-later
(define-module (gnu packages less)
  #:use-module (guix packages)
  #:use-module (guix download)
  #:use-module (guix build-system gnu)
  #:use-module (guix licenses)
  #:use-module (gnu packages ncurses)
  #:export (less))

(define less
  (package
    (name "less")
    (version "590")
    (source (origin
              (method url-fetch)
              (uri (string-append "http://www.greenwoodsoftware.com/less/less-"
                                  version ".tar.gz"))
              (sha256
               (base32 "044fl3izmsi8n1vqzsqdp65q0qyyn5kmsg4sk7id0mxzx15zbbba"))))
    (build-system gnu-build-system)
    (inputs (list ncurses))
    ;; No test suite in this release: the "check" target is empty (lesstest
    ;; came with later versions).
    (arguments (list #:tests? #f))
    (synopsis "Pager: shows text a screenful at a time")
    (description
     "Less shows a file or its standard input on a terminal one screen at a
time, and lets the reader move backward as well as forward, search by
regular expression, jump to marks or line numbers, follow a growing file,
and look at several files in turn.  It starts without reading its whole
input, so that it opens large files at once.")
    (home-page "https://www.greenwoodsoftware.com/less/")
    ;; Either the GPL 3 or later or the Less License, at the user's choice.
    (license gpl3+)))
