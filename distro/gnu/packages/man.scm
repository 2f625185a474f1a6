;;; man.scm - (gnu packages man): manual pages and their reader
;;; SPDX-License-Identifier: GPL-3.0-or-later
(define-module (gnu packages man)
  #:use-module (guix packages)
  #:use-module (guix download)
  #:use-module (guix build-system gnu)
  #:use-module (guix licenses)
  #:use-module (gnu packages pkg-config)
  #:use-module (gnu packages dbm)
  #:use-module (gnu packages groff)
  #:use-module (gnu packages less)
  #:use-module (gnu packages compression)
  #:export (libpipeline man-db))

(define libpipeline
  (package
    (name "libpipeline")
    (version "1.5.7")
    (source (origin
              (method url-fetch)
              (uri (string-append "mirror://savannah/libpipeline/libpipeline-" version ".tar.gz"))
              ;; Debian's orig tarball of this version, not repacked by Debian.
              (sha256
               (base32 "1c4h8qp2mjq4fzv0dsjvlnr525avlyi68zriq6gaf8lhk2a53d5q"))))
    (build-system gnu-build-system)
    ;; Its unit tests are written with the Check framework, which the
    ;; distribution does not have: configure leaves them out.
    (synopsis "C library of pipelines of subprocesses")
    (description
     "libpipeline lets a C program build and run pipelines of processes, as
a shell would, with their input and output from files or memory,
without the quoting pitfalls of system() and popen().")
    (home-page "https://libpipeline.nongnu.org/")
    (license gpl3+)))

(define man-db
  (package
    (name "man-db")
    (version "2.11.2")
    (source (origin
              (method url-fetch)
              (uri (string-append "mirror://savannah/man-db/man-db-" version ".tar.xz"))
              ;; Debian's orig tarball of this version, not repacked by Debian.
              (sha256
               (base32 "13czxy7hakq6q6697cmak9c7qzpks9nqwl26dij7igklx7j1xyng"))))
    (build-system gnu-build-system)
    ;; No setuid man user: the caches are each user's.  The programs it runs
    ;; (groff's, the pager, the decompressors) are found in PATH at run time.
    ;; configure takes a variable named as a program (gzip, bzip2, xz,
    ;; grep) for that program when it is set, and a build's environment
    ;; has one for each input, its store directory: the programs' files
    ;; are named instead.  Its tests write stand-in programs that start
    ;; with `#! /bin/sh': the store's shell is there.
    (native-inputs (list pkg-config))
    (inputs (list libpipeline gdbm groff less gzip))
    (arguments
     (list #:configure-flags
           '("--disable-setuid" "--disable-cache-owner" "--with-systemdtmpfilesdir=${out}/lib/tmpfiles.d"
             "--with-systemdsystemunitdir=${out}/lib/systemd/system"
             "--enable-mandirs=GNU"
             "gzip=${gzip}/bin/gzip" "bzip2=${bzip2}/bin/bzip2" "xz=${xz}/bin/xz"
             "grep=${grep}/bin/grep")
           #:bin-sh 'shell))
    (native-search-paths
     (list (search-path-specification
            (variable "MANPATH")
            (files '("share/man")))))
    (synopsis "The man command and its index of manual pages")
    (description
     "man-db provides man, whatis, apropos and mandb: it finds the manual
page asked for, formats it with groff and shows it in a pager, and
keeps an index of the pages' names and descriptions in a gdbm
database.")
    (home-page "https://man-db.nongnu.org/")
    (license gpl2+)))
