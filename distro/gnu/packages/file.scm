;;; file.scm - (gnu packages file): the file command and libmagic
;;; SPDX-License-Identifier: GPL-3.0-or-later
(define-module (gnu packages file)
  #:use-module (guix packages)
  #:use-module (guix download)
  #:use-module (guix build-system gnu)
  #:use-module ((guix licenses) #:select (bsd-2))
  #:use-module (gnu packages compression)
  #:export (file))

(define file
  (package
    (name "file")
    (version "5.44")
    (source (origin
              (method url-fetch)
              (uri (string-append "ftp://ftp.astron.com/pub/file/file-"
                                  version ".tar.gz"))
              ;; Debian's file_5.44.orig.tar.gz is upstream's file.
              (sha256
               (base32 "0fsz8wld09qai2qghphmwn69ni9m23razj3wip5k3j6vm3xwfl9p"))))
    (build-system gnu-build-system)
    ;; libmagic reads bzip2 and xz data through libbz2 and liblzma, found
    ;; by configure.  In Guix these come with the implicit inputs; here
    ;; they are named.  Built without zlib (gzip data is then handed to
    ;; the gzip program instead) until the distribution has a zlib
    ;; package: no input has a zlib.h, so configure finds none.
    ;; The test suite (`make check': each tests/*.testfile against its
    ;; .result) runs whole.
    (inputs (list bzip2 xz))
    (synopsis "Tell what kind of data a file holds")
    (description
     "The file command looks at the contents of files, not their names,
and says what they are: a program, an image, an archive, text in some
encoding, and hundreds of other formats.  It works from a database of
patterns (the magic file), and the same engine is offered to other
programs as the libmagic library.")
    (home-page "https://www.darwinsys.com/file/")
    (license bsd-2)))
