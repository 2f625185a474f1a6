;;; libffi.scm - (gnu packages libffi): calls of functions known at run time
;;; SPDX-License-Identifier: GPL-3.0-or-later
(define-module (gnu packages libffi)
  #:use-module (guix packages)
  #:use-module (guix download)
  #:use-module (guix build-system gnu)
  #:use-module ((guix licenses) #:select (expat))
  #:use-module (gnu packages tcl)
  #:export (libffi))

(define libffi
  (package
    (name "libffi")
    (version "3.4.4")
    (source (origin
              (method url-fetch)
              (uri (string-append "https://github.com/libffi/libffi/releases/download/v"
                                  version "/libffi-" version ".tar.gz"))
              ;; Debian's libffi_3.4.4.orig.tar.gz, not repacked by Debian.
              (sha256
               (base32 "0xpn5mqlbdmqgxgp910ba1qj79axpwr8nh7wklmcz0ls4nnmcv6n"))))
    (build-system gnu-build-system)
    ;; Its suite is DejaGnu's.
    (native-inputs (list dejagnu))
    (synopsis "Calls of functions whose type is known only at run time")
    (description
     "libffi lets a program call a C function given its address and, at
run time, the types of its arguments and result, following the calling
conventions of the processor; and make closures that C can call.
Interpreters (Python's ctypes, Guile's FFI) are built on it.")
    (home-page "https://sourceware.org/libffi/")
    (license expat)))
