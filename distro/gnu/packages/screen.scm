;;; screen.scm - (gnu packages screen): GNU Screen
;;; SPDX-License-Identifier: GPL-3.0-or-later
(define-module (gnu packages screen)
  #:use-module (guix packages)
  #:use-module (guix download)
  #:use-module (guix build-system gnu)
  #:use-module (guix licenses)
  #:use-module (gnu packages ncurses)
  #:use-module (gnu packages autotools)
  #:export (screen))

(define screen
  (package
    (name "screen")
    (version "4.9.0")
    (source (origin
              (method url-fetch)
              (uri (string-append "mirror://gnu/screen/screen-" version ".tar.gz"))
              ;; Debian's screen_4.9.0.orig.tar.gz is the release's Git
              ;; tree, not upstream's tarball: no configure script, made
              ;; here first (autogen.sh's autoreconf).
              (sha256
               (base32 "1x1hqy4h47i7hk85f779lkwkm7gkq8h8mxwd0znkh5adpf0m4czr"))))
    (build-system gnu-build-system)
    ;; No setuid screen (multiuser sessions), sockets in the user's own
    ;; directory.  It has no test suite; the built screen must say its version.
    (native-inputs (list autoconf automake))
    (inputs (list ncurses))
    (arguments
     (list #:configure-flags '("--disable-pam" "--enable-socket-dir=no")
           #:phases
           (modify-phases %autoreconf-phases
             (replace 'check "./screen -v | grep -q '^Screen version 4.09.00'"))))
    (synopsis "Full-screen window manager of a terminal")
    (description
     "GNU Screen runs several interactive programs in one terminal, switches
between them, and detaches them from the terminal to attach them again
later, from elsewhere.")
    (home-page "https://www.gnu.org/software/screen/")
    (license gpl3+)))
