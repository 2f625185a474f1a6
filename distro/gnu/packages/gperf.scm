;;; gperf.scm - (gnu packages gperf): a generator of perfect hash functions
;;; SPDX-License-Identifier: GPL-3.0-or-later
(define-module (gnu packages gperf)
  #:use-module (guix packages)
  #:use-module (guix download)
  #:use-module (guix build-system gnu)
  #:use-module (guix licenses)
  #:export (gperf))

(define gperf
  (package
    (name "gperf")
    (version "3.1")
    (source (origin
              (method url-fetch)
              (uri (string-append "mirror://gnu/gperf/gperf-" version ".tar.gz"))
              ;; Debian's orig tarball of this version, not repacked by Debian.
              (sha256
               (base32 "1f0wkmg556wb04zqsl3kjxjq6h5zbkhva96awvkm0wqqg2dq320z"))))
    (build-system gnu-build-system)
    (arguments
     ;; Its tests compare generated code with expected files.
     (list #:parallel-tests? #f))
    (synopsis "Generator of perfect hash functions")
    (description
     "GNU gperf reads a set of keywords and writes C or C++ code of a
perfect hash function and lookup table for it: one probe finds whether
a string is a keyword. Compilers, libseccomp and others use it.")
    (home-page "https://www.gnu.org/software/gperf/")
    (license gpl3+)))
