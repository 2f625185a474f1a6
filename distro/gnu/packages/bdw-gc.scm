;;; bdw-gc.scm - (gnu packages bdw-gc): the Boehm-Demers-Weiser garbage collector
;;; SPDX-License-Identifier: GPL-3.0-or-later
(define-module (gnu packages bdw-gc)
  #:use-module (guix packages)
  #:use-module (guix download)
  #:use-module (guix build-system gnu)
  #:use-module ((guix licenses) #:select (x11-style))
  #:export (libgc))

(define libgc
  (package
    (name "libgc")
    (version "8.2.2")
    (source (origin
              (method url-fetch)
              (uri (string-append "https://github.com/ivmai/bdwgc/releases/download/v" version "/gc-" version ".tar.gz"))
              ;; Debian's orig tarball of this version, not repacked by Debian.
              (sha256
               (base32 "181ni2rn9qjbl4ilqdjrd1a4h8siv5bgmzqgg4595q32n2y0f0gk"))))
    (build-system gnu-build-system)
    ;; Threads, and the C++ interface too.
    (arguments
     (list #:configure-flags '("--enable-cplusplus" "--enable-threads=posix" "--disable-static")))
    (synopsis "The Boehm-Demers-Weiser conservative garbage collector")
    (description
     "The Boehm-Demers-Weiser collector replaces C's malloc with allocation
whose memory is reclaimed when no longer reachable, found by a
conservative scan of the stacks, registers and heap. Guile and many
language runtimes use it.")
    (home-page "https://www.hboehm.info/gc/")
    (license (x11-style "https://www.hboehm.info/gc/license.txt"))))
