;;; tcl.scm - (gnu packages tcl): Tcl, Expect and DejaGnu
;;; SPDX-License-Identifier: GPL-3.0-or-later
(define-module (gnu packages tcl)
  #:use-module (guix packages)
  #:use-module (guix download)
  #:use-module (guix build-system gnu)
  #:use-module ((guix licenses) #:select (bsd-style public-domain gpl3+))
  #:use-module (gnu packages compression)
  #:export (tcl expect dejagnu))

(define tcl
  (package
    (name "tcl")
    (version "8.6.13")
    (source (origin
              (method url-fetch)
              (uri (string-append "mirror://sourceforge/tcl/Tcl/" version
                                  "/tcl" version "+dfsg-src.tar.gz"))
              ;; Debian's tcl8.6_8.6.13+dfsg.orig.tar.gz: upstream's
              ;; tcl8.6.13-src.tar.gz less the bundled packages (pkgs/) and
              ;; the copy of zlib, so not upstream's file byte for byte.
              (sha256
               (base32 "1m961zfx97gq9als8gpmdl91mfqy8f50szjng40xy99qgqkygg43"))))
    (build-system gnu-build-system)
    (inputs (list zlib))
    (arguments
     ;; The build is in unix/, the configure script's directory; its
     ;; tests exec /bin/sh.
     (list #:bin-sh 'shell
           #:phases
           (modify-phases %standard-phases
             (replace 'configure
               "cd unix
CONFIG_SHELL=$(command -v bash) \"$(command -v bash)\" ./configure --prefix=\"$out\" \\
  --enable-shared --enable-threads --enable-64bit \"LDFLAGS=-Wl,-rpath=$out/lib\"")
             (replace 'build "make -C unix -j${NIX_BUILD_CORES:-1}")
             ;; Its suite (tests/all.tcl) run by the test shell built,
             ;; whole; the count of failures must be 0. Some tests name
             ;; files in ~ (the build's HOME is not a directory) and read
             ;; dates in local time (UTC here, said).
             (replace 'check
               "make -C unix tcltest
export HOME=$PWD/test-home TZ=UTC
mkdir -p \"$HOME\"
cd unix
LD_LIBRARY_PATH=$PWD TCL_LIBRARY=$PWD/../library ./tcltest ../tests/all.tcl 2>&1 | tee ../test.log
grep -E '^all.tcl:.*Total' ../test.log
grep -Eq '^all.tcl:.*Failed[[:space:]]+0$' ../test.log")
             (replace 'install
               "make -C unix install install-private-headers
ln -s tclsh8.6 \"$out/bin/tclsh\""))))
    (native-search-paths
     (list (search-path-specification
            (variable "TCLLIBPATH")
            (separator " ")
            (files '("lib")))))
    (synopsis "The Tcl scripting language")
    (description
     "Tcl (Tool Command Language) is a small interpreted language, easy to
embed in programs and to extend in C, with an event loop, threads and
Unicode strings.  Expect and DejaGnu are written in it, as are the test
suites of SQLite and GCC.")
    (home-page "https://www.tcl-lang.org/")
    (license (bsd-style "https://www.tcl-lang.org/software/tcltk/license.html"))))

(define expect
  (package
    (name "expect")
    (version "5.45.4")
    (source (origin
              (method url-fetch)
              (uri (string-append "mirror://sourceforge/expect/Expect/" version
                                  "/expect" version ".tar.gz"))
              ;; Debian's expect_5.45.4.orig.tar.gz, not repacked by Debian.
              (sha256
               (base32 "0l6lcbmvbaq265f072jandfq6h01gnb4vpz5wjqqaynv1wsbz0nh"))))
    (build-system gnu-build-system)
    (inputs (list tcl))
    (arguments
     (list #:configure-flags
           '("--with-tcl=${tcl}/lib" "--with-tclinclude=${tcl}/include"
             "--exec-prefix=${out}" "--mandir=${out}/share/man"
             "LDFLAGS=-Wl,-rpath=${out}/lib/expect5.45.4")
           #:test-target "test"
           #:phases
           (modify-phases %standard-phases
             ;; A terminal's settings (stty_init, `expect -re' on a pty)
             ;; are made by running stty, which configure looks for in
             ;; /bin: the store's (coreutils') instead, as Guix does.
             (add-before 'configure 'store-stty
               "sed -i \"s|STTY_BIN=/bin/stty|STTY_BIN=$(command -v stty)|\" configure
grep -q \"STTY_BIN=$(command -v stty)\" configure"))))
    (synopsis "Scripts that talk to interactive programs")
    (description
     "Expect runs interactive programs (ftp, passwd, ssh, a compiler's
test binaries) from a Tcl script, waiting for what they print and
answering, through a pseudo-terminal.  DejaGnu's test suites are built on
it.")
    (home-page "https://core.tcl-lang.org/expect/")
    (license public-domain)))

(define dejagnu
  (package
    (name "dejagnu")
    (version "1.6.3")
    (source (origin
              (method url-fetch)
              (uri (string-append "mirror://gnu/dejagnu/dejagnu-" version ".tar.gz"))
              ;; Debian's dejagnu_1.6.3.orig.tar.gz, not repacked by Debian.
              (sha256
               (base32 "1qx2cv6qkxbiqg87jh217jb62hk3s7dmcs4cz1llm2wmsynfznl7"))))
    (build-system gnu-build-system)
    (propagated-inputs (list expect))   ; runtest runs expect
    ;; Its own suite's report-card tests run /bin/sh: the build's shell
    ;; is put there.
    (arguments (list #:bin-sh 'shell))
    (synopsis "Framework of the test suites of GNU's tool chain")
    (description
     "DejaGnu is a framework for testing programs, written in Expect: the
runtest command runs the .exp scripts of a test suite, locally or on a
remote board, and reports PASS, FAIL, XFAIL and the others as POSIX 1003.3
asks.  GCC, Binutils, GDB and libffi test themselves with it.")
    (home-page "https://www.gnu.org/software/dejagnu/")
    (license gpl3+)))
