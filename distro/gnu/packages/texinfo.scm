;;; texinfo.scm - (gnu packages texinfo): GNU's documentation format
;;; SPDX-License-Identifier: GPL-3.0-or-later
(define-module (gnu packages texinfo)
  #:use-module (guix packages)
  #:use-module (guix download)
  #:use-module (guix build-system gnu)
  #:use-module (guix licenses)
  #:use-module (gnu packages perl)
  #:use-module (gnu packages ncurses)
  #:export (texinfo))

(define texinfo
  (package
    (name "texinfo")
    (version "6.8")
    (source (origin
              (method url-fetch)
              (uri (string-append "mirror://gnu/texinfo/texinfo-" version ".tar.xz"))
              ;; Debian's texinfo_6.8.orig.tar.xz, not repacked by Debian.
              (sha256
               (base32 "1i7yb7mrp3inz25zbzv2pllr4y7d58v818f1as7iz8mw53nm7dwf"))))
    (build-system gnu-build-system)
    ;; makeinfo is a Perl program; info links ncurses.
    (inputs (list perl ncurses))
    (arguments
     ;; texi2any translates a document's words (--document-language fr)
     ;; only under a locale other than C, and asks for en_US.UTF-8, which
     ;; glibc's lib/locale has not (C.UTF-8 only): its suite gets both,
     ;; made by glibc's localedef, in a LOCPATH of its own (which glibc
     ;; then reads alone).
     (list #:phases
           (modify-phases %standard-phases
             (replace 'check
               "mkdir -p \"$TMPDIR/locale\"
for l in en_US C; do
  localedef --no-archive -i $l -f UTF-8 \"$TMPDIR/locale/$l.UTF-8\"
done
LOCPATH=$TMPDIR/locale make -j\"${NIX_BUILD_CORES:-1}\" check SHELL=\"$(command -v bash)\""))))
    (native-search-paths
     (list (search-path-specification
            (variable "INFOPATH")
            (files '("share/info")))))
    (synopsis "The GNU documentation system")
    (description
     "Texinfo is the format of the manuals of the GNU project: one source
gives an Info file to read in a terminal or Emacs, HTML, and printed
output (through TeX).  The package has makeinfo (texi2any), the stand-alone
info reader, install-info and texi2dvi.")
    (home-page "https://www.gnu.org/software/texinfo/")
    (license gpl3+)))
