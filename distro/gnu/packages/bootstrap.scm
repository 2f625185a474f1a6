;;; bootstrap.scm - (gnu packages bootstrap): the seeds everything is built from
;;; SPDX-License-Identifier: GPL-3.0-or-later
(define-module (gnu packages bootstrap)
  #:use-module (guix packages)
  #:use-module (guix build-system trivial)
  #:use-module (guix licenses)
  #:export (%bootstrap-tarball %bootstrap-busybox %bootstrap-tools %gnu-build
            %gnu-build-command data-file
            seed-multiarch seed-tool-prefix seed-loader seed-system-env
            linux-arch gnu-triplet))

;;; The bootstrap binaries are made by scripts/make-bootstrap from pinned
;;; Debian 12 packages, reproducibly (the same bytes on every machine), and
;;; added to the store as they are (doc/bootstrap.md §3): the tarball of the GNU
;;; tools (gcc, binutils, glibc, make, coreutils, bash, tar, ...), relocatable
;;; with $ORIGIN run paths, and a static busybox that unpacks it. Their
;;; hashes are what make-bootstrap prints; a change of its pins changes them.

;;; NAME in cix's data directory, symlinks resolved: in a generation of `cix
;;; pull --build-cix' (a profile) builder/ is a symlink into the package,
;;; which local-file would add as a symlink.
(define (data-file name)
  (let ((file (string-append
               ((module-ref (resolve-interface '(cix primitives)) '%cix-data-dir))
               "/" name)))
    (if (file-exists? file) (canonicalize-path file) file)))

;;; The names a system's seeds use, Debian's: its multiarch directory
;;; (lib/MULTIARCH), the prefix of its compiler drivers (MULTIARCH-gcc-12
;;; on x86-64, i686-linux-gnu-gcc-12 on i386), its loader, the kernel's
;;; name of the architecture (ARCH= of the kernel's headers) and the GNU
;;; triplet of the tool chain built from them.
(define %seed-systems
  '(("x86_64-linux" "x86_64-linux-gnu" "x86_64-linux-gnu" "ld-linux-x86-64.so.2"
     "x86_64" "x86_64-pc-linux-gnu")
    ("i686-linux" "i386-linux-gnu" "i686-linux-gnu" "ld-linux.so.2"
     "i386" "i686-pc-linux-gnu")))

(define (seed-system-field n)
  (let ((system (%current-system)))
    (list-ref (or (assoc system %seed-systems)
                  (error (format #f "no bootstrap binaries for ~a (there are for ~a)"
                                 system (string-join (map car %seed-systems) ", "))))
              n)))

(define (seed-multiarch) (seed-system-field 1))
(define (seed-tool-prefix) (seed-system-field 2))
(define (seed-loader) (seed-system-field 3))
(define (linux-arch) (seed-system-field 4))
(define (gnu-triplet) (seed-system-field 5))

;;; The environment of a build that unpacks or wraps the seeds: the names
;;; above, for the system being built (unpack-bootstrap.sh reads them).
(define (seed-system-env)
  `(#:env (("multiarch" . ,(seed-multiarch))
           ("tool_prefix" . ,(seed-tool-prefix))
           ("loader" . ,(seed-loader)))))

;;; One per system (%current-system, which cix build --system sets, picks
;;; them when lowering): scripts/make-bootstrap [--system SYSTEM] prints them.
(define %bootstrap-tarball
  (bootstrap-item "bootstrap-tools-gnu.tar.xz"
                  `(("x86_64-linux"
                     . ,(base32 "0vdg1mmp095vld2flgip1p1ckzshydn7by161vic67113igvaik9"))
                    ("i686-linux"
                     . ,(base32 "1zimxm6r4zjjg891n35rld3rd7krcqkm2h8v1nafihmcjxhfhyw3")))
                  #f))

(define %bootstrap-busybox
  (bootstrap-item "busybox"
                  `(("x86_64-linux"
                     . ,(base32 "0h2cvvd5bkprq91zyak0149xwqr6p5hc0vw1xrshlzfg6z8dlk29"))
                    ("i686-linux"
                     . ,(base32 "0x6p6kcbn36wx9nnalmvww02pmm8mc13aydx56hgpnqb4p4glfgz")))
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
     `(#:implicit-inputs? #f
       #:builder ((input "busybox" "/bin/busybox") "sh" "-e" (input "script"))
       ,@(seed-system-env)))
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
