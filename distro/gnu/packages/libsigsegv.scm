;;; libsigsegv.scm - (gnu packages libsigsegv): page faults handled in user mode
;;; SPDX-License-Identifier: GPL-3.0-or-later
(define-module (gnu packages libsigsegv)
  #:use-module (guix packages)
  #:use-module (guix download)
  #:use-module (guix build-system gnu)
  #:use-module (guix licenses)
  #:export (libsigsegv))

(define libsigsegv
  (package
    (name "libsigsegv")
    (version "2.14")
    (source (origin
              (method url-fetch)
              (uri (string-append "mirror://gnu/libsigsegv/libsigsegv-" version ".tar.gz"))
              ;; Debian's orig tarball of this version, not repacked by Debian.
              (sha256
               (base32 "15d2r831xz94s7540nvb1gbfl062g7mrnj88m60wyr1kh10kkb6d"))))
    (build-system gnu-build-system)
    (synopsis "Library for handling page faults in user mode")
    (description
     "GNU libsigsegv lets a program handle page faults (for a generational
garbage collector, distributed shared memory) and stack overflow (to
report it instead of crashing), portably.")
    (home-page "https://www.gnu.org/software/libsigsegv/")
    (license gpl2+)))
