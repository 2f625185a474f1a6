;;; compression.scm - (gnu packages compression): gzip, xz, bzip2, zlib, zstd and others
;;; SPDX-License-Identifier: GPL-3.0-or-later
(define-module (gnu packages compression)
  #:use-module (guix packages)
  #:use-module (guix download)
  #:use-module (guix build-system gnu)
  ;; bzip2 is the package here; its license is license:bzip2.
  #:use-module ((guix licenses)
                #:select (gpl3+ gpl2+ gpl2 lgpl2.1+ bsd-2 bsd-3 public-domain
                          (bzip2 . license:bzip2) (zlib . license:zlib)))
  #:use-module (gnu packages which)
  #:export (gzip xz bzip2 zlib zstd lz4 lzip lzo sharutils))

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
    (arguments
     ;; help-version runs zmore, whose pager is more (util-linux's), which
     ;; no input has: the test pages with cat.  Skipped by the suite
     ;; itself: zgrep-signal (perl).
     (list #:phases (modify-phases %standard-phases
                      (add-after 'unpack 'zmore-test-pager
                        "sed -i 's/^zmore_setup () { unset PAGER; zcat_setup; }$/zmore_setup () { PAGER=cat; export PAGER; zcat_setup; }/' tests/help-version
grep -q '^zmore_setup () { PAGER=cat;' tests/help-version"))))
    (synopsis "The GNU compressor of the DEFLATE (.gz) format")
    (description
     "Gzip compresses and decompresses files in the gzip format, the one
of the DEFLATE algorithm (LZ77 with Huffman coding) that most archives of
free software come in.  It also ships zcat, zgrep, zdiff, zless and the
other helpers that read compressed files in place.")
    (home-page "https://www.gnu.org/software/gzip/")
    (license gpl3+)))

(define xz
  (package
    (name "xz")
    (version "5.4.1")
    (source (origin
              (method url-fetch)
              (uri (string-append "https://tukaani.org/xz/xz-" version ".tar.xz"))
              ;; Debian's xz-utils_5.4.1.orig.tar.xz is upstream's file.
              (sha256
               (base32 "19d5crifn8a99qvasb4dx8vb8l16dnr4p1kqiwl1rckm32m2g62x"))))
    (build-system gnu-build-system)
    (synopsis "Compressor of the LZMA2 (.xz and .lzma) formats")
    (description
     "XZ Utils compresses and decompresses data with the LZMA2 algorithm,
which gives smaller files than gzip or bzip2 at the price of memory and
time when compressing.  It provides the xz command (with lzma, unxz and
xzcat), helpers such as xzgrep and xzdiff, and the liblzma library.")
    (home-page "https://tukaani.org/xz/")
    ;; liblzma and the programs are in the public domain; the scripts
    ;; (xzgrep, xzdiff, ...) are GPL 2+, some getopt code LGPL 2.1+.
    (license (list public-domain gpl2+ lgpl2.1+))))

(define bzip2
  (package
    (name "bzip2")
    (version "1.0.8")
    (source (origin
              (method url-fetch)
              (uri (string-append "https://sourceware.org/pub/bzip2/bzip2-"
                                  version ".tar.gz"))
              (sha256
               (base32 "0s92986cv0p692icqlw1j42y9nld8zd83qwhzbqd61p1dqbh6nmb"))))
    (build-system gnu-build-system)
    (arguments
     ;; A plain Makefile with no configure script.  The shared library is
     ;; built first, by its own Makefile, so that the objects are position
     ;; independent and serve libbz2.a too.  `make check' runs the test.
     (list #:phases (modify-phases %standard-phases
                      (replace 'configure
                        "sed -i \"s|^SHELL=/bin/sh|SHELL=$(command -v sh)|\" Makefile Makefile-libbz2_so")
                      (replace 'build
                        "make -f Makefile-libbz2_so
make libbz2.a bzip2 bzip2recover")
                      (replace 'install
                        "make install PREFIX=\"$out\"
cp libbz2.so.1.0.8 \"$out/lib/\"
ln -s libbz2.so.1.0.8 \"$out/lib/libbz2.so.1.0\"
ln -s libbz2.so.1.0.8 \"$out/lib/libbz2.so.1\"
ln -s libbz2.so.1.0.8 \"$out/lib/libbz2.so\"
mkdir -p \"$out/share\"
mv \"$out/man\" \"$out/share/man\""))))
    (synopsis "Block-sorting compressor of the .bz2 format")
    (description
     "Bzip2 compresses files with the Burrows-Wheeler block-sorting
transform followed by Huffman coding, which usually gives smaller files
than gzip, more slowly.  The package has the bzip2, bunzip2, bzcat and
bzip2recover commands, and libbzip2, the library behind them.")
    (home-page "https://sourceware.org/bzip2/")
    (license license:bzip2)))

(define zlib
  (package
    (name "zlib")
    (version "1.2.13")
    ;; Debian's orig tarball (1.2.13.dfsg: upstream's release with the
    ;; contrib/ directory and other non-free or unused files removed), not
    ;; upstream's zlib-1.2.13.tar.gz byte for byte; the library is the same.
    (source (origin
              (method url-fetch)
              (uri (string-append "https://zlib.net/fossils/zlib-" version ".dfsg.tar.bz2"))
              (sha256
               (base32 "18dh3a6pa1hz765y9asv3qbk3plva979mdw3bw9fy01wgsabgzki"))))
    (build-system gnu-build-system)
    ;; Its own configure script (not Autoconf's) takes --prefix, which is
    ;; all gnu-build gives it; make check runs the example and minigzip
    ;; programs against the static and the shared library.
    (synopsis "The DEFLATE compression library")
    (description
     "zlib is a library implementing the DEFLATE compression method of
gzip and PNG, with the zlib and gzip stream formats: nearly every program
that reads or writes compressed data links it.")
    (home-page "https://zlib.net/")
    (license license:zlib)))

(define lz4
  (package
    (name "lz4")
    (version "1.9.4")
    (source (origin
              (method url-fetch)
              (uri (string-append "https://github.com/lz4/lz4/releases/download/v" version
                                  "/lz4-" version ".tar.gz"))
              ;; Debian's orig tarball of this version, not repacked by Debian.
              (sha256
               (base32 "0jz5w23ykwsp54kza3qaljyn45bswgvvv0mh83gks1lcgjh3l3hb"))))
    (build-system gnu-build-system)
    ;; A plain Makefile.  Its full suite (make check) takes long: the
    ;; command's own tests (make -C tests test-lz4) run here.
    (arguments
     (list #:make-flags '("PREFIX=${out}" "CC=gcc")
           #:phases (modify-phases %standard-phases
                      (delete 'configure)
                      (replace 'check "make -C tests test-lz4"))))
    (synopsis "Very fast lossless compression (LZ4)")
    (description
     "LZ4 compresses at hundreds of megabytes a second and decompresses
faster still, at lower ratios than gzip: the lz4 command and liblz4.")
    (home-page "https://lz4.github.io/lz4/")
    (license (list bsd-2 gpl2+))))

(define zstd
  (package
    (name "zstd")
    (version "1.5.4")
    (source (origin
              (method url-fetch)
              (uri (string-append "https://github.com/facebook/zstd/releases/download/v" version
                                  "/zstd-" version "+dfsg2.tar.xz"))
              ;; Debian's libzstd_1.5.4+dfsg2.orig.tar.xz: upstream's release less
              ;; some files Debian does not take (prebuilt binaries, a few contrib
              ;; parts), so not upstream's file byte for byte.
              (sha256
               (base32 "0lwrq606icgww9dqnk7nvmdl6vd6xcq6539c0n6k9v3pbsvbpx4c"))))
    (build-system gnu-build-system)
    ;; A plain Makefile.  Its test suite (make check: the command's round
    ;; trips, fuzzers and the library's unit tests) runs for an hour: the
    ;; short one (tests/playTests.sh through make test-zstd) runs here,
    ;; without the line of the target that only shows the program's type
    ;; with file(1), which the build has not.
    (arguments
     (list #:make-flags '("PREFIX=${out}" "CC=gcc")
           #:phases (modify-phases %standard-phases
                      (delete 'configure)
                      (replace 'check
                        "sed -i '/^\tfile \\$(ZSTD)$/d' tests/Makefile
! grep -q '^.file ' tests/Makefile
make -C tests test-zstd"))))
    ;; The zstd command reads and writes .gz, .xz and .lz4 too.
    (inputs (list zlib xz lz4))
    (synopsis "Zstandard, fast lossless compression")
    (description
     "Zstandard compresses about as well as zlib at its best, much faster,
and offers higher ratios at lower speeds and dictionaries for small
data. The package has the zstd command and libzstd; cix compresses its
archives with it.")
    (home-page "https://facebook.github.io/zstd/")
    (license (list bsd-3 gpl2))))

(define lzip
  (package
    (name "lzip")
    (version "1.23")
    (source (origin
              (method url-fetch)
              (uri (string-append "mirror://savannah/lzip/lzip-" version ".tar.xz"))
              ;; Debian's lzip_1.23.orig.tar.xz: upstream's .tar.gz recompressed with xz.
              (sha256
               (base32 "0z0lfj2w85zh1kr29kr4gsi89d5c87kvr1v1gl2bg72p0kidhsfj"))))
    (build-system gnu-build-system)
    ;; Its own configure script; make check runs its suite.
    (arguments
     (list #:configure-flags '("CXX=g++")))
    (synopsis "Lossless compression of the lzip format (LZMA)")
    (description
     "Lzip compresses data with LZMA into a simple, integrity-checked format
fit for archiving; GNU projects publish .tar.lz tarballs in it.")
    (home-page "https://www.nongnu.org/lzip/lzip.html")
    (license gpl2+)))

(define lzo
  (package
    (name "lzo")
    (version "2.10")
    (source (origin
              (method url-fetch)
              (uri (string-append "https://www.oberhumer.com/opensource/lzo/download/lzo-" version ".tar.gz"))
              ;; Debian's orig tarball of this version, not repacked by Debian.
              (sha256
               (base32 "0wm04519pd3g8hqpjqhfr72q8qmbiwqaxcs3cndny9h86aa95y60"))))
    (build-system gnu-build-system)
    (arguments
     (list #:configure-flags '("--enable-shared" "--disable-static")))
    (synopsis "Real-time data compression library (LZO)")
    (description
     "LZO is a library of very fast compression with decompression that
needs no memory: for file systems, backup tools and network streams.")
    (home-page "https://www.oberhumer.com/opensource/lzo/")
    (license gpl2+)))

(define sharutils
  (package
    (name "sharutils")
    (version "4.15.2")
    (source (origin
              (method url-fetch)
              (uri (string-append "mirror://gnu/sharutils/sharutils-" version ".tar.xz"))
              ;; Debian's orig tarball of this version, not repacked by Debian.
              (sha256
               (base32 "16isapn8f39lnffc3dp4dan05b7x6mnc76v6q5nn8ysxvvvwy19b"))))
    (build-system gnu-build-system)
    ;; configure finds the shell shar's archives name with which (else
    ;; it asks /bin/sh, which a build has not).  Its gnulib predates
    ;; glibc 2.28's stdio: fseeko and the others told the names glibc
    ;; has now, as for other GNU packages of its age; its headers define
    ;; variables more than once (-fcommon, as before GCC 10).
    (native-inputs (list which))
    (arguments
     (list #:configure-flags '("CFLAGS=-g -O2 -fcommon")
           #:phases
           (modify-phases %standard-phases
             (add-after 'unpack 'gnulib-stdio
               "sed -i 's/IO_ftrylockfile/IO_EOF_SEEN/' lib/*.c
echo '#define _IO_IN_BACKUP 0x100' >>lib/stdio-impl.h
! grep -q IO_ftrylockfile lib/*.c"))))
    (synopsis "Shell archives and uuencoded files")
    (description
     "GNU sharutils makes and unpacks shell archives (shar), which rebuild
files when run by sh, and encodes binary files as text with uuencode
and uudecode.")
    (home-page "https://www.gnu.org/software/sharutils/")
    (license gpl3+)))
