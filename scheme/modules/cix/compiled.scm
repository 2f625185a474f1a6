;;; compiled.scm - (cix compiled): package modules compiled on first use, kept in a cache
;;; SPDX-License-Identifier: GPL-3.0-or-later
(define-module (cix compiled)
  #:use-module (ice-9 ftw)
  #:use-module (srfi srfi-1)
  #:export (call-with-compiled-modules))

;;; cix's own modules and the distribution's are compiled by make; a
;;; user's package modules (a directory of CIX_SCHEME_PATH) are not, and
;;; evaluating a module from its source costs some twenty times as much as
;;; loading it compiled (a thousand packages: 0.7 s against 35 ms). So the
;;; modules loaded by call-with-compiled-modules that have no up-to-date
;;; compiled file are compiled (-O1, no warnings) into
;;; $XDG_CACHE_HOME/cix/go/KEY/ABSOLUTE-SOURCE-NAME.go (Guile's own
;;; scheme of fallback files, atomic writes included), and loaded from
;;; there while the source file is older. KEY stands for cix's own
;;; compiled modules (and Guile's version): their macros, `package' first,
;;; are expanded into the compiled code, so that another cix has another
;;; cache. As with Guile's auto-compilation, a module is not compiled
;;; again when only a module whose macros it uses changed: touch it. A
;;; module that does not compile is evaluated from its source, as before,
;;; which reports its errors. Without a cache directory (no absolute
;;; XDG_CACHE_HOME or HOME), every module is evaluated from its source.

(define (cache-base)
  (let ((xdg (getenv "XDG_CACHE_HOME"))
        (home (getenv "HOME")))
    (cond ((and xdg (string-prefix? "/" xdg)) xdg)
          ((and home (string-prefix? "/" home)) (string-append home "/.cache"))
          (else #f))))

(define (file-identity file)
  (let ((st (stat file #f)))
    (and st (list file (stat:mtime st) (stat:mtimensec st) (stat:size st)))))

(define (tree-identities dir)
  ;; Every compiled file below DIR, with its times and size.
  (let walk ((dir dir))
    (append-map (lambda (f)
                  (let ((path (string-append dir "/" f)))
                    (cond ((string-suffix? ".go" f) (list (file-identity path)))
                          ((file-is-directory? path) (walk path))
                          (else '()))))
                (or (scandir dir (lambda (f) (not (member f '("." "..")))) string<?) '()))))

(define (fnv-1a text)
  ;; The 64-bit FNV-1a hash of TEXT's characters, in hexadecimal.
  (let loop ((i 0) (h #xcbf29ce484222325))
    (if (= i (string-length text))
        (number->string h 16)
        (loop (+ i 1)
              (logand (* (logxor h (char->integer (string-ref text i))) #x100000001b3)
                      #xffffffffffffffff)))))

(define (own-modules-key)
  ;; The compiled directory holding (guix packages) as Guile finds it: its
  ;; guix/ and cix/ trees and gnu/packages.go are cix's own modules.
  (let ((dir (find (lambda (d) (file-exists? (string-append d "/guix/packages.go")))
                   %load-compiled-path)))
    (fnv-1a
     (object->string
      (list (effective-version)
            (and dir (tree-identities (string-append dir "/guix")))
            (and dir (tree-identities (string-append dir "/cix")))
            (and dir (file-identity (string-append dir "/gnu/packages.go"))))))))

(define (more-recent? st scm)
  (or (> (stat:mtime st) (stat:mtime scm))
      (and (= (stat:mtime st) (stat:mtime scm))
           (>= (stat:mtimensec st) (stat:mtimensec scm)))))

(define (needs-compiling? name cache)
  ;; Module NAME is not loaded, its source is on the load path, and
  ;; neither the compiled path nor the cache has it compiled since.
  (and (not (resolve-module name #f #:ensure #f))
       (let* ((rel (string-join (map symbol->string name) "/"))
              (scm (%search-load-path rel))
              (scm-st (and scm (stat scm #f))))
         (define (fresh? go)
           (let ((st (stat go #f)))
             (and st (more-recent? st scm-st))))
         (and scm-st
              (not (any (lambda (d) (fresh? (string-append d "/" rel ".go")))
                        %load-compiled-path))
              (not (fresh? (string-append cache (canonicalize-path scm) ".go")))))))

(define (quiet-port port)
  ;; PORT without Guile's notes about compiling (";;; compiling ...",
  ;; ";;; compiled ...", ";;; note: ...") and without its report of a
  ;; module that does not compile (evaluated from its source, it reports
  ;; the error itself): other warnings still show.
  (let ((line '()) (failure? #f))
    (define (note? s)
      (any (lambda (p) (string-prefix? p s))
           '(";;; compiling " ";;; compiled " ";;; note: " ";;;       ")))
    (define (pass! s)
      (cond ((string-prefix? ";;; WARNING: compilation of " s) (set! failure? #t))
            ((and failure? (string-prefix? ";;; " s)) #t)
            ((and failure? (string=? s "\n")) (set! failure? #f))
            (else (set! failure? #f)
                  (unless (note? s)
                    (display s port)))))
    (define (put-char c)
      (set! line (cons c line))
      (when (char=? c #\newline)
        (let ((s (list->string (reverse line))))
          (set! line '())
          (pass! s))))
    (make-soft-port
     (vector put-char
             (lambda (s) (string-for-each put-char s))
             (lambda ()
               ;; A line not ended yet that cannot be a note: shown now.
               (unless (or (null? line) (char=? (last line) #\;))
                 (let ((s (list->string (reverse line))))
                   (set! line '())
                   (display s port)))
               (force-output port))
             #f
             #f)
     "w")))

(define (call-with-compiled-modules names thunk)
  ;; THUNK, which loads the modules NAMES, with the cache of compiled
  ;; modules: compiling those that need it, loading the others from it.
  (let* ((base (cache-base))
         (cache (and base (string-append base "/cix/go/" (own-modules-key)))))
    (if (not cache)
        (thunk)
        (let ((compile? (any (lambda (n) (needs-compiling? n cache)) names))
              (fallback %compile-fallback-path)
              (auto %load-should-auto-compile)
              (options %auto-compilation-options))
          (dynamic-wind
            (lambda ()
              (set! %compile-fallback-path cache)
              (when compile?
                (set! %load-should-auto-compile #t)
                (set! %auto-compilation-options '(#:warnings ()))))
            (lambda ()
              (if compile?
                  (parameterize (((module-ref (resolve-interface '(system base compile))
                                              'default-optimization-level)
                                  1)
                                 (current-warning-port
                                  (quiet-port (current-warning-port))))
                    (thunk))
                  (thunk)))
            (lambda ()
              (set! %compile-fallback-path fallback)
              (set! %load-should-auto-compile auto)
              (set! %auto-compilation-options options)))))))
