;;; curl.scm - (gnu packages curl): the curl transfer tool
;;; SPDX-License-Identifier: GPL-3.0-or-later
(define-module (gnu packages curl)
  #:use-module (guix packages)
  #:use-module (guix download)
  #:use-module (guix build-system gnu)
  #:use-module ((guix licenses) #:select (non-copyleft))
  #:use-module (gnu packages tls)
  #:use-module (gnu packages compression)
  #:use-module (gnu packages libidn)
  #:use-module (gnu packages perl)
  #:use-module (gnu packages pkg-config)
  #:export (curl))

(define curl
  (package
    (name "curl")
    (version "7.88.1")
    (source (origin
              (method url-fetch)
              (uri (string-append "https://curl.se/download/curl-" version ".tar.gz"))
              ;; Debian's orig tarball of this version, not repacked by Debian.
              (sha256
               (base32 "1izkpf1fspa9br4v85gjm0lsl6yfiq0zh448bcyx7ibbwdr8pcyd"))))
    (build-system gnu-build-system)
    ;; TLS by GnuTLS; CA certificates are the user's (no store default).
    ;; Its suite runs (runtests.pl, the tests of its own test servers);
    ;; those that need another program (stunnel, an SSH server, Python's
    ;; servers) are skipped by it.
    (native-inputs (list perl pkg-config))
    (inputs (list gnutls zlib zstd libidn2))
    (arguments
     ;; GnuTLS is its TLS library: named alone (with --without-ssl too,
     ;; curl's configure refuses the pair as contradictory).  Without
     ;; dependency tracking: with it, configure's "distclean amending"
     ;; makes tests/libtest/Makefile 95 MB (1.5 million lines, from a
     ;; Makefile.in of 20,000), more than gnu-build patches; a build
     ;; from scratch needs no dependency files.
     (list #:configure-flags '("--with-gnutls" "--without-libpsl"
                                  "--without-ca-bundle" "--without-ca-path" "--disable-static"
                                  "--disable-dependency-tracking")
           ;; runtests.pl of 7.88 runs one test at a time (it has no -j,
           ;; and takes an unknown option for a keyword to select by), and
           ;; dies at the first SSH test when USER is not set, as in a
           ;; build.
           #:phases
           (modify-phases %standard-phases
             (replace 'check "USER=cixbuild make test-nonflaky"))))
    (synopsis "Transfers of data with URLs, and libcurl")
    (description
     "curl transfers data to and from servers with URLs, over HTTP(S),
FTP(S), SCP, SMTP, IMAP and many more protocols; libcurl, the library
behind it, is how countless programs (cix's substituter among them)
download.")
    (home-page "https://curl.se/")
    (license (non-copyleft "https://curl.se/docs/copyright.html"))))
