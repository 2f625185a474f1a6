;;; gettext.scm - (gnu packages gettext): GNU's translation tools
;;; SPDX-License-Identifier: GPL-3.0-or-later
;;; The package is gnu-gettext, as in Guix: `gettext' is Guile's own.
(define-module (gnu packages gettext)
  #:use-module (guix packages)
  #:use-module (guix download)
  #:use-module (guix build-system gnu)
  #:use-module (guix licenses)
  #:use-module (gnu packages ncurses)
  #:use-module (gnu packages libunistring)
  #:export (gnu-gettext))

(define gnu-gettext
  (package
    (name "gettext")
    (version "0.21")
    (source (origin
              (method url-fetch)
              (uri (string-append "mirror://gnu/gettext/gettext-" version ".tar.xz"))
              ;; Debian's gettext_0.21.orig.tar.xz, not repacked by Debian.
              (sha256
               (base32 "14iinwb7v6xn3qjdnsxhbnzzfkkks1ds0yqrhc9wybg06yswn3yj"))))
    (build-system gnu-build-system)
    (inputs (list ncurses libunistring))
    (arguments
     ;; No Java, C#, Emacs Lisp in the build: those parts are left out
     ;; of its programs and tests by configure itself.
     (list #:configure-flags '("--disable-java" "--disable-csharp"
                               "--with-libunistring-prefix=${libunistring}")
           #:phases
           (modify-phases %standard-phases
             ;; Some tests write scripts that start with #! /bin/sh (in
             ;; their bodies, which the builder's shebang patching does not
             ;; see), and the sandbox has no /bin/sh.
             (add-before 'check 'patch-test-scripts
               "grep -l '#! */bin/sh' gettext-tools/tests/* | while read -r f; do
  sed -i \"s|#! */bin/sh|#!$(command -v sh)|\" \"$f\"
done"))))
    (native-search-paths
     (list (search-path-specification
            (variable "GETTEXTDATADIRS")
            (files '("share/gettext")))))
    (synopsis "Tools and library for translating the messages of programs")
    (description
     "GNU gettext lets a program print its messages in the user's
language: xgettext extracts the strings to translate, msgmerge and msgfmt
maintain and compile the translators' .po files, and the libintl library
looks them up at run time.  It also provides autopoint and the Autoconf
macros of translated packages.")
    (home-page "https://www.gnu.org/software/gettext/")
    (license (list gpl3+ lgpl2.1+))))
