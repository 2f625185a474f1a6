;;; bootstrap.scm - (gnu packages bootstrap): the seeds everything is built from
;;; SPDX-License-Identifier: GPL-3.0-or-later
(define-module (gnu packages bootstrap)
  #:use-module (guix packages)
  #:use-module (guix build-system trivial)
  #:use-module (guix licenses)
  #:export (%bootstrap-tarball %bootstrap-busybox %bootstrap-tools %gnu-build
            %gnu-build-command data-file))

;;; The bootstrap binaries are made by scripts/make-bootstrap from pinned
;;; Debian 12 packages, reproducibly (the same bytes on every machine), and
;;; added to the store as they are (doc/bootstrap.md §3): the tarball of the GNU
;;; tools (gcc, binutils, glibc, make, coreutils, bash, tar, ...), relocatable
;;; with $ORIGIN run paths, and a static busybox that unpacks it. Their
;;; hashes are what make-bootstrap prints; a change of its pins changes them.

(define (data-file name)
  (string-append ((module-ref (resolve-interface '(cix primitives)) '%cix-data-dir))
                 "/" name))

;;; One per system: these are x86-64 binaries (%current-system, which
;;; cix build --system sets, picks them when lowering).
(define %bootstrap-tarball
  (bootstrap-item "bootstrap-tools-gnu.tar.xz"
                  `(("x86_64-linux"
                     . ,(base32 "0vdg1mmp095vld2flgip1p1ckzshydn7by161vic67113igvaik9")))
                  #f))

(define %bootstrap-busybox
  (bootstrap-item "busybox"
                  `(("x86_64-linux"
                     . ,(base32 "0h2cvvd5bkprq91zyak0149xwqr6p5hc0vw1xrshlzfg6z8dlk29")))
                  #t))

;;; Unpacked in the sandbox by busybox: the interpreter of each program set
;;; to the store's loader, and gcc wrapped to link against the store's libc.
(define %bootstrap-tools
  (package
    (name "bootstrap-tools")
    (version "0")
    (source #f)
    (build-system trivial-build-system)
    (inputs `(("tarball" ,%bootstrap-tarball)
              ("busybox" ,%bootstrap-busybox)
              ("script" ,(local-file (data-file "distro/bootstrap/unpack-bootstrap.sh")
                                     "unpack-bootstrap.sh"))
              ("wrapper" ,(local-file (data-file "distro/bootstrap/gcc-wrapper.in")
                                      "gcc-wrapper.in"))))
    (arguments
     '(#:implicit-inputs? #f
       #:builder ((input "busybox" "/bin/busybox") "sh" "-e" (input "script"))))
    (synopsis "Bootstrap binaries of the GNU tool chain and utilities")
    (description "Binaries from Debian 12 packages, relocated into the store,
from which every package is built.")
    (home-page #f)
    (license gpl3+)
    (properties '((hidden? . #t)))))

;;; The builder of gnu-build-system: cix's own C program (builder/),
;;; compiled here by the bootstrap compiler for the boot stages and the
;;; packages built with the bootstrap tool chain; (gnu packages
;;; commencement) compiles it again with the final GCC for every other
;;; package. It is an input of every package: a change to it rebuilds them
;;; all.
;;; How the builder is compiled, by whichever gcc is first in PATH.
(define %gnu-build-command
  "mkdir -p $out/bin
gcc -std=gnu11 -O2 -o $out/bin/gnu-build $src/*.c")

(define %gnu-build
  (package
    (name "cix-gnu-build")
    (version "0")
    (source (local-file (data-file "builder") "cix-gnu-build-source"))
    (build-system trivial-build-system)
    (inputs `(("bootstrap-tools" ,%bootstrap-tools)))
    (arguments
     `(#:implicit-inputs? #f
       #:builder ((input "bootstrap-tools" "/bin/bash") "-e" "-c"
                  ,(string-append "export PATH=$bootstrap_tools/bin\n"
                                  %gnu-build-command))))
    (synopsis "The builder of cix's gnu-build-system")
    (description "Runs the phases of the GNU build system.")
    (home-page #f)
    (license gpl3+)
    (properties '((hidden? . #t)))))
