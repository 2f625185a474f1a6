;;; libidn.scm - (gnu packages libidn): internationalised domain names
;;; SPDX-License-Identifier: GPL-3.0-or-later
(define-module (gnu packages libidn)
  #:use-module (guix packages)
  #:use-module (guix download)
  #:use-module (guix build-system gnu)
  #:use-module (guix licenses)
  #:use-module (gnu packages libunistring)
  #:export (libidn2))

(define libidn2
  (package
    (name "libidn2")
    (version "2.3.3")
    (source (origin
              (method url-fetch)
              (uri (string-append "mirror://gnu/libidn/libidn2-" version ".tar.gz"))
              ;; Debian's orig tarball of this version, not repacked by Debian.
              (sha256
               (base32 "1c3fqgqwpnkf6z8nran6cd6cpzrc9r1awg1j9ga363f049srib7k"))))
    (build-system gnu-build-system)
    (inputs (list libunistring))
    (synopsis "Internationalised domain names (IDNA 2008)")
    (description
     "GNU Libidn2 converts domain names between Unicode and the ASCII form
DNS carries (Punycode), following IDNA 2008 and TR46, for the
resolvers, browsers and download tools that meet them.")
    (home-page "https://www.gnu.org/software/libidn/#libidn2")
    (license (list lgpl3+ gpl2+))))
