;;; version-control.scm - (gnu packages version-control): version control systems
;;; SPDX-License-Identifier: GPL-3.0-or-later
(define-module (gnu packages version-control)
  #:use-module (guix packages)
  #:use-module (guix download)
  #:use-module (guix build-system gnu)
  #:use-module ((guix licenses) #:select (gpl2))
  #:use-module (gnu packages compression)
  #:use-module (gnu packages curl)
  #:use-module (gnu packages textutils)
  #:use-module (gnu packages perl)
  #:use-module (gnu packages tls)
  #:use-module (gnu packages gettext)
  #:export (git))

(define git
  (package
    (name "git")
    (version "2.39.5")
    (source (origin
              (method url-fetch)
              (uri (string-append "mirror://kernel.org/software/scm/git/git-" version ".tar.xz"))
              ;; Debian's orig tarball of this version, not repacked by Debian.
              (sha256
               (base32 "0nbb0qwjqhy2v22a4rp25v18czirlybnh9ikra3akx4d6wnak3f5"))))
    (build-system gnu-build-system)
    ;; Git's Makefile, with configure's answers given as variables: no Tcl/Tk
    ;; (gitk, git gui), no Python (git p4), curl for HTTP(S), PCRE2 for grep
    ;; -P.  Its whole test suite (t/, 1,000 scripts) runs, two at a time,
    ;; with the store's shell at /bin/sh, which the scripts and hooks its
    ;; tests write start with.  Left out (GIT_SKIP_TESTS): the tests of
    ;; shared repositories (core.sharedRepository: t1301, and one or two
    ;; of t0001, t1700, t4129 and t5324), which set the setgid bit on
    ;; directories, refused in the sandbox as in Nix's.
    (native-inputs (list gnu-gettext))
    (inputs (list zlib curl expat pcre2 perl))
    (arguments
     (list #:configure-flags '("--with-libpcre2" "--with-curl" "--with-expat")
           #:make-flags
           '("V=1" "NO_TCLTK=1" "NO_PYTHON=1" "NO_INSTALL_HARDLINKS=1"
             "SHELL_PATH=${bash}/bin/bash" "PERL_PATH=${perl}/bin/perl"
             "DEFAULT_TEST_TARGET=prove" "GIT_PROVE_OPTS=-j2 --timer"
             "GIT_TEST_OPTS=--verbose-log"
             "GIT_SKIP_TESTS=t1301 t0001.20 t0001.21 t0001.28 t1700.26 t4129.10 t5324.28")
           #:bin-sh 'shell
           #:test-target "test"))
    (synopsis "Distributed version control system")
    (description
     "Git records the history of a tree of files as a graph of commits, each
with its whole state, and lets every copy of a repository work, branch
and merge on its own and exchange commits with others over SSH, HTTPS
or its own protocol.")
    (home-page "https://git-scm.com/")
    (license gpl2)))
