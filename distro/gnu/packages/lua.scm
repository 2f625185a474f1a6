;;; lua.scm - (gnu packages lua): the Lua language
;;; SPDX-License-Identifier: GPL-3.0-or-later
(define-module (gnu packages lua)
  #:use-module (guix packages)
  #:use-module (guix download)
  #:use-module (guix build-system gnu)
  #:use-module ((guix licenses) #:select (x11))
  #:export (lua))

(define lua
  (package
    (name "lua")
    (version "5.4.4")
    (source (origin
              (method url-fetch)
              (uri (string-append "https://www.lua.org/ftp/lua-" version ".tar.gz"))
              ;; Debian's orig tarball of this version, not repacked by Debian.
              (sha256
               (base32 "0qdzkrxx4bpcfls6a1fa5n6wrxabi0xlgdy4prksx01vcm4phk0n"))))
    (build-system gnu-build-system)
    ;; A plain Makefile, no configure.  Lua's own tests are a separate
    ;; tarball, not in Debian's source: in their stead the interpreter built
    ;; must run a script.
    (arguments
     (list #:phases
           (modify-phases %standard-phases
             (delete 'configure)
             (replace 'build "make -j${NIX_BUILD_CORES:-1} linux CC=gcc MYLDFLAGS=-Wl,-rpath=$out/lib")
             (replace 'check
               "src/lua -e 'local t = {} for i = 1, 10 do t[i] = i * i end print(#t, t[10], 7 // 2)' >out
printf '10\\t100\\t3\\n' | cmp - out")
             (replace 'install "make install INSTALL_TOP=\"$out\""))))
    (synopsis "An embeddable scripting language")
    (description
     "Lua is a small, fast scripting language made to be embedded in
programs: procedural, with tables as its one data structure, first-
class functions, coroutines and incremental garbage collection.")
    (home-page "https://www.lua.org/")
    (license x11)))
