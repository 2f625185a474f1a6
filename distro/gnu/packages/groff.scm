;;; groff.scm - (gnu packages groff): the GNU troff typesetting system
;;; SPDX-License-Identifier: GPL-3.0-or-later
(define-module (gnu packages groff)
  #:use-module (guix packages)
  #:use-module (guix download)
  #:use-module (guix build-system gnu)
  #:use-module (guix licenses)
  #:use-module (gnu packages perl)
  #:use-module (gnu packages bison)
  #:export (groff))

(define groff
  (package
    (name "groff")
    (version "1.22.4")
    (source (origin
              (method url-fetch)
              (uri (string-append "mirror://gnu/groff/groff-" version ".tar.gz"))
              ;; Debian's orig tarball of this version, not repacked by Debian.
              (sha256
               (base32 "14q2mldnr1vx0l9lqp9v2f6iww24gj28iyh4j2211hyynx67p3p7"))))
    (build-system gnu-build-system)
    ;; No X11 (no gxditview), no Ghostscript nor netpbm (the HTML output's
    ;; images are not made).
    (native-inputs (list perl bison))
    (arguments
     (list #:configure-flags '("--without-x" "--with-doc=no")))
    (synopsis "Typesetting from plain text, for manual pages")
    (description
     "GNU troff (groff) formats text with embedded commands into output for
terminals, PostScript, PDF and HTML: man and info pages are read
through it. It provides troff, nroff, the man and mm macro packages,
tbl, eqn and pic.")
    (home-page "https://www.gnu.org/software/groff/")
    (license gpl3+)))
