;;; gettext.scm - (gnu packages gettext): GNU's translation tools
;;; SPDX-License-Identifier: GPL-3.0-or-later
;;; The package is gnu-gettext, as in Guix: `gettext' is Guile's own.
(define-module (gnu packages gettext)
  #:use-module (guix packages)
  #:use-module (guix download)
  #:use-module (guix build-system gnu)
  #:use-module (guix licenses)
  #:use-module (gnu packages ncurses)
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
    (inputs (list ncurses))
    (arguments
     ;; No Java, C#, Emacs Lisp in the build: those parts are left out
     ;; of its programs and tests by configure itself.  Its own copy of
     ;; libunistring: the distribution's (1.0) breaks lines where this
     ;; gettext's tests (msgcat-17, msgmerge-11 and three others) expect
     ;; 0.9's breaks.
     ;; Its tests write scripts that start with #! /bin/sh (in their
     ;; bodies, which the builder's shebang patching does not see) and
     ;; run the system tests with `/bin/sh TEST': the store's shell is at
     ;; /bin/sh in the build, as for Autoconf.
     (list #:configure-flags '("--disable-java" "--disable-csharp"
                               "--with-included-libunistring")
           #:bin-sh 'shell
           #:phases
           (modify-phases %standard-phases
             ;; msginit and msgfilter run scripts with /bin/sh, which a
             ;; store's user may not have: the store's shell.
             (add-after 'unpack 'store-shell
               "sed -i \"s|# define BOURNE_SHELL \\\"/bin/sh\\\"|# define BOURNE_SHELL \\\"$(command -v sh)\\\"|\" gettext-tools/config.h.in
grep -q \"BOURNE_SHELL \\\"$(command -v sh)\\\"\" gettext-tools/config.h.in"))))
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
