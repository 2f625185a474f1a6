;;; libbsd.scm - (gnu packages libbsd): functions of BSD systems
;;; SPDX-License-Identifier: GPL-3.0-or-later
(define-module (gnu packages libbsd)
  #:use-module (guix packages)
  #:use-module (guix download)
  #:use-module (guix build-system gnu)
  #:use-module ((guix licenses) #:select (bsd-3 isc public-domain bsd-2 expat))
  #:export (libmd libbsd))

(define libmd
  (package
    (name "libmd")
    (version "1.0.4")
    (source (origin
              (method url-fetch)
              (uri (string-append "https://archive.hadrons.org/software/libmd/libmd-" version ".tar.xz"))
              ;; Debian's orig tarball of this version, not repacked by Debian.
              (sha256
               (base32 "03skgv013v0y9hxh6j143xdwynb5cmbmbdylvvgfsjz38889477m"))))
    (build-system gnu-build-system)
    (synopsis "Message digest functions of BSD systems")
    (description
     "libmd provides the message digest interfaces of the BSD systems (MD2,
MD4, MD5, RIPEMD-160, SHA-1, SHA-2), as libbsd needs them.")
    (home-page "https://www.hadrons.org/software/libmd/")
    (license (list bsd-3 bsd-2 isc public-domain))))

(define libbsd
  (package
    (name "libbsd")
    (version "0.11.7")
    (source (origin
              (method url-fetch)
              (uri (string-append "https://libbsd.freedesktop.org/releases/libbsd-" version ".tar.xz"))
              ;; Debian's orig tarball of this version, not repacked by Debian.
              (sha256
               (base32 "0q82iaynmal3dn132jgjq21p27x3zn8zks88cg02bgzbb5h1ialv"))))
    (build-system gnu-build-system)
    (propagated-inputs (list libmd))
    (synopsis "Functions of BSD systems for GNU programs")
    (description
     "libbsd provides functions that BSD systems have and glibc has not
(strlcpy, arc4random, setproctitle, the sys/queue.h and sys/tree.h
macros), so that programs written for them build on GNU systems.")
    (home-page "https://libbsd.freedesktop.org/")
    (license (list bsd-3 bsd-2 isc expat))))
