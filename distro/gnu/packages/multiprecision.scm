;;; multiprecision.scm - (gnu packages multiprecision): GMP, MPFR, MPC
;;; SPDX-License-Identifier: GPL-3.0-or-later
(define-module (gnu packages multiprecision)
  #:use-module (guix packages)
  #:use-module (guix download)
  #:use-module (guix build-system gnu)
  #:use-module (guix licenses)
  #:use-module (gnu packages m4)
  #:export (gmp mpfr mpc))

;;; The same three tarballs that GCC builds in its own tree (commencement),
;;; here as libraries of their own.

(define gmp
  (package
    (name "gmp")
    (version "6.2.1")
    (source (origin
              (method url-fetch)
              (uri (string-append "mirror://gnu/gmp/gmp-" version ".tar.xz"))
              ;; Debian's gmp_6.2.1+dfsg1.orig.tar.xz: upstream's release
              ;; less its manual (doc/, under the GFDL with invariant
              ;; sections), so not upstream's file byte for byte.
              (sha256
               (base32 "0k56xy42khdvc5666qpbvsp9rfd4y32sy5gj4h0jldh47r39w6s7"))))
    (build-system gnu-build-system)
    (native-inputs (list m4))
    (arguments
     ;; C++ bindings (libgmpxx) as well; code for any x86-64, not only the
     ;; build machine's processor, so that the binary serves every user.
     (list #:configure-flags '("--enable-cxx" "--enable-fat")
           #:phases
           (modify-phases %standard-phases
             ;; The manual's directory is gone: a Makefile that makes
             ;; nothing stands for it.
             (add-after 'unpack 'no-doc
               "test ! -e doc
mkdir doc
printf 'all:\\n%%:\\n\\t@:\\n' >doc/Makefile.in"))))
    (synopsis "Arbitrary-precision arithmetic on integers, rationals and floats")
    (description
     "GMP is a library for arbitrary-precision arithmetic on signed
integers, rational numbers and floating-point numbers, with hand-written
assembly for the inner loops on many processors.  Compilers (GCC),
cryptographic libraries (Nettle) and computer algebra systems use it.")
    (home-page "https://gmplib.org/")
    (license (list lgpl3+ gpl2+))))

(define mpfr
  (package
    (name "mpfr")
    (version "4.2.0")
    (source (origin
              (method url-fetch)
              (uri (string-append "mirror://gnu/mpfr/mpfr-" version ".tar.xz"))
              ;; Debian's mpfr4_4.2.0.orig.tar.xz, not repacked by Debian.
              (sha256
               (base32 "14yr4sf4mys64nzbgnd997l6l4n8l9vsjnnvnb0lh4jh2ggpi8q6"))))
    (build-system gnu-build-system)
    (propagated-inputs (list gmp))   ; mpfr.h includes gmp.h
    (synopsis "Multiple-precision floating point with correct rounding")
    (description
     "MPFR computes with floating-point numbers of any precision, each
operation rounded correctly in the mode asked for, as IEEE 754 does for
its fixed formats.  It is built on GMP.")
    (home-page "https://www.mpfr.org/")
    (license lgpl3+)))

(define mpc
  (package
    (name "mpc")
    (version "1.3.1")
    (source (origin
              (method url-fetch)
              (uri (string-append "mirror://gnu/mpc/mpc-" version ".tar.gz"))
              ;; Debian's mpclib3_1.3.1.orig.tar.gz, not repacked by Debian.
              (sha256
               (base32 "1f2rqz0hdrrhx4y1i5f8pv6yv08a876k1dqcm9s2p26gyn928r5b"))))
    (build-system gnu-build-system)
    (propagated-inputs (list gmp mpfr))   ; mpc.h includes both
    (synopsis "Complex numbers of arbitrary precision, correctly rounded")
    (description
     "GNU MPC computes with complex numbers of any precision, each
operation correctly rounded, on top of MPFR and GMP.")
    (home-page "https://www.multiprecision.org/mpc/")
    (license lgpl3+)))
