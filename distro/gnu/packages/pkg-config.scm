;;; pkg-config.scm - (gnu packages pkg-config): pkgconf, as pkg-config
;;; SPDX-License-Identifier: GPL-3.0-or-later
(define-module (gnu packages pkg-config)
  #:use-module (guix packages)
  #:use-module (guix download)
  #:use-module (guix build-system gnu)
  #:use-module ((guix licenses) #:select (isc))
  #:export (pkgconf pkg-config))

;;; freedesktop.org's pkg-config is not in Debian's archive: its successor
;;; pkgconf, which Debian also installs as pkg-config, stands for it.
(define pkgconf
  (package
    (name "pkgconf")
    (version "1.8.1")
    (source (origin
              (method url-fetch)
              (uri (string-append "https://distfiles.ariadne.space/pkgconf/pkgconf-"
                                  version ".tar.xz"))
              ;; Debian's pkgconf_1.8.1.orig.tar.xz, not repacked by Debian.
              (sha256
               (base32 "0h38vjrdws0zgwl9nhms3g1lf5kr32q2wiflambf0awllann2hv4"))))
    (build-system gnu-build-system)
    (arguments
     ;; Its tests are scripts of Kyua and ATF, which the distribution does
     ;; not have.  In their stead the program built must read a .pc file
     ;; of its own tree.
     (list #:tests? #f
           #:phases
           (modify-phases %standard-phases
             (add-after 'install 'pkg-config-name
               "ln -s pkgconf \"$out/bin/pkg-config\"
PKG_CONFIG_PATH=$PWD \"$out/bin/pkg-config\" --modversion libpkgconf | grep -qx 1.8.1"))))
    (native-search-paths
     (list (search-path-specification
            (variable "PKG_CONFIG_PATH")
            (files '("lib/pkgconfig" "share/pkgconfig")))))
    (synopsis "Compiler and linker flags of installed libraries (pkg-config)")
    (description
     "pkgconf reads the .pc files that libraries install and prints the
flags a program needs to compile against them and link them, with their
dependencies: what configure scripts ask with PKG_CHECK_MODULES.  It is
installed as pkg-config too.")
    (home-page "http://pkgconf.org/")
    (license isc)))

(define pkg-config pkgconf)
