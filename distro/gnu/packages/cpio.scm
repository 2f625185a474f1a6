;;; cpio.scm - (gnu packages cpio): the cpio archiver
;;; SPDX-License-Identifier: GPL-3.0-or-later
(define-module (gnu packages cpio)
  #:use-module (guix packages)
  #:use-module (guix download)
  #:use-module (guix build-system gnu)
  #:use-module (guix licenses)
  #:export (cpio))

(define cpio
  (package
    (name "cpio")
    (version "2.13")
    (source (origin
              (method url-fetch)
              (uri (string-append "mirror://gnu/cpio/cpio-" version ".tar.bz2"))
              ;; Debian's cpio_2.13+dfsg.orig.tar.bz2: upstream's release less its
              ;; manual (under the GFDL with invariant sections): not upstream's file
              ;; byte for byte.
              (sha256
               (base32 "1a86c7kqamrkkd65dxkb3xnkfskc6y3sydxj1np85gw3qsrny7px"))))
    (build-system gnu-build-system)
    (arguments
     ;; The manual's Makefile.am is there, its texinfo file is not.
     ;; src/global.c's `char *program_name;' is a tentative definition
     ;; beside gnulib's in progname.c: one symbol only as a common one,
     ;; which GCC 10 and later no longer make by default.
     (list #:configure-flags '("CFLAGS=-g -O2 -fcommon")
           #:phases
           (modify-phases %standard-phases
             (add-after 'unpack 'no-info
               "test ! -e doc/cpio.texi
printf 'all:\\n%%:\\n\\t@:\\n' >doc/Makefile.in"))))
    (synopsis "Archiver of the cpio and tar formats")
    (description
     "GNU cpio copies files into or out of cpio and tar archives, from the
list of names it reads: the format of initramfs images and of RPM
packages.")
    (home-page "https://www.gnu.org/software/cpio/")
    (license gpl3+)))
