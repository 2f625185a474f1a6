;;; patchutils.scm - (gnu packages patchutils): tools on patches
;;; SPDX-License-Identifier: GPL-3.0-or-later
(define-module (gnu packages patchutils)
  #:use-module (guix packages)
  #:use-module (guix download)
  #:use-module (guix build-system gnu)
  #:use-module (guix licenses)
  #:use-module (gnu packages autotools)
  #:use-module (gnu packages perl)
  #:export (patchutils diffstat))

(define patchutils
  (package
    (name "patchutils")
    (version "0.4.2")
    (source (origin
              (method url-fetch)
              (uri (string-append "http://cyberelk.net/tim/data/patchutils/stable/patchutils-" version ".tar.gz"))
              ;; Debian's patchutils_0.4.2.orig.tar.gz is the release's Git
              ;; tree, not upstream's tarball: no configure script, made
              ;; here first (its bootstrap script's autoreconf).
              (sha256
               (base32 "1mja622dhfp00i9nsd2j05slkzdzrjx7l5niyiiwwn35jh8mzy9g"))))
    (build-system gnu-build-system)
    (native-inputs (list autoconf automake))
    ;; recountdiff, splitdiff and unwrapdiff are Perl scripts.  Not
    ;; installed: patchview's Git helpers, gitdiff (Python, which would be
    ;; most of the closure) and gitdiffview, which runs it.
    (inputs (list perl))
    (arguments
     (list #:phases
           (modify-phases %autoreconf-phases
             (add-after 'install 'without-python-scripts
               "rm \"$out/bin/gitdiff\" \"$out/bin/gitdiffview\""))))
    (synopsis "Tools to work on patch files")
    (description
     "Patchutils handles patches as files: filterdiff and grepdiff select
parts of them, combinediff and interdiff merge or compare them, lsdiff
lists the files they touch, and rediff fixes one edited by hand.")
    (home-page "http://cyberelk.net/tim/software/patchutils/")
    (license gpl2+)))

(define diffstat
  (package
    (name "diffstat")
    (version "1.65")
    (source (origin
              (method url-fetch)
              (uri (string-append "https://invisible-mirror.net/archives/diffstat/diffstat-" version ".tar.xz"))
              ;; Debian's diffstat_1.65.orig.tar.xz: upstream releases a .tgz; this
              ;; is the same tree compressed with xz.
              (sha256
               (base32 "00iag1p6rqv43i7c05hc09qwird2qrj9mig4gfv49zminim5xf6s"))))
    (build-system gnu-build-system)
    ;; Its test suite runs whole (make check, testing/*.pat against their
    ;; expected reports).
    (synopsis "Histogram of the changes of a patch")
    (description
     "diffstat reads the output of diff and prints, for each file, how many
lines were inserted, deleted and changed, with a histogram.")
    (home-page "https://invisible-island.net/diffstat/")
    (license (non-copyleft "https://invisible-island.net/diffstat/"))))
