;;; mtools.scm - (gnu packages mtools): MS-DOS disks from Unix
;;; SPDX-License-Identifier: GPL-3.0-or-later
(define-module (gnu packages mtools)
  #:use-module (guix packages)
  #:use-module (guix download)
  #:use-module (guix build-system gnu)
  #:use-module (guix licenses)
  #:export (mtools))

(define mtools
  (package
    (name "mtools")
    (version "4.0.32")
    (source (origin
              (method url-fetch)
              (uri (string-append "mirror://gnu/mtools/mtools-" version ".tar.bz2"))
              ;; Debian's mtools_4.0.33-1+really4.0.32.orig.tar.bz2, its name from a
              ;; version Debian went back from: upstream's 4.0.32 release.
              (sha256
               (base32 "13kqghsjqsqwnjq360x2548k1jz68a3xzy5richxf9hpzc2wlh6m"))))
    (build-system gnu-build-system)
    ;; It has no test suite; the built programs must make an image, copy a
    ;; file into it, list it and read the file back.
    (arguments
     (list #:configure-flags '("--without-x")
           #:phases
           (modify-phases %standard-phases
             (replace 'check
               "./mformat -C -f 1440 -i img.fat ::
./mdir -i img.fat :: | grep -q 'No files'
echo hello >hi.txt
./mcopy -i img.fat hi.txt ::HI.TXT
./mdir -i img.fat :: | grep -q 'HI *TXT'
test \"$(./mtype -i img.fat ::HI.TXT)\" = hello"))))
    (synopsis "Access to MS-DOS file systems without mounting them")
    (description
     "GNU Mtools reads and writes FAT file systems (floppy images, USB
sticks, EFI system partitions) without mounting them: mcopy, mdir,
mformat and the other MS-DOS commands for Unix.")
    (home-page "https://www.gnu.org/software/mtools/")
    (license gpl3+)))
