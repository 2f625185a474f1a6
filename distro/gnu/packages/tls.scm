;;; tls.scm - (gnu packages tls): GnuTLS, with libtasn1; Nettle; OpenSSL
;;; SPDX-License-Identifier: GPL-3.0-or-later
(define-module (gnu packages tls)
  #:use-module (guix packages)
  #:use-module (guix download)
  #:use-module (guix build-system gnu)
  #:use-module ((guix licenses) #:select (lgpl2.1+ lgpl3+ gpl2+ asl2.0))
  #:use-module (gnu packages m4)
  #:use-module (gnu packages multiprecision)
  #:use-module (gnu packages libunistring)
  #:use-module (gnu packages compression)
  #:use-module (gnu packages pkg-config)
  #:use-module (gnu packages perl)
  #:export (libtasn1 nettle gnutls openssl))

(define libtasn1
  (package
    (name "libtasn1")
    (version "4.19.0")
    (source (origin
              (method url-fetch)
              (uri (string-append "mirror://gnu/libtasn1/libtasn1-" version ".tar.gz"))
              ;; Debian's libtasn1-6_4.19.0.orig.tar.gz, not repacked by Debian.
              (sha256
               (base32 "0yizlr2y6gfjh86v68qw5wjcfg16arnw1f731kndd17l3jng04qn"))))
    (build-system gnu-build-system)
    (synopsis "Library for ASN.1 and its DER encoding")
    (description
     "GNU Libtasn1 reads ASN.1 definitions and encodes and decodes data
in DER, the encoding of X.509 certificates: GnuTLS builds on it.")
    (home-page "https://www.gnu.org/software/libtasn1/")
    (license lgpl2.1+)))

(define nettle
  (package
    (name "nettle")
    (version "3.8.1")
    (source (origin
              (method url-fetch)
              (uri (string-append "mirror://gnu/nettle/nettle-" version ".tar.gz"))
              ;; Debian's nettle_3.8.1.orig.tar.gz, not repacked by Debian.
              (sha256
               (base32 "1znb87fi4gd2jkwbca74fl64pr9lr0cm5i6p7zlcszfdfwmkwkrn"))))
    (build-system gnu-build-system)
    (native-inputs (list m4))
    ;; libhogweed (the public-key half) is built on GMP; its headers
    ;; include gmp.h.
    (propagated-inputs (list gmp))
    (arguments
     ;; Libraries in lib/, not lib64/; code for every x86-64, chosen at
     ;; run time.
     (list #:configure-flags '("--libdir=${out}/lib" "--enable-fat"
                               "LDFLAGS=-Wl,-rpath=${out}/lib")))
    (synopsis "Low-level cryptographic library")
    (description
     "Nettle is a cryptographic library of small pieces that fit any
context: hash functions, ciphers, MACs, AEAD modes, and (in libhogweed,
on GMP) RSA, DSA and elliptic curves.  GnuTLS uses it for all its
cryptography.")
    (home-page "https://www.lysator.liu.se/~nisse/nettle/")
    (license (list lgpl3+ gpl2+))))

(define gnutls
  (package
    (name "gnutls")
    (version "3.7.9")
    (source (origin
              (method url-fetch)
              (uri (string-append "mirror://gnupg/gnutls/v3.7/gnutls-" version ".tar.xz"))
              ;; Debian's gnutls28_3.7.9.orig.tar.xz, not repacked by Debian.
              (sha256
               (base32 "0i6qckzjk56lxnh3bpzl7p3jxm9yxkimkcw7a4aynm5xrlb3985a"))))
    (build-system gnu-build-system)
    (native-inputs (list pkg-config))
    (inputs (list libunistring zlib))
    ;; gnutls.pc names them in Requires.private, and its headers need
    ;; nettle's for some functions.
    (propagated-inputs (list nettle libtasn1))
    (arguments
     ;; No p11-kit (PKCS #11 modules) nor a system trust store: programs
     ;; give their CA files (GnuTLS's own default would be /etc/ssl).
     ;; Skipped by its suite: the tests that need datefudge or faketime,
     ;; softhsm, or the network.  Left out here: trust-store, which loads
     ;; that system store and fails when it finds no certificate (the
     ;; build has none).
     (list #:configure-flags
           '("--without-p11-kit" "--disable-doc" "--disable-guile"
             "--with-default-trust-store-file=/etc/ssl/certs/ca-certificates.crt")
           #:phases
           (modify-phases %standard-phases
             (add-after 'unpack 'no-system-trust-test
               "sed -i 's/ trust-store\\$(EXEEXT)//' tests/Makefile.in
! grep -q ' trust-store\\$(EXEEXT)' tests/Makefile.in"))))
    (synopsis "Transport Layer Security library")
    (description
     "GnuTLS implements TLS 1.3 and earlier, DTLS, X.509 and OpenPGP
certificates, and the protocols around them (OCSP, PKCS #12), behind a
simple C interface, with the gnutls-cli and certtool programs.")
    (home-page "https://www.gnutls.org/")
    (license lgpl2.1+)))

(define openssl
  (package
    (name "openssl")
    (version "3.0.17")
    (source (origin
              (method url-fetch)
              (uri (string-append "https://www.openssl.org/source/openssl-" version ".tar.gz"))
              ;; Debian 12's later stable update (3.0.17); the archive here no longer
              ;; has the tarball of its first 3.0 release.
              (sha256
               (base32 "1kmq5pnbdyz1z7md9zg7k6nba7gkqfyv1rmxdlxgymqvxbj7gpfz"))))
    (build-system gnu-build-system)
    ;; Its own Configure (Perl).  Certificates are looked for in
    ;; /etc/ssl (the system's, when there is one).  Its suite (make test,
    ;; Perl's harness) runs whole, two jobs at once.
    (native-inputs (list perl))
    (arguments
     (list #:phases
           (modify-phases %standard-phases
             (replace 'configure
               ;; Its name of the target: linux-x86_64, or linux-elf for i686.
               (string-append "perl ./Configure --prefix=\"$out\" --libdir=lib --openssldir=/etc/ssl \\
  shared no-ssl3 "
                              (if (string=? (%current-system) "i686-linux")
                                  "linux-elf" "linux-x86_64")
                              " \"-Wl,-rpath,$out/lib\""))
             ;; The scripts the build makes from templates start with
             ;; `#! /usr/bin/env perl' (none in a build): the tests run
             ;; every program through util/wrap.pl.  (The installed ones
             ;; are patched after the installation, as every package's.)
             (add-after 'build 'made-scripts-shebangs
               "perl=$(type -P perl)
for f in util/wrap.pl tools/c_rehash apps/CA.pl apps/tsget.pl; do
  sed -i \"1s|^#! */usr/bin/env perl|#!$perl|\" $f
  head -n 1 $f | grep -qx \"#!$perl\"
done")
             (replace 'check "make test HARNESS_JOBS=${NIX_BUILD_CORES:-1}")
             ;; Not the documentation in HTML (thousands of pages): the
             ;; manual pages only.
             (replace 'install "make install_sw install_man_docs"))))
    (synopsis "TLS and cryptography toolkit")
    (description
     "OpenSSL implements TLS and DTLS, X.509 certificates, and a broad
cryptographic library (libcrypto), with the openssl command for keys,
certificates and tests. Python's ssl module and many servers link it.")
    (home-page "https://www.openssl.org/")
    (license asl2.0)))
