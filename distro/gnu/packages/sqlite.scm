;;; sqlite.scm - (gnu packages sqlite): the SQL database in a library
;;; SPDX-License-Identifier: GPL-3.0-or-later
(define-module (gnu packages sqlite)
  #:use-module (guix packages)
  #:use-module (guix download)
  #:use-module (guix build-system gnu)
  #:use-module ((guix licenses) #:select (public-domain))
  #:use-module (gnu packages tcl)
  #:use-module (gnu packages readline)
  #:use-module (gnu packages compression)
  #:export (sqlite))

(define sqlite
  (package
    (name "sqlite")
    (version "3.40.1")
    (source (origin
              (method url-fetch)
              (uri (string-append "https://www.sqlite.org/2022/sqlite-src-3400100.tar.xz"))
              ;; Debian's sqlite3_3.40.1.orig.tar.xz: the whole source tree
              ;; (upstream's sqlite-src-3400100.zip, as a tarball), not the
              ;; amalgamation.  The amalgamation is made from it by Tcl
              ;; scripts, so tclsh is needed to build.
              (sha256
               (base32 "0mfnlln1wc66xcik2y5jnmv8ck2834c8k9sandnrgp5l18k7d9xa"))))
    (build-system gnu-build-system)
    (native-inputs (list tcl))
    (inputs (list readline zlib))
    (arguments
     ;; What cix, and most programs, ask of the library: column metadata,
     ;; full-text search, JSON, R-trees, unlock notification; no Tcl
     ;; binding installed (it would go into tcl's directory).
     (list #:configure-flags
           '("--enable-fts5" "--enable-rtree" "--disable-tcl" "--enable-readline"
             "CFLAGS=-O2 -DSQLITE_ENABLE_COLUMN_METADATA=1 -DSQLITE_ENABLE_FTS4 -DSQLITE_ENABLE_UNLOCK_NOTIFY -DSQLITE_SECURE_DELETE -DSQLITE_ENABLE_DBSTAT_VTAB")
           ;; Upstream's `make test' runs for hours; its quick list
           ;; (extraquick.test: every area, the slow tests left out) runs
           ;; here, through the testfixture program built with Tcl, which
           ;; --disable-tcl leaves without Tcl's library: it is named.
           #:test-target "quicktest"
           #:make-flags '("LIBTCL=-ltcl8.6")))
    (synopsis "The SQL database engine in a library")
    (description
     "SQLite is a self-contained, serverless SQL database engine: a
database is one file, read and written by a C library that programs link,
with transactions, a large subset of SQL, and the sqlite3 shell.  cix
keeps its store's database in it, as Nix and Guix do.")
    (home-page "https://www.sqlite.org/")
    (license public-domain)))
