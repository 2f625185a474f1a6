;;; autotools.scm - (gnu packages autotools): Autoconf, Automake, Libtool
;;; SPDX-License-Identifier: GPL-3.0-or-later
(define-module (gnu packages autotools)
  #:use-module (guix packages)
  #:use-module (guix download)
  #:use-module (guix build-system gnu)
  #:use-module (guix licenses)
  #:use-module (gnu packages m4)
  #:use-module (gnu packages perl)
  #:export (autoconf automake libtool %autoreconf-phases))

;;; The phases of a package whose source is a Git tree rather than a
;;; release tarball (no configure script): autoreconf first.  (Guix's
;;; gnu-build-system does that itself when there is no configure; cix's
;;; builder does not yet.)
(define %autoreconf-phases
  (modify-phases %standard-phases
    (add-before 'configure 'bootstrap "autoreconf -fi && test -x configure")))

(define autoconf
  (package
    (name "autoconf")
    (version "2.71")
    (source (origin
              (method url-fetch)
              (uri (string-append "mirror://gnu/autoconf/autoconf-" version ".tar.gz"))
              ;; Debian's autoconf_2.71.orig.tar.gz, not repacked by Debian.
              (sha256
               (base32 "071ayjz4m7ca5ci8cmh1h0z11093ahn09sa1rc9yyagm1fnpa423"))))
    (build-system gnu-build-system)
    ;; autoconf and autoheader run m4 and perl when they run.
    (inputs (list perl m4))
    (arguments
     ;; 500 Autotest groups, run in parallel.  They run the configure
     ;; scripts they make, which start with #! /bin/sh, as every script
     ;; Autoconf makes does: the build has the store's Bash at /bin/sh,
     ;; as Nix's and Guix's sandboxes have one.
     (list #:make-flags '("TESTSUITEFLAGS=-j2")
           #:bin-sh 'shell
           #:phases
           (modify-phases %standard-phases
             ;; The tests compare the shell's variables before and after
             ;; configure, less those that change by themselves; with Bash
             ;; as /bin/sh SHLVL is one of those (Debian's dash has none).
             (add-after 'unpack 'shlvl-changes
               "sed -i 's|^\\([[:space:]]*\\)/^RANDOM=/ d$|&\\n\\1/^SHLVL=/ d|' tests/local.at
grep -q '/^SHLVL=/ d' tests/local.at"))))
    (synopsis "Generator of configure scripts")
    (description
     "GNU Autoconf turns configure.ac, a description of what a package
needs of the system it is built on, into a portable shell script,
configure, that finds it out and writes the Makefiles and config.h.")
    (home-page "https://www.gnu.org/software/autoconf/")
    (license gpl3+)))

(define automake
  (package
    (name "automake")
    (version "1.16.5")
    (source (origin
              (method url-fetch)
              (uri (string-append "mirror://gnu/automake/automake-" version ".tar.xz"))
              ;; Debian's automake-1.16_1.16.5.orig.tar.xz, not repacked by Debian.
              (sha256
               (base32 "0sdl32qxdy7m06iggmkkvf7j520rmmgbsjzbm7fgnxwxdp6mh7gh"))))
    (build-system gnu-build-system)
    (inputs (list perl autoconf))
    ;; aclocal finds the macros of the packages in a profile.
    (native-search-paths
     (list (search-path-specification
            (variable "ACLOCAL_PATH")
            (files '("share/aclocal")))))
    ;; Its suite is 2,700 shell scripts; they need a C compiler, which the
    ;; tool chain gives, and skip what is missing (Fortran, Java, Python,
    ;; Vala, ...).  They run the configure scripts they make (#! /bin/sh):
    ;; the store's Bash is at /bin/sh in the build, as for Autoconf.
    (arguments
     (list #:bin-sh 'shell
           ;; The build's environment has gnu-build's own `tests=1', which
           ;; reaches the suite: t/test-metadata-recheck.sh runs
           ;; `for t in $tests; do test -f $t.run; done' with a $tests it
           ;; never sets (a no-op upstream) and fails on `test -f 1.run'.
           ;; Empty on make's command line, it is empty in the tests too.
           #:make-flags '("tests=")
           #:phases
           (modify-phases %standard-phases
             ;; t/subobj.sh rewrites configure.ac and aclocal.m4 about a
             ;; second after automake filled autom4te.cache, and Autoconf
             ;; 2.71's autom4te compares whole seconds: when that second is
             ;; the same, automake reads the stale traces (no
             ;; subdir-objects) and the test fails, now and then, on any
             ;; machine.  Upstream cured the same race in another test
             ;; (t/includes-deprecation.sh) the same way: $sleep first.
             (add-after 'unpack 'subobj-autom4te-cache-race
               "sed -i '/AM_INIT_AUTOMAKE.*configure\\.tmp/i $sleep' t/subobj.sh
grep -qx '\\$sleep' t/subobj.sh"))))
    (synopsis "Generator of Makefile.in files that follow the GNU standards")
    (description
     "GNU Automake turns Makefile.am, a short statement of what a package
builds and installs, into a Makefile.in that configure completes: with
the standard targets (all, install, check, dist, distcheck), dependency
tracking and support for Libtool, Gettext and more.")
    (home-page "https://www.gnu.org/software/automake/")
    (license gpl2+)))

(define libtool
  (package
    (name "libtool")
    (version "2.4.7")
    (source (origin
              (method url-fetch)
              (uri (string-append "mirror://gnu/libtool/libtool-" version ".tar.xz"))
              ;; Debian's libtool_2.4.7.orig.tar.xz is not upstream's file
              ;; byte for byte (Debian makes it from the release's tree).
              (sha256
               (base32 "12hjax5wcqv4vbxpzy9yfbjjrvbh6hb3zbgfgj80icir0hkpwqyx"))))
    (build-system gnu-build-system)
    (native-inputs (list autoconf automake))
    (propagated-inputs (list m4))   ; libtoolize runs it
    (inputs (list perl))
    (arguments
     ;; Its tests make and run configure scripts too: /bin/sh as for
     ;; Autoconf.  They run the libtoolize of the build tree, which
     ;; starts `#! /usr/bin/env sh' (no /usr/bin/env in a build): /bin/sh
     ;; instead, which the installed one's shebang then names in the store.
     (list #:make-flags '("TESTSUITEFLAGS=-j2")
           #:bin-sh 'shell
           #:phases
           (modify-phases %standard-phases
             ;; (Its time kept: the manual page made from it stays new.)
             (add-after 'build 'libtoolize-shebang
               "cp -p libtoolize .libtoolize-time
sed -i '1s|^#! /usr/bin/env sh$|#! /bin/sh|' libtoolize
touch -r .libtoolize-time libtoolize && rm .libtoolize-time
head -n 1 libtoolize | grep -qx '#! /bin/sh'")
             ;; Its link-order test greps for `\/new\/lib': GNU grep 3.8
             ;; warns of the stray backslashes, and the test wants grep
             ;; silent (it fails there, and where the suite is run again
             ;; with a short command line).  The same patterns unescaped.
             (add-before 'check 'link-order-grep
               "sed -i '/EGREP.*new/s|\\\\*/|/|g' tests/testsuite
! grep -q 'EGREP.*new\\\\/lib' tests/testsuite"))))
    (synopsis "Generic interface to building shared libraries")
    (description
     "GNU Libtool hides the differences between systems in building and
using shared libraries behind one interface (libtool, .la files), used by
the Makefiles that Automake writes, and ships libltdl, a portable
interface to loading modules at run time.")
    (home-page "https://www.gnu.org/software/libtool/")
    (license gpl3+)))
