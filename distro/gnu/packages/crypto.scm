;;; crypto.scm - (gnu packages crypto): password hashing and other cryptography
;;; SPDX-License-Identifier: GPL-3.0-or-later
(define-module (gnu packages crypto)
  #:use-module (guix packages)
  #:use-module (guix download)
  #:use-module (guix build-system gnu)
  #:use-module ((guix licenses) #:select (lgpl2.1+))
  #:use-module (gnu packages perl)
  #:use-module (gnu packages autotools)
  #:export (libxcrypt))

(define libxcrypt
  (package
    (name "libxcrypt")
    (version "4.4.33")
    (source (origin
              (method url-fetch)
              (uri (string-append "https://github.com/besser82/libxcrypt/releases/download/v" version "/libxcrypt-" version ".tar.xz"))
              ;; Debian's libxcrypt_4.4.33.orig.tar.xz: the release's Git tree
              ;; (no configure), not upstream's release tarball.
              (sha256
               (base32 "02x1fnf24yz9nw5wci8g464khlmqwdsrrx5kqk29lgi6bz5sabay"))))
    (build-system gnu-build-system)
    ;; Debian's tarball is the release's Git tree, without configure:
    ;; autogen.sh makes it (Autoconf, Automake, Libtool).
    (native-inputs (list perl autoconf automake libtool))
    (arguments
     (list #:phases
           (modify-phases %standard-phases
             (add-before 'configure 'autogen "./autogen.sh"))))
    (synopsis "Library of password hashing (crypt)")
    (description
     "libxcrypt provides crypt() and its relatives, the one-way hashing of
passwords, with the modern methods (yescrypt, bcrypt, SHA-512) and the
old ones, as libcrypt.so.1.")
    (home-page "https://github.com/besser82/libxcrypt")
    (license lgpl2.1+)))
