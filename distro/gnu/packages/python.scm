;;; python.scm - (gnu packages python): the Python language
;;; SPDX-License-Identifier: GPL-3.0-or-later
(define-module (gnu packages python)
  #:use-module (guix packages)
  #:use-module (guix download)
  #:use-module (guix build-system gnu)
  #:use-module ((guix licenses) #:select (psfl))
  #:use-module (gnu packages compression)
  #:use-module (gnu packages libffi)
  #:use-module (gnu packages tls)
  #:use-module (gnu packages sqlite)
  #:use-module (gnu packages readline)
  #:use-module (gnu packages ncurses)
  #:use-module (gnu packages dbm)
  #:use-module (gnu packages textutils)
  #:use-module (gnu packages linux)
  #:use-module (gnu packages crypto)
  #:use-module (gnu packages pkg-config)
  #:export (python))

(define python
  (package
    (name "python")
    (version "3.11.2")
    (source (origin
              (method url-fetch)
              (uri (string-append "https://www.python.org/ftp/python/" version "/Python-" version ".tgz"))
              ;; Debian's python3.11_3.11.2.orig.tar.gz, fetched at the version of a
              ;; later Debian 12 update (the first one's is gone from the archive).
              (sha256
               (base32 "0jgqvgpkll99n20ykbi9ym3z4wyw39nzcca5mzfzrg2vv95wf494"))))
    (build-system gnu-build-system)
    ;; A shared libpython, the system's expat and libffi, no ensurepip (it
    ;; would install pip from wheels in the tarball).  setup.py builds
    ;; _ctypes, readline, _curses and _dbm only when it finds their headers
    ;; in a directory of CPPFLAGS (not of CPATH, which pkgconf leaves out
    ;; too) and their libraries in one of LDFLAGS: libffi's, readline's,
    ;; ncurses' and gdbm's are named there.  subprocess runs a command given
    ;; as a string by /bin/sh, as its tests do: the store's shell is there
    ;; in the build.  Its regression suite runs two workers at a time, with
    ;; no network resources (regrtest's default).  Left out: test_socket
    ;; and test_ssl, which need host names and a network; test_spwd, which
    ;; wants /etc/shadow unreadable and finds none; and seven test cases
    ;; (-i): ctypes' find_library through ld alone (ld has no default
    ;; library directories here), two of email's localtime, which need the
    ;; time zone database (none in the distribution yet), asyncio's
    ;; connection by service name (no /etc/services), and three that give
    ;; a file or process to a user the build's user namespace does not map
    ;; (os' chown without permission, subprocess's user and group).
    (native-inputs (list pkg-config))
    (inputs (list zlib bzip2 xz libffi openssl sqlite readline ncurses gdbm expat util-linux libxcrypt))
    (arguments
     (list #:configure-flags
           '("--enable-shared" "--with-system-expat" "--without-ensurepip"
             "--enable-loadable-sqlite-extensions" "--with-dbmliborder=gdbm"
             "CPPFLAGS=-I${libffi}/include -I${readline}/include -I${ncurses}/include -I${gdbm}/include"
             "LDFLAGS=-Wl,-rpath=${out}/lib -L${libffi}/lib -L${readline}/lib -L${ncurses}/lib -L${gdbm}/lib")
           #:test-target "test"
           #:bin-sh 'shell
           #:make-flags
           (list (string-append
                  "TESTOPTS=-j2 --timeout=900"
                  " -i test_find_library_with_ld"
                  " -i test.test_email.test_utils.LocaltimeTests.test_localtime_daylight_false_dst_true"
                  " -i test.test_email.test_utils.LocaltimeTests.test_localtime_daylight_true_dst_true"
                  " -i test.test_asyncio.test_base_events.BaseEventLoopWithSelectorTests.test_create_connection_service_name"
                  " -i test.test_os.ChownFileTests.test_chown_without_permission"
                  " -i test.test_subprocess.POSIXProcessTestCase.test_user"
                  " -i test.test_subprocess.POSIXProcessTestCase.test_group"
                  " -x test_socket test_ssl test_spwd"))
           #:phases
           (modify-phases %standard-phases
             (add-after 'install 'python-name
               "ln -s python3 \"$out/bin/python\"
     ln -s pydoc3 \"$out/bin/pydoc\""))))
    (native-search-paths
     (list (search-path-specification
            (variable "PYTHONPATH")
            (files '("lib/python3.11/site-packages")))))
    (synopsis "The Python programming language")
    (description
     "Python is a high-level, general-purpose programming language with
dynamic types, readable syntax, and a large standard library
(networking, text, data formats, concurrency). This is the CPython
interpreter, its library and pip's bootstrap left out.")
    (home-page "https://www.python.org/")
    (license psfl)))
