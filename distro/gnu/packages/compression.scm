;;; compression.scm - (gnu packages compression): gzip, xz, bzip2
;;; SPDX-License-Identifier: GPL-3.0-or-later
(define-module (gnu packages compression)
  #:use-module (guix packages)
  #:use-module (guix download)
  #:use-module (guix build-system gnu)
  #:use-module (guix licenses)
  #:export (gzip xz bzip2))

(define gzip
  (package
    (name "gzip")
    (version "1.12")
    (source (origin
              (method url-fetch)
              (uri (string-append "mirror://gnu/gzip/gzip-" version ".tar.xz"))
              (sha256
               (base32 "0mhrx5wk9gazmxdw7vmbpg036yzqqhsww6h12kwf2dzn37jh6pnf"))))
    (build-system gnu-build-system)
    (synopsis "The GNU compressor of the DEFLATE (.gz) format")
    (description
     "Gzip compresses and decompresses files in the gzip format, the one
of the DEFLATE algorithm (LZ77 with Huffman coding) that most archives of
free software come in.  It also ships zcat, zgrep, zdiff, zless and the
other helpers that read compressed files in place.")
    (home-page "https://www.gnu.org/software/gzip/")
    (license gpl3+)))
