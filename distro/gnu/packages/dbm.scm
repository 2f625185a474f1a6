;;; dbm.scm - (gnu packages dbm): the GNU database manager
;;; SPDX-License-Identifier: GPL-3.0-or-later
(define-module (gnu packages dbm)
  #:use-module (guix packages)
  #:use-module (guix download)
  #:use-module (guix build-system gnu)
  #:use-module (guix licenses)
  #:export (gdbm))

(define gdbm
  (package
    (name "gdbm")
    (version "1.23")
    (source (origin
              (method url-fetch)
              (uri (string-append "mirror://gnu/gdbm/gdbm-" version ".tar.gz"))
              ;; Debian's orig tarball of this version, not repacked by Debian.
              (sha256
               (base32 "1kfapds42j1sjq6wl7fygipw5904wpbfa5kwppj3mwgz44fhicbl"))))
    (build-system gnu-build-system)
    (arguments
     (list #:configure-flags '("--enable-libgdbm-compat")))
    (synopsis "Hash tables kept in a file")
    (description
     "GNU dbm (gdbm) keeps key-value pairs in a file, found by hashing: a
simple embedded database, with the traditional dbm and ndbm interfaces
too. man-db and Python's dbm module use it.")
    (home-page "https://www.gnu.org/software/gdbm/")
    (license gpl3+)))
