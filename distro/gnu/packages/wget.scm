;;; wget.scm - (gnu packages wget): GNU Wget
;;; SPDX-License-Identifier: GPL-3.0-or-later
(define-module (gnu packages wget)
  #:use-module (guix packages)
  #:use-module (guix download)
  #:use-module (guix build-system gnu)
  #:use-module ((guix licenses) #:select (gpl3+))
  #:use-module (gnu packages tls)
  #:use-module (gnu packages compression)
  #:use-module (gnu packages libidn)
  #:use-module (gnu packages textutils)
  #:use-module (gnu packages pkg-config)
  #:use-module (gnu packages perl)
  #:export (wget))

(define wget
  (package
    (name "wget")
    (version "1.21.3")
    (source (origin
              (method url-fetch)
              (uri (string-append "mirror://gnu/wget/wget-" version ".tar.gz"))
              ;; Debian's orig tarball of this version, not repacked by Debian.
              (sha256
               (base32 "1r90y9b6dk7zl8f3vyavzz9f46bhpgj1cr0g273ns3yaqn5vn9jp"))))
    (build-system gnu-build-system)
    ;; Its tests of HTTP and FTP need Perl's HTTP::Daemon and IO::Socket::SSL
    ;; and Python's test servers, which the distribution does not have: the
    ;; unit tests of its sources (make -C tests unit-tests) run instead.
    (native-inputs (list pkg-config perl))
    (inputs (list gnutls zlib libidn2 pcre2))
    (arguments
     (list #:configure-flags '("--with-ssl=gnutls" "--without-libpsl")
           #:phases
           (modify-phases %standard-phases
             (replace 'check "make -C tests unit-tests
tests/unit-tests"))))
    (synopsis "Non-interactive downloads over HTTP(S) and FTP")
    (description
     "GNU Wget retrieves files over HTTP, HTTPS and FTP without a user at
the keyboard: recursively (mirroring sites), resuming interrupted
downloads, following links, in the background.")
    (home-page "https://www.gnu.org/software/wget/")
    (license gpl3+)))
