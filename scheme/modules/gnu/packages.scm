;;; packages.scm - (gnu packages): the distribution's packages, found by name
;;; SPDX-License-Identifier: GPL-3.0-or-later
(define-module (gnu packages)
  #:use-module (guix packages)
  #:use-module (cix compiled)
  #:use-module (ice-9 ftw)
  #:use-module (srfi srfi-1)
  #:use-module (srfi srfi-11)
  #:export (package-modules all-packages fold-packages find-packages-by-name
            specification->package specification->package+output
            package-name->name+output version>?))

;;; The distribution is every (gnu packages NAME) module on the load path:
;;; DIR/gnu/packages/NAME.scm. These are the procedures Guix users know
;;; for finding its packages (in manifests: specification->package).

(define (package-modules)
  ;; The names of the package modules, each once.
  (delete-duplicates
   (append-map
    (lambda (dir)
      (let ((sub (string-append dir "/gnu/packages")))
        (if (and (file-exists? sub) (file-is-directory? sub))
            (filter-map (lambda (f)
                          (and (string-suffix? ".scm" f)
                               `(gnu packages ,(string->symbol (string-drop-right f 4)))))
                        (or (scandir sub) '()))
            '())))
    %load-path)))

;;; The packages, and tables of them by name and by full name, are made once
;;; for a load path: every lookup of a transaction of a thousand packages
;;; then costs a hash lookup, not a walk of every module.
(define %packages-cache #f)   ; #(LOAD-PATH PACKAGES BY-NAME BY-FULL-NAME)

(define (packages-cache)
  (unless (and %packages-cache (equal? (vector-ref %packages-cache 0) %load-path))
    (let ((seen (make-hash-table))
          (by-name (make-hash-table))
          (by-full-name (make-hash-table)))
      (define (add! table key p)
        (hash-set! table key (cons p (hash-ref table key '()))))
      (let ((all
             ;; Every package the package modules export, each once, in
             ;; module order.
             (filter
              (lambda (p)
                (and (not (hashq-ref seen p))
                     (hashq-set! seen p #t)))
              (let ((names (sort (package-modules)
                                 (lambda (a b)
                                   (string<? (object->string a) (object->string b))))))
                (call-with-compiled-modules
                 names
                 (lambda ()
                   (append-map
                    (lambda (name)
                      (let ((m (resolve-interface name)))
                        (filter package?
                                (module-map (lambda (sym var)
                                              (and (variable-bound? var) (variable-ref var)))
                                            m))))
                    names)))))))
        (for-each (lambda (p)
                    (add! by-name (package-name p) p)
                    (add! by-full-name (package-full-name p) p))
                  (reverse all))
        (set! %packages-cache (vector %load-path all by-name by-full-name)))))
  %packages-cache)

(define (all-packages)
  ;; Every package the package modules export, each once, in module order.
  (vector-ref (packages-cache) 1))

(define (fold-packages proc init)
  (fold proc init (all-packages)))

(define (version>? a b)
  ;; Dot-separated parts compared as numbers where they are numbers.
  (let loop ((a (string-split a #\.)) (b (string-split b #\.)))
    (cond ((null? a) #f)
          ((null? b) #t)
          (else
           (let ((x (string->number (car a))) (y (string->number (car b))))
             (cond ((and x y (> x y)) #t)
                   ((and x y (< x y)) #f)
                   ((and (not (and x y)) (string>? (car a) (car b))) #t)
                   ((and (not (and x y)) (string<? (car a) (car b))) #f)
                   (else (loop (cdr a) (cdr b)))))))))

(define* (find-packages-by-name name #:optional version)
  ;; The packages called NAME (of VERSION, when given), newest first.
  (sort (filter (lambda (p)
                  (or (not version) (string=? (package-version p) version)))
                (hash-ref (vector-ref (packages-cache) 2) name '()))
        (lambda (a b) (version>? (package-version a) (package-version b)))))

(define (package-name->name+output spec)
  ;; "glib:doc" -> "glib" "doc"; "hello" -> "hello" #f.
  (let ((colon (string-rindex spec #\:)))
    (if colon
        (values (substring spec 0 colon) (substring spec (+ colon 1)))
        (values spec #f))))

(define (specification->package spec)
  ;; NAME, NAME@VERSION or NAME-VERSION: the newest package that fits.
  (let* ((at (string-index spec #\@))
         (found (if at
                    (find-packages-by-name (substring spec 0 at) (substring spec (+ at 1)))
                    (let ((by-name (find-packages-by-name spec)))
                      (if (null? by-name)
                          (hash-ref (vector-ref (packages-cache) 3) spec '())
                          by-name)))))
    (when (null? found)
      (error (format #f "~a: unknown package" spec)))
    (car found)))

(define* (specification->package+output spec #:optional (output "out"))
  ;; "sed", "sed:debug", "sed@4.9:debug": the package and the output
  ;; (OUTPUT when the spec names none); an output the package lacks is an error.
  (let-values (((name out) (package-name->name+output spec)))
    (let ((p (specification->package name))
          (out (or out output)))
      (unless (member out (package-outputs p))
        (error (format #f "package `~a' has no output `~a'" (package-full-name p) out)))
      (values p out))))
