;;; cross-base.scm - (gnu packages cross-base): tool chains that build for other machines
;;; SPDX-License-Identifier: GPL-3.0-or-later
(define-module (gnu packages cross-base)
  #:use-module (guix packages)
  #:use-module (guix build-system trivial)
  #:use-module (guix licenses)
  #:use-module (gnu packages bootstrap)
  #:export (cross-tools cross-tools-triplets))

;;; A cross tool chain is made as the bootstrap binaries are: by
;;; scripts/make-cross-tools TRIPLET from pinned Debian 12 packages
;;; (gcc-12-TRIPLET, binutils-TRIPLET, libc6-dev-ARCH-cross...),
;;; reproducibly, and added to the store as it is; its hash is the one the
;;; script prints. Unpacked in the sandbox by the bootstrap's bash: the
;;; compilers (x86_64 programs) run on the bootstrap's loader and
;;; libraries (so cross-building still uses Debian's binaries, whichever
;;; tool chain the native packages are built with), and the target's libc goes to its own output, "lib", which is
;;; all that what they build refers to.

(define %cross-tarballs
  `(("aarch64-linux-gnu"
     . ,(bootstrap-item "cross-tools-aarch64-linux-gnu.tar.xz"
                        (base32 "1mbcz9rrpikvngh1cjps70769dfh3lys3c1q35rdhm6nj7z38i8a")
                        #f))))

(define (cross-tools-triplets)
  (map car %cross-tarballs))

(define %cross-tools (make-hash-table))

;;; The tool chain package for TRIPLET (one record per triplet, so that
;;; every package cross-built for it shares it).
(define (cross-tools triplet)
  (or (hash-ref %cross-tools triplet)
      (let ((tarball (assoc-ref %cross-tarballs triplet)))
        (unless tarball
          (error (format #f "no cross tool chain for `~a' (known: ~a)" triplet
                         (string-join (cross-tools-triplets) ", "))))
        (let ((p (package
                   (name (string-append "cross-tools-" triplet))
                   (version "12")
                   (source #f)
                   (build-system trivial-build-system)
                   (outputs '("out" "lib"))
                   (inputs `(("tarball" ,tarball)
                             ("script" ,(local-file (data-file "distro/bootstrap/unpack-cross.sh")
                                                    "unpack-cross.sh"))
                             ("bootstrap-tools" ,%bootstrap-tools)))
                   (arguments
                    `(#:implicit-inputs? #f
                      #:env (("triplet" . ,triplet))
                      #:builder ((input "bootstrap-tools" "/bin/bash") "-e" (input "script"))))
                   (synopsis (string-append "GCC 12 and binutils building for " triplet))
                   (description "Debian's cross compiler, binutils and the target's C
library, relocated into the store.")
                   (home-page #f)
                   (license gpl3+)
                   (properties '((hidden? . #t))))))
          (hash-set! %cross-tools triplet p)
          p))))
