;;; download.scm - (guix download): url-fetch, the origin method
;;; SPDX-License-Identifier: GPL-3.0-or-later
(define-module (guix download)
  #:export (url-fetch %mirrors))

;;; An origin whose method is url-fetch becomes a fixed-output derivation
;;; of builtin:fetchurl (the .drv Nix's <nix/fetchurl.nix> writes); the
;;; lowering is cix's, in C. url-fetch is the token that names it.
(define (url-fetch . args)
  (error "url-fetch: an origin method, used by lowering only"))

;;; mirror://NAME/... URLs are expanded by the downloader from its mirror
;;; list ($CIX_MIRRORS_FILE), after the content-addressed mirrors.
(define %mirrors
  '((gnu "https://ftpmirror.gnu.org/gnu/" "https://ftp.gnu.org/gnu/")))
