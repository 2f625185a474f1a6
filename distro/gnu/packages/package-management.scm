;;; package-management.scm - (gnu packages package-management): cix itself
;;; SPDX-License-Identifier: GPL-3.0-or-later
(define-module (gnu packages package-management)
  #:use-module (guix packages)
  #:use-module (guix git-download)
  #:use-module (guix build-system gnu)
  #:use-module ((guix licenses) #:select (gpl3+))
  #:use-module (gnu packages guile)
  #:use-module (gnu packages crypto)
  #:use-module (gnu packages sqlite)
  #:use-module (gnu packages gnupg)
  #:use-module (gnu packages curl)
  #:use-module (gnu packages compression)
  #:use-module (gnu packages gnunet)
  #:use-module (gnu packages pkg-config)
  #:use-module (gnu packages perl)
  #:export (cix))

;;; cix's own source: the Git checkout these modules are part of (its
;;; tracked files only: not its build products), or, in an installed cix,
;;; the tarball of the checkout that `make install' put beside them
;;; (DATADIR/cix-VERSION.tar.gz).  #f when there is neither.
(define %cix-version "0.1.0")

(define (cix-source)
  (let* ((me (search-path %load-path "gnu/packages/package-management.scm"))
         (top (and me (dirname (dirname (dirname (dirname me))))))
         (tarball (and top (string-append top "/cix-" %cix-version ".tar.gz"))))
    (cond ((and top (file-exists? (string-append top "/.git")))
           (local-file top "cix-checkout" #:recursive? #t
                       #:select? (git-predicate top)))
          ((and tarball (file-exists? tarball))
           (local-file tarball))
          (else #f))))

(define cix
  (package
    (name "cix")
    (version %cix-version)
    (source (cix-source))
    (build-system gnu-build-system)
    (native-inputs (list pkg-config perl))
    (inputs (list guile-3.0 libxcrypt sqlite libgcrypt curl zstd xz bzip2 libmicrohttpd))
    (arguments
     ;; Its own Makefile, no configure.  The compiled Scheme modules are
     ;; made by the distribution's Guile (guild).  Its own test suite is
     ;; cix's development tests (Nix as the oracle, root for the daemon's
     ;; build users): in its stead the check phase has the cix just built
     ;; hash, add to a store of its own and build a derivation in its
     ;; sandbox.
     ;; libguile needs libxcrypt's libcrypt.so.1 (crypt@XCRYPT_2.0); the
     ;; link would take glibc's, first in the path the linker searches for
     ;; a library's own needs (the ld wrapper's -rpath), without libxcrypt's
     ;; lib in -rpath-link, which comes before.
     (list #:make-flags
           '("PREFIX=${out}" "SYSCONFDIR=${out}/etc" "GUILD=${guile}/bin/guild"
             "LDFLAGS=-Wl,-rpath-link=${libxcrypt}/lib")
           ;; Its compiled modules (.go) are Guile's own ELF files, which
           ;; strip does not take (as in Guile's package): the programs
           ;; are stripped after the installation, the modules not.
           #:strip-binaries? #f
           #:phases
           (modify-phases %standard-phases
             (delete 'configure)
             (add-after 'install 'strip-programs
               "find \"$out\" -type f ! -name '*.go' | while read -r f; do
  if [ \"$(head -c 4 \"$f\" | tr -d '\\177')\" = ELF ]; then
    echo \"stripping $f\"
    strip --strip-unneeded --enable-deterministic-archives \"$f\"
  fi
done")
             (replace 'check
               "sh distro/check/cix-smoke.sh build"))))
    (synopsis "Functional package manager of the GNU system (this one)")
    (description
     "cix is a functional package manager: it builds every package from
source in an isolated sandbox, by a daemon, into a store path whose name
is a hash of all its inputs, and lets users install packages into their
own profiles with transactional upgrades and roll-backs.  Packages are
written in Scheme, as in GNU Guix.  This package is cix built by cix.")
    ;; It has no web site: its manual is its man pages and doc/.
    (home-page "man:cix(1)")
    (license gpl3+)))
