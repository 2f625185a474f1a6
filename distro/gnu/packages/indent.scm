;;; indent.scm - (gnu packages indent): a formatter of C code
;;; SPDX-License-Identifier: GPL-3.0-or-later
(define-module (gnu packages indent)
  #:use-module (guix packages)
  #:use-module (guix download)
  #:use-module (guix build-system gnu)
  #:use-module (guix licenses)
  #:use-module (gnu packages texinfo)
  #:export (indent))

(define indent
  (package
    (name "indent")
    (version "2.2.12")
    (source (origin
              (method url-fetch)
              (uri (string-append "mirror://gnu/indent/indent-" version ".tar.xz"))
              ;; Debian's orig tarball of this version, not repacked by Debian.
              (sha256
               (base32 "1yyyw68rww04sf57sg5sxiw1xzdalz6w2vgrsy1s91lgqvgsaidp"))))
    (build-system gnu-build-system)
    ;; Its manual in HTML is made in the build (makeinfo --html).
    (native-inputs (list texinfo))
    (synopsis "Formatter of C source code")
    (description
     "GNU Indent changes the appearance of C programs by inserting or
deleting whitespace: it puts code in the GNU style, or Kernighan and
Ritchie's, Berkeley's, or one set by options.")
    (home-page "https://www.gnu.org/software/indent/")
    (license gpl3+)))
