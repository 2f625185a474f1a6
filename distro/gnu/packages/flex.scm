;;; flex.scm - (gnu packages flex): the fast lexical analyser generator
;;; SPDX-License-Identifier: GPL-3.0-or-later
(define-module (gnu packages flex)
  #:use-module (guix packages)
  #:use-module (guix download)
  #:use-module (guix build-system gnu)
  #:use-module ((guix licenses) #:select (bsd-3))
  #:use-module (gnu packages m4)
  #:use-module (gnu packages bison)
  #:export (flex))

(define flex
  (package
    (name "flex")
    (version "2.6.4")
    (source (origin
              (method url-fetch)
              (uri (string-append "https://github.com/westes/flex/releases/download/v"
                                  version "/flex-" version ".tar.gz"))
              ;; Debian's flex_2.6.4.orig.tar.gz, not repacked by Debian.
              (sha256
               (base32 "15g9bv236nzi665p9ggqjlfn4dwck5835vf0bbw2cz7h5c1swyp8"))))
    (build-system gnu-build-system)
    ;; The generated scanners include nothing of flex's; the tests build
    ;; scanners that work with Bison's parsers.
    (native-inputs (list bison))
    (propagated-inputs (list m4))
    (synopsis "Generator of fast lexical analysers (lex)")
    (description
     "Flex turns a description of the tokens of a language, as regular
expressions with actions in C, into a C scanner that recognises them:
the tool behind the lexers of many compilers and interpreters.  It is
compatible with lex.")
    (home-page "https://github.com/westes/flex")
    (license bsd-3)))
