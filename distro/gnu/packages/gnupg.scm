;;; gnupg.scm - (gnu packages gnupg): the libraries of GnuPG
;;; SPDX-License-Identifier: GPL-3.0-or-later
(define-module (gnu packages gnupg)
  #:use-module (guix packages)
  #:use-module (guix download)
  #:use-module (guix build-system gnu)
  #:use-module (guix licenses)
  #:export (libgpg-error libgcrypt libassuan))

(define libgpg-error
  (package
    (name "libgpg-error")
    (version "1.46")
    (source (origin
              (method url-fetch)
              (uri (string-append "mirror://gnupg/libgpg-error/libgpg-error-"
                                  version ".tar.bz2"))
              ;; Debian's libgpg-error_1.46.orig.tar.bz2, not repacked by Debian.
              (sha256
               (base32 "1396h4f9z9awzkkyb6iwspy2rmxb8nr47pj8fzrmxgkb4ij1mqdp"))))
    (build-system gnu-build-system)
    ;; gpg-error-config too (since 1.46 only gpgrt-config by default):
    ;; the configure scripts of libassuan and others of its age look for it.
    (arguments
     (list #:configure-flags '("--enable-install-gpg-error-config")))
    (synopsis "Error codes and messages shared by GnuPG's libraries")
    (description
     "Libgpg-error defines the error values of GnuPG, Libgcrypt, GPGME and
the other GnuPG libraries, with their messages, and small portable
helpers (estream, argument parsing) they share.")
    (home-page "https://gnupg.org/related_software/libgpg-error/")
    (license lgpl2.1+)))

(define libgcrypt
  (package
    (name "libgcrypt")
    (version "1.10.1")
    (source (origin
              (method url-fetch)
              (uri (string-append "mirror://gnupg/libgcrypt/libgcrypt-"
                                  version ".tar.bz2"))
              ;; Debian's libgcrypt20_1.10.1.orig.tar.bz2, not repacked by Debian.
              (sha256
               (base32 "1pp9zyx02bzgzjzldxf0mx9kp3530xgaaqcz4n2cv100ddaaw57g"))))
    (build-system gnu-build-system)
    ;; gcrypt.h includes gpg-error.h.
    (propagated-inputs (list libgpg-error))
    (arguments
     (list #:configure-flags '("--with-libgpg-error-prefix=${libgpg_error}")))
    (synopsis "Cryptographic library of GnuPG")
    (description
     "Libgcrypt is the cryptographic library of GnuPG: hash functions
(SHA-2, SHA-3, BLAKE2), symmetric ciphers (AES, ChaCha20) and their
modes, public-key algorithms (RSA, DSA, ECC with Ed25519), random
numbers, and multi-precision arithmetic, with code for the processors'
own instructions.")
    (home-page "https://gnupg.org/software/libgcrypt/")
    (license lgpl2.1+)))

(define libassuan
  (package
    (name "libassuan")
    (version "2.5.5")
    (source (origin
              (method url-fetch)
              (uri (string-append "mirror://gnupg/libassuan/libassuan-"
                                  version ".tar.bz2"))
              ;; Debian's libassuan_2.5.5.orig.tar.bz2, not repacked by Debian.
              (sha256
               (base32 "1r1lvcp67gn5lfrj1g388sd77ca6qwnmxndirdysd71gk362z34f"))))
    (build-system gnu-build-system)
    (propagated-inputs (list libgpg-error))
    (synopsis "Inter-process protocol of GnuPG's components")
    (description
     "Libassuan implements the Assuan protocol by which GnuPG's programs
(gpg, gpg-agent, dirmngr, pinentry) talk to each other over pipes and
sockets: commands, status lines and data, with a server and a client
side.")
    (home-page "https://gnupg.org/software/libassuan/")
    (license (list lgpl2.1+ gpl3+))))
