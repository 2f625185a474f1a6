;;; gnunet.scm - (gnu packages gnunet): libraries of the GNUnet project
;;; SPDX-License-Identifier: GPL-3.0-or-later
(define-module (gnu packages gnunet)
  #:use-module (guix packages)
  #:use-module (guix download)
  #:use-module (guix build-system gnu)
  #:use-module (guix licenses)
  #:use-module (gnu packages tls)
  #:use-module (gnu packages pkg-config)
  #:export (libmicrohttpd))

(define libmicrohttpd
  (package
    (name "libmicrohttpd")
    (version "0.9.75")
    (source (origin
              (method url-fetch)
              (uri (string-append "mirror://gnu/libmicrohttpd/libmicrohttpd-" version ".tar.xz"))
              ;; Debian's orig tarball of this version, not repacked by Debian.
              (sha256
               (base32 "0c81ca943s3h71ca037mvj2k3i81hpls8ry6ragnf0j8g8hpwvkr"))))
    (build-system gnu-build-system)
    ;; Its tests that use curl as the client are left out by configure (no
    ;; libcurl built before it); the others run.
    (native-inputs (list pkg-config))
    (inputs (list gnutls))
    (arguments
     (list #:configure-flags '("--disable-static" "--disable-examples")))
    (synopsis "An HTTP server in a C library")
    (description
     "GNU libmicrohttpd embeds an HTTP/1.1 server in a program: a small C
library, with TLS through GnuTLS, that serves requests from threads, a
thread pool or the program's own event loop. cix publish serves binary
caches with it.")
    (home-page "https://www.gnu.org/software/libmicrohttpd/")
    (license lgpl2.1+)))
