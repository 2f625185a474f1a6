;;; base.scm - (gnu packages base): the GNU packages at the base of the system
;;; SPDX-License-Identifier: GPL-3.0-or-later
(define-module (gnu packages base)
  #:use-module (guix packages)
  #:use-module (guix download)
  #:use-module (guix build-system gnu)
  #:use-module (guix licenses)
  #:export (hello))

(define hello
  (package
    (name "hello")
    (version "2.10")
    (source (origin
              (method url-fetch)
              (uri (string-append "mirror://gnu/hello/hello-" version ".tar.gz"))
              (sha256
               (base32 "0ssi1wpaf7plaswqqjwigppsg5fyh99vdlb9kzl7c9lng89ndq1i"))))
    (build-system gnu-build-system)
    (synopsis "Example GNU package that greets the world")
    (description
     "GNU Hello prints a greeting, \"Hello, world!\" by default, in the
language of the user.  It exists to show how a GNU package is written,
configured, built, tested and installed.")
    (home-page "https://www.gnu.org/software/hello/")
    (license gpl3+)))
