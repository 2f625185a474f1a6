;;; which.scm - (gnu packages which): the which command
;;; SPDX-License-Identifier: GPL-3.0-or-later
(define-module (gnu packages which)
  #:use-module (guix packages)
  #:use-module (guix download)
  #:use-module (guix build-system gnu)
  #:use-module ((guix licenses) #:select (gpl3+))
  #:export (which))

(define which
  (package
    (name "which")
    (version "2.21")
    (source (origin
              (method url-fetch)
              (uri (string-append "mirror://gnu/which/which-" version ".tar.gz"))
              ;; Debian's gnu-which_2.21+dfsg.orig.tar.gz: upstream's release less
              ;; files Debian does not ship, so not upstream's file byte for byte.
              (sha256
               (base32 "1axxikapi8kncx23prlcjhv5fq659jf5qy3d00jb0q55k7dgng0d"))))
    (build-system gnu-build-system)
    ;; It has no test suite; the built which must find itself.  Debian's
    ;; tarball has no which.texi (the manual is under the GFDL): no Info
    ;; manual (INFO_DEPS empty), the manual page only.
    (arguments
     (list #:make-flags '("INFO_DEPS=")
           #:phases
           (modify-phases %standard-phases
             (replace 'check "test \"$(PATH=$PWD ./which which)\" = \"$PWD/which\""))))
    (synopsis "Find the file a command runs")
    (description
     "GNU which prints the file that would run for each command named,
searching PATH as the shell does, and optionally its aliases and
functions.")
    (home-page "https://savannah.gnu.org/projects/which/")
    (license gpl3+)))
