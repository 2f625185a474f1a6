;;; primitives.scm - (cix primitives) for guild, at build time only
;;; SPDX-License-Identifier: GPL-3.0-or-later
;;;
;;; Inside cix, (cix primitives) is made by scheme/guile.c before any
;;; module loads. When `make` compiles a package module that imports
;;; another, guild loads that other module, whose origins call base32 and
;;; whose local files call %cix-data-dir: this module stands in for the C
;;; one there (the Makefile puts this directory on guild's load path only;
;;; it is never installed).
(define-module (cix primitives)
  #:use-module (rnrs bytevectors)
  #:export (%nix-base32->bytevector %cix-data-dir))

(define alphabet "0123456789abcdfghijklmnpqrsvwxyz")

(define (%nix-base32->bytevector str)
  ;; Nix's base-32: the last character holds the lowest five bits.
  (let* ((len (string-length str))
         (size (quotient (* len 5) 8))
         (bv (make-bytevector size 0)))
    (do ((n 0 (+ n 1))) ((= n len) bv)
      (let* ((c (string-ref str (- len n 1)))
             (digit (or (string-index alphabet c)
                        (error "invalid nix-base32 string:" str)))
             (b (* n 5)) (i (quotient b 8)) (j (remainder b 8)))
        (bytevector-u8-set! bv i (logand 255 (logior (bytevector-u8-ref bv i)
                                                     (ash digit j))))
        (when (< (+ i 1) size)
          (bytevector-u8-set! bv (+ i 1)
                              (logior (bytevector-u8-ref bv (+ i 1))
                                      (ash digit (- j 8)))))))))

(define (%cix-data-dir)
  (or (getenv "CIX_DATA_DIR") "."))
