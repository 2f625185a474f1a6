;;; emacs.scm - (gnu packages emacs): GNU Emacs
;;; SPDX-License-Identifier: GPL-3.0-or-later
(define-module (gnu packages emacs)
  #:use-module (guix packages)
  #:use-module (guix download)
  #:use-module (guix build-system gnu)
  #:use-module ((guix licenses) #:select (gpl3+))
  #:use-module (gnu packages ncurses)
  #:use-module (gnu packages tls)
  #:use-module (gnu packages xml)
  #:use-module (gnu packages compression)
  #:use-module (gnu packages pkg-config)
  #:use-module (gnu packages texinfo)
  #:export (emacs))

(define emacs
  (package
    (name "emacs")
    (version "28.2")
    (source (origin
              (method url-fetch)
              (uri (string-append "mirror://gnu/emacs/emacs-" version ".tar.xz"))
              ;; Debian's emacs_28.2+1.orig.tar.xz: upstream's release less the
              ;; manuals under the GFDL with invariant sections, so not upstream's file
              ;; byte for byte.
              (sha256
               (base32 "0rh6v5sxvxsgiabsim3k5pj99c6blbb7922f2sxad4rxpvm1r8jl"))))
    (build-system gnu-build-system)
    ;; For text terminals: no X, no sound, no image libraries.  Its test
    ;; suite (test/, make check) runs whole; its tests that need the network
    ;; or an external program skip themselves.
    (native-inputs (list pkg-config texinfo))
    (inputs (list ncurses gnutls libxml2 zlib))
    (arguments
     (list #:configure-flags
           '("--without-x" "--without-sound" "--with-gnutls" "--with-xml2" "--with-modules"
             "--without-libsystemd" "--without-selinux" "--without-json" "--without-gpm"
             "--without-native-compilation" "--without-compress-install")
           #:parallel-tests? #t))
    (native-search-paths
     (list (search-path-specification
            (variable "EMACSLOADPATH")
            (files '("share/emacs/site-lisp")))))
    (synopsis "The extensible, self-documenting text editor")
    (description
     "GNU Emacs is an extensible, customizable text editor, and more: at its
core an interpreter of Emacs Lisp, in which most of it is written,
with modes for hundreds of languages and formats, a mail reader, a
file manager, version control, a shell, and the Org outliner. This
build is for terminals.")
    (home-page "https://www.gnu.org/software/emacs/")
    (license gpl3+)))
