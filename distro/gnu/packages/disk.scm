;;; disk.scm - (gnu packages disk): disk and file-system tools
;;; SPDX-License-Identifier: GPL-3.0-or-later
(define-module (gnu packages disk)
  #:use-module (guix packages)
  #:use-module (guix download)
  #:use-module (guix build-system gnu)
  #:use-module (guix licenses)
  #:export (dosfstools))

(define dosfstools
  (package
    (name "dosfstools")
    (version "4.2")
    (source (origin
              (method url-fetch)
              (uri (string-append "https://github.com/dosfstools/dosfstools/releases/download/v" version "/dosfstools-" version ".tar.gz"))
              ;; Debian's orig tarball of this version, not repacked by Debian.
              (sha256
               (base32 "09xm1540h9npqw0s5s2335xqxfdp059rl98l3fidr4h0z7mnx4k4"))))
    (build-system gnu-build-system)
    ;; Its tests compare images in hexadecimal, through xxd, which only Vim
    ;; provides: configure leaves them out without it; the built mkfs.fat
    ;; must make an image that fsck.fat finds clean.
    (arguments
     (list #:configure-flags '("--enable-compat-symlinks")
           #:phases
           (modify-phases %standard-phases
             (replace 'check
               "src/mkfs.fat -C img 2048
src/fsck.fat -n img"))))
    (synopsis "Tools to make and check FAT file systems")
    (description
     "dosfstools has mkfs.fat, fsck.fat and fatlabel, to create, check and
repair, and label the FAT12, FAT16 and FAT32 file systems of memory
cards, USB sticks and EFI partitions.")
    (home-page "https://github.com/dosfstools/dosfstools")
    (license gpl3+)))
