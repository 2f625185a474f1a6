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
            package-name->name+output version>?
            set-package-module-hints!))

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
                        ;; string<?: scandir's default order, string-locale<?, loads
                        ;; (ice-9 i18n), 2 ms of each command.
                        (or (scandir sub (const #t) string<?) '()))
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
                        (filter visible-package?
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

;;; Hints from the package index (pkg/pkg-index.h), when cix has an index
;;; up to date with every module file: two tables, from package names and
;;; from full names, to the modules that export such packages. A lookup of a
;;; name they have then loads only those modules, not the whole
;;; distribution (one more package into a profile of a thousand: 50
;;; packages loaded, not 1,000). A name they lack, or whose modules turn
;;; out not to have it, is looked for everywhere, as without them.
(define %module-hints #f)   ; #f or (BY-NAME . BY-FULL-NAME)

(define (set-package-module-hints! by-name by-full-name)
  (set! %module-hints (cons by-name by-full-name)))

(define (hint select key)
  (and %module-hints (hash-ref (select %module-hints) key)))

(define (visible-package? p)
  ;; Packages whose properties say hidden? (the bootstrap's) are not found
  ;; by name, as in Guix.
  (and (package? p) (not (assq-ref (package-properties p) 'hidden?))))

;; Module name -> (BY-NAME . BY-FULL-NAME), the tables of its visible packages.
(define %module-packages (make-hash-table))

(define (module-tables names)
  ;; The tables of the modules NAMES, each module loaded (and its exports
  ;; listed) once per command.
  (let ((new (remove (lambda (name) (hash-ref %module-packages name)) names)))
    (unless (null? new)
      (call-with-compiled-modules
       new
       (lambda ()
         (for-each
          (lambda (name)
            (let ((by-name (make-hash-table)) (by-full-name (make-hash-table)))
              (module-for-each
               (lambda (sym var)
                 (let ((p (and (variable-bound? var) (variable-ref var))))
                   (when (visible-package? p)
                     (for-each (lambda (table key)
                                 (let ((have (hash-ref table key '())))
                                   (unless (memq p have)
                                     (hash-set! table key (cons p have)))))
                               (list by-name by-full-name)
                               (list (package-name p) (package-full-name p))))))
               (resolve-interface name))
              (hash-set! %module-packages name (cons by-name by-full-name))))
          new))))
    (map (lambda (name) (hash-ref %module-packages name)) names)))

(define (hinted-packages select key)
  ;; The packages called KEY (SELECT: car, names; cdr, full names) of the
  ;; modules the hints give for it, or #f when they give none or those
  ;; modules have none.
  (let* ((names (hint select key))
         (found (if names
                    (append-map (lambda (tables) (hash-ref (select tables) key '()))
                                (module-tables names))
                    '()))
         (found (if (and (pair? names) (pair? (cdr names)))
                    (delete-duplicates found eq?)
                    found)))
    (and (pair? found) found)))

(define (packages-named name)
  (or (hinted-packages car name)
      (hash-ref (vector-ref (packages-cache) 2) name '())))

(define (packages-full-named full-name)
  (or (hinted-packages cdr full-name)
      (hash-ref (vector-ref (packages-cache) 3) full-name '())))

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
                (packages-named name))
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
                    (let ((by-name (if (and (not (hint car spec)) (hint cdr spec))
                                       '()   ; a full name, as the hints know
                                       (find-packages-by-name spec))))
                      (if (null? by-name)
                          (packages-full-named spec)
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
