;;; ed.scm - (gnu packages ed): the GNU line editor
;;; SPDX-License-Identifier: GPL-3.0-or-later
(define-module (gnu packages ed)
  #:use-module (guix packages)
  #:use-module (guix download)
  #:use-module (guix build-system gnu)
  #:use-module (guix licenses)
  #:export (ed))

(define ed
  (package
    (name "ed")
    (version "1.19")
    (source (origin
              (method url-fetch)
              (uri (string-append "mirror://gnu/ed/ed-" version ".tar.gz"))
              ;; Debian's ed_1.19.orig.tar.gz: upstream releases ed as .tar.lz only;
              ;; Debian's is the same tree recompressed with gzip.
              (sha256
               (base32 "07fa8ip9wai3qi7gxlbxaj35yy91i8qvi5pkgyap6blphiy3wp4f"))))
    (build-system gnu-build-system)
    ;; Its own configure script (not Autoconf's); make check runs its suite.
    (arguments
     (list #:configure-flags '("CC=gcc")))
    (synopsis "The standard Unix line editor")
    (description
     "GNU ed is the line-oriented text editor of Unix, driven by commands,
used from scripts and by patch to apply ed-style diffs.")
    (home-page "https://www.gnu.org/software/ed/")
    (license gpl3+)))
