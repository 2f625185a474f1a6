;;; guile.scm - (gnu packages guile): GNU Guile, the language of cix's packages
;;; SPDX-License-Identifier: GPL-3.0-or-later
(define-module (gnu packages guile)
  #:use-module (guix packages)
  #:use-module (guix download)
  #:use-module (guix build-system gnu)
  #:use-module ((guix licenses) #:select (lgpl3+))
  #:use-module (gnu packages bdw-gc)
  #:use-module (gnu packages libffi)
  #:use-module (gnu packages libunistring)
  #:use-module (gnu packages multiprecision)
  #:use-module (gnu packages readline)
  #:use-module (gnu packages pkg-config)
  #:use-module (gnu packages crypto)
  #:export (guile-3.0))

(define guile-3.0
  (package
    (name "guile")
    (version "3.0.10")
    (source (origin
              (method url-fetch)
              (uri (string-append "mirror://gnu/guile/guile-" version ".tar.xz"))
              ;; Debian 13's guile-3.0_3.0.10+really3.0.10.orig.tar.xz: the
              ;; archive here no longer has Debian 12's 3.0.8 tarball
              ;; (scripts/fill-mirror guile-3.0/trixie).
              (sha256
               (base32 "05kacscghvgxk942pzn027z250dj1jhg7skc0zn3hj7xsi3lxyjm"))))
    (build-system gnu-build-system)
    (native-inputs (list pkg-config))
    (inputs (list libffi readline libxcrypt))
    ;; libguile's headers include gc.h and gmp.h, and guile-3.0.pc names
    ;; them: a program linking libguile needs them too.
    (propagated-inputs (list libgc gmp libunistring))
    (arguments
     ;; The compiled modules (.go) are made from the bootstrap ones its
     ;; tarball ships (prebuilt/), which is most of the build's time.
     (list #:configure-flags '("--disable-static")))
    (native-search-paths
     (list (search-path-specification
            (variable "GUILE_LOAD_PATH")
            (files '("share/guile/site/3.0")))
           (search-path-specification
            (variable "GUILE_LOAD_COMPILED_PATH")
            (files '("lib/guile/3.0/site-ccache")))))
    (synopsis "GNU's extension language, a Scheme")
    (description
     "GNU Guile is an implementation of Scheme, the Lisp dialect, made to
extend programs: a library, libguile, that a C program links to run
Scheme code, as well as an interpreter and compiler of its own with a
virtual machine and a just-in-time compiler.  cix evaluates its package
definitions with it, as Guix does.")
    (home-page "https://www.gnu.org/software/guile/")
    (license lgpl3+)))
