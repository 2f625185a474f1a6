;;; textutils.scm - (gnu packages textutils): text libraries
;;; SPDX-License-Identifier: GPL-3.0-or-later
(define-module (gnu packages textutils)
  #:use-module (guix packages)
  #:use-module (guix download)
  #:use-module (guix build-system gnu)
  #:use-module ((guix licenses) #:select (bsd-2 bsd-3 (expat . license:expat)))
  #:use-module (gnu packages autotools)
  #:export (oniguruma pcre2 expat))

(define oniguruma
  (package
    (name "oniguruma")
    (version "6.9.8")
    (source (origin
              (method url-fetch)
              (uri (string-append "https://github.com/kkos/oniguruma/releases/download/v" version "/onig-" version ".tar.gz"))
              ;; Debian's libonig_6.9.8.orig.tar.gz is the release's Git
              ;; tree, not upstream's tarball: no configure script, made
              ;; here first (autogen.sh's autoreconf).
              (sha256
               (base32 "1cjz8fjsxa2v3ylg9vz3qn6i6w9ryxvr7dlyka33qwxnp8h2fdr6"))))
    (build-system gnu-build-system)
    (native-inputs (list autoconf automake libtool))
    (arguments
     (list #:configure-flags '("--disable-static")
           #:phases %autoreconf-phases))
    (synopsis "Regular expressions of many syntaxes and encodings")
    (description
     "Oniguruma is a regular-expression library that knows the syntaxes of
Ruby, Perl, Java, Python and POSIX, and many character encodings; jq
and Ruby use it.")
    (home-page "https://github.com/kkos/oniguruma")
    (license bsd-2)))

(define pcre2
  (package
    (name "pcre2")
    (version "10.42")
    (source (origin
              (method url-fetch)
              (uri (string-append "https://github.com/PCRE2Project/pcre2/releases/download/pcre2-" version "/pcre2-" version ".tar.gz"))
              ;; Debian's orig tarball of this version, not repacked by Debian.
              (sha256
               (base32 "07sgsswwn6vis1vmqah2aqqzxr777331rip27lay6vlk7f742fy3"))))
    (build-system gnu-build-system)
    (arguments
     (list #:configure-flags '("--enable-pcre2-16" "--enable-pcre2-32" "--enable-jit" "--disable-static")
           #:phases
           (modify-phases %standard-phases
             ;; RunGrepTest's callouts run /bin/echo, which a build has
             ;; not: the store's echo, by its full name.
             (add-before 'check 'callout-echo
               "echo=$(type -P echo)
sed -i \"s|/bin/echo|$echo|g\" RunGrepTest
grep -q \"$echo\" RunGrepTest && ! grep -q '\"/bin/echo' RunGrepTest"))))
    (synopsis "Perl-compatible regular expressions")
    (description
     "PCRE2 matches regular expressions with the syntax and semantics of
Perl 5, with a just-in-time compiler: grep -P, Git and many programs
use it. The package has pcre2grep and pcre2test.")
    (home-page "https://www.pcre.org/")
    (license bsd-3)))

(define expat
  (package
    (name "expat")
    (version "2.5.0")
    (source (origin
              (method url-fetch)
              (uri (string-append "https://github.com/libexpat/libexpat/releases/download/R_2_5_0/expat-" version ".tar.gz"))
              ;; Debian's expat_2.5.0.orig.tar.gz is the release's Git tree
              ;; (libexpat-R_2_5_0/), not upstream's release tarball: it
              ;; has no configure script, made here first.
              (sha256
               (base32 "0mqpvyxigni8r1wkpy0gspfld9xv5s9a9ln56l5d2zq6qw2yw05b"))))
    (build-system gnu-build-system)
    ;; expat/buildconf.sh runs Autoconf, Automake and Libtool; the build
    ;; is in expat/.
    (native-inputs (list autoconf automake libtool))
    (arguments
     (list #:phases
           (modify-phases %standard-phases
             (replace 'configure
               "cd expat
./buildconf.sh
CONFIG_SHELL=$(command -v bash) \"$(command -v bash)\" ./configure --prefix=\"$out\" --disable-static")
             (replace 'build "make -C expat -j${NIX_BUILD_CORES:-1}")
             (replace 'check "make -C expat -j${NIX_BUILD_CORES:-1} check")
             (replace 'install "make -C expat install"))))
    (synopsis "Stream-oriented XML parser in C")
    (description
     "Expat is a small XML parser in C that calls the program's handlers as
it reads: start and end tags, character data. Python's xml modules,
Git's HTTP push and many others use it.")
    (home-page "https://libexpat.github.io/")
    (license license:expat)))
