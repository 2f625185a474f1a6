;;; cflow.scm - (gnu packages cflow): call graphs of C programs
;;; SPDX-License-Identifier: GPL-3.0-or-later
(define-module (gnu packages cflow)
  #:use-module (guix packages)
  #:use-module (guix download)
  #:use-module (guix build-system gnu)
  #:use-module (guix licenses)
  #:export (cflow))

(define cflow
  (package
    (name "cflow")
    (version "1.7")
    (source (origin
              (method url-fetch)
              (uri (string-append "mirror://gnu/cflow/cflow-" version ".tar.xz"))
              ;; Debian's orig tarball of this version, not repacked by Debian.
              (sha256
               (base32 "0fyakphjj1yz6dzdg6dbj4g95c8zqdgk7n6cxjvil2j2x888n9wy"))))
    (build-system gnu-build-system)
    (synopsis "Call graphs of C programs")
    (description
     "GNU cflow reads C source files and prints the call graph of their
functions: who calls whom (or, reversed, who is called by whom), as a
tree or in POSIX's format.")
    (home-page "https://www.gnu.org/software/cflow/")
    (license gpl3+)))
