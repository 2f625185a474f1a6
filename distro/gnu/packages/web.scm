;;; web.scm - (gnu packages web): libraries of web formats
;;; SPDX-License-Identifier: GPL-3.0-or-later
(define-module (gnu packages web)
  #:use-module (guix packages)
  #:use-module (guix download)
  #:use-module (guix build-system gnu)
  #:use-module ((guix licenses) #:select (expat))
  #:use-module (gnu packages autotools)
  #:export (libyaml))

(define libyaml
  (package
    (name "libyaml")
    (version "0.2.5")
    (source (origin
              (method url-fetch)
              (uri (string-append "https://pyyaml.org/download/libyaml/yaml-" version ".tar.gz"))
              ;; Debian's libyaml_0.2.5.orig.tar.gz is the release's Git
              ;; tree, not upstream's tarball: no configure script, made
              ;; here first (its bootstrap script's autoreconf).
              (sha256
               (base32 "0bmzv6z6674j6g7zsaj2is0nr4qlsl1da1l0i7rm7q1b4szhs97s"))))
    (build-system gnu-build-system)
    (native-inputs (list autoconf automake libtool))
    (arguments
     (list #:configure-flags '("--disable-static")
           #:phases %autoreconf-phases))
    (synopsis "YAML 1.1 parser and emitter in C")
    (description
     "LibYAML reads and writes YAML, the configuration and data format, with
an event interface and a document tree, in C.")
    (home-page "https://pyyaml.org/wiki/LibYAML")
    (license expat)))
