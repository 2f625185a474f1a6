;;; libunistring.scm - (gnu packages libunistring): Unicode strings in C
;;; SPDX-License-Identifier: GPL-3.0-or-later
(define-module (gnu packages libunistring)
  #:use-module (guix packages)
  #:use-module (guix download)
  #:use-module (guix build-system gnu)
  #:use-module (guix licenses)
  #:export (libunistring))

(define libunistring
  (package
    (name "libunistring")
    (version "1.0")
    (source (origin
              (method url-fetch)
              (uri (string-append "mirror://gnu/libunistring/libunistring-"
                                  version ".tar.xz"))
              ;; Debian's libunistring_1.0.orig.tar.xz, not repacked by Debian.
              (sha256
               (base32 "0h97qx3c4970wvh25g51sjgz54xn37lrfy95dg97xmvmkys5basv"))))
    (build-system gnu-build-system)
    (synopsis "Unicode strings and characters for C programs")
    (description
     "GNU libunistring gives C programs Unicode strings in UTF-8, UTF-16
and UTF-32: conversion, properties of characters, case mapping and
folding, normalisation, word and line breaking, and the width of text on
a terminal.  Guile and GnuTLS use it.")
    (home-page "https://www.gnu.org/software/libunistring/")
    (license (list lgpl3+ gpl2+))))
