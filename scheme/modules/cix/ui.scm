;;; ui.scm - (cix ui): what cix's commands ask of Scheme
;;; SPDX-License-Identifier: GPL-3.0-or-later
(define-module (cix ui)
  #:use-module (guix packages)
  #:use-module (guix build-system)
  #:use-module (guix download)
  #:use-module (guix profiles)
  #:use-module (guix search-paths)
  #:use-module ((cix records) #:select (short-repr))
  #:use-module (gnu packages)
  #:use-module (cix compiled)
  #:use-module ((guix licenses) #:select (license? license-name))
  #:use-module (ice-9 regex)
  #:use-module ((ice-9 binary-ports) #:select (open-bytevector-input-port))
  #:use-module (srfi srfi-1)
  #:use-module (srfi srfi-11)
  ;; Only for errors: loading it costs each command 7 ms.  (frame-source
  ;; is Guile's own, in every module.)
  #:autoload (system vm program) (source:file source:line-for-user source:column)
  #:export (describe-error find-package-for-spec package-from-expression
            package-from-file manifest-from-file package-search-path-sexps
            module-package-entries record-kind record-ref
            package-lowered-arguments with-target))

;;; ---- errors: one line, with the place they come from ----

(define location-rx (make-regexp "^[^ ]+:[0-9]+:[0-9]+: "))

(define (frame-location stack)
  ;; The innermost frame of a file of the user's (absolute: Guile names its
  ;; own modules' files relatively, "ice-9/eval.scm").
  (let loop ((i 0))
    (and stack (< i (stack-length stack))
         (let* ((frame (stack-ref stack i))
                (src (frame-source frame)))
           (if (and src (source:file src) (string-prefix? "/" (source:file src)))
               (format #f "~a:~a:~a" (source:file src) (source:line-for-user src)
                       (source:column src))
               (loop (+ i 1)))))))

(define (syntax-location args)
  ;; syntax-error: (WHO MESSAGE SOURCE FORM SUBFORM), SOURCE the place of
  ;; the subform (or the form) as an alist.
  (and (pair? args) (pair? (cdr args)) (pair? (cddr args))
       (let ((props (caddr args)))
         (and (list? props) (every pair? props) (assq-ref props 'line)
              (format #f "~a:~a:~a" (or (assq-ref props 'filename) "<unknown>")
                      (+ 1 (assq-ref props 'line)) (or (assq-ref props 'column) 0))))))

(define current-form-location
  ;; The place of the top-level form being evaluated, for errors that know
  ;; no better one (an unbound variable evaluated from a file).
  (make-parameter #f))

(define (latin-1-only s)
  (string-map (lambda (c) (if (> (char->integer c) 255) #\? c)) s))

(define (describe-error key args stack)
  (let* ((text (if (and (eq? key 'syntax-error) (pair? args) (pair? (cdr args)))
                   (format #f "~a: ~a" (car args) (cadr args))
                   (call-with-output-string
                    (lambda (port) (print-exception port #f key args)))))
         ;; One line. (Not by regexps: they go through the locale's
         ;; encoding, and fail on characters it lacks, as "…".)
         (text (string-trim-both
                (string-join (map (lambda (l) (string-trim-both l (char-set #\space #\tab)))
                                  (string-split text #\newline))
                             " ")))
         (text (if (string-prefix? "In procedure error: " text)
                   (substring text (string-length "In procedure error: "))
                   text))
         (where (and (not (regexp-exec location-rx (latin-1-only text)))
                     (or (and (eq? key 'syntax-error) (syntax-location args))
                         (frame-location stack)
                         (current-form-location)))))
    (if where (string-append where ": " text) text)))

;;; ---- finding packages by name: (gnu packages) ----

(define (find-package-for-spec spec)
  (let-values (((name output) (package-name->name+output spec)))
    (let ((p (specification->package name)))
      (when (and output (not (member output (package-outputs p))))
        (error (format #f "package `~a' has no output `~a'" (package-full-name p) output)))
      (cons p output))))

;;; ---- the package index (pkg/pkg-index.h) ----

(define (license->string l)
  (cond ((license? l) (license-name l))
        ((list? l) (string-join (map license->string l) ", "))
        ((string? l) l)
        (else "")))

(define (location-parts loc)
  ;; "FILE:LINE:COLUMN" -> (FILE LINE COLUMN)
  (let* ((c2 (and (string? loc) (string-rindex loc #\:)))
         (c1 (and c2 (string-rindex loc #\: 0 c2))))
    (if c1
        (list (substring loc 0 c1)
              (or (string->number (substring loc (+ c1 1) c2)) 0)
              (or (string->number (substring loc (+ c2 1))) 0))
        (list "" 0 0))))

(define (module-package-entries name)
  ;; The packages module NAME exports, each as the list of fields the index
  ;; keeps: name version outputs file line column home-page license
  ;; synopsis description. Packages whose properties say hidden? (the
  ;; bootstrap's) are left out, as in Guix.
  (let ((m (call-with-compiled-modules (list name)
                                      (lambda () (resolve-interface name)))))
    (map (lambda (p)
           (let ((where (location-parts (package-location p))))
             (list (package-name p) (package-version p)
                   (string-join (package-outputs p) ",")
                   (car where) (cadr where) (caddr where)
                   (or (package-home-page p) "")
                   (license->string (package-license p))
                   (or (package-synopsis p) "")
                   (or (package-description p) ""))))
         (delete-duplicates
          (filter (lambda (p)
                    (and (package? p)
                         (not (assq-ref (package-properties p) 'hidden?))))
                  (module-map (lambda (sym var)
                                (and (variable-bound? var) (variable-ref var)))
                              m))
          eq?))))

;;; ---- expressions and files ----

(define (user-module)
  (let ((m (make-fresh-user-module))
        (names (package-modules)))
    (for-each (lambda (name) (module-use! m (resolve-interface name)))
              '((guix packages) (guix download) (guix build-system gnu)
                (guix build-system trivial) (guix licenses) (guix profiles)
                (gnu packages)))
    (call-with-compiled-modules
     names
     (lambda ()
       (for-each (lambda (name) (module-use! m (resolve-interface name))) names)))
    m))

(define (as-package what value)
  (cond ((package? value) (cons value #f))
        ((and (string? value) (string-suffix? ".drv" value)) (cons value #f))
        (else (error (format #f "~a: ~s is not a package" what value)))))

(define (package-from-expression str)
  (as-package str (eval-string str (user-module))))


;;; The value of the last form of FILE, whose bytes C read and checked
;;; (BV: UTF-8, bounded in size and nesting, see pkg/sexp-scan.h),
;;; evaluated form by form in MODULE, so that an error is at least placed
;;; at its form.
(define (eval-file file bv module)
  (let ((file (canonicalize-path file))
        (port (open-bytevector-input-port bv)))
    ;; UTF-8 whatever a coding: comment says: the checks read it so.
    (set-port-encoding! port "UTF-8")
    (set-port-filename! port file)
    (values
     (let loop ((value *unspecified*))
       (let* ((at (port-line port))
              (form (read port))
              (line (or (and (pair? form) (source-property form 'line)) at)))
         (if (eof-object? form)
             value
             (loop (parameterize ((current-form-location
                                   (format #f "~a:~a:~a" file (+ 1 line) 0)))
                     (eval form module))))))
     file)))

(define (package-from-file file bv)
  (let-values (((value file) (eval-file file bv (make-fresh-user-module))))
    (as-package file value)))

(define (package-search-path-sexps p)
  ;; P's search paths and those of what it propagates, as lists for C.
  (map search-path-specification->sexp (package-transitive-native-search-paths p)))

(define (manifest-from-file file bv)
  ;; The entries of the manifest FILE (its bytes BV) gives (evaluated with (guix profiles),
  ;; (gnu packages) and the package modules in scope, as Guix does), each
  ;; as (PACKAGE OUTPUT NAME VERSION SEARCH-PATHS) for C.
  (let-values (((value file) (eval-file file bv (user-module))))
    (unless (manifest? value)
      (error (format #f "~a: the file gives ~a, not a manifest" file (short-repr value))))
    (map (lambda (e)
           (list (manifest-entry-item e) (manifest-entry-output e)
                 (manifest-entry-name e) (manifest-entry-version e)
                 (map search-path-specification->sexp (manifest-entry-search-paths e))))
         (manifest-entries value))))

;;; ---- the records, for the C code that reads them ----
;;; (SRFI-9's predicates and accessors are macros in Guile 3: C calls these.)

;;; What the build system makes of P's arguments, for TARGET (a GNU
;;; triplet: P cross-built for it) or #f (P built natively).
(define (package-lowered-arguments p target)
  (parameterize ((%current-target-system target))
    ((build-system-lower (package-build-system p))
     (package-arguments p) (package-location p) target)))

;;; PROC applied to ARGS with %current-target-system set to TARGET.
(define (with-target target proc . args)
  (parameterize ((%current-target-system target))
    (apply proc args)))

(define (record-kind x)
  (cond ((package? x) 'package)
        ((origin? x) 'origin)
        ((bootstrap-item? x) 'bootstrap-item)
        ((local-file? x) 'local-file)
        (else #f)))

(define (record-ref x field)
  (define (bad) (error (format #f "no field `~a' in ~s" field x)))
  (cond ((package? x)
         (case field
           ((name) (package-name x))
           ((version) (package-version x))
           ((location) (package-location x))
           ((outputs) (package-outputs x))
           ((source) (package-source x))
           ((arguments) (package-arguments x))
           ((inputs) (package-inputs x))
           ((native-inputs) (package-native-inputs x))
           ((propagated-inputs) (package-propagated-inputs x))
           ((build-system-name) (build-system-name (package-build-system x)))
           ((lowered-arguments) (package-lowered-arguments x #f))
           (else (bad))))
        ((origin? x)
         (case field
           ((url-fetch?) (eq? (origin-method x) url-fetch))
           ((uri) (origin-uri x))
           ((sha256) (origin-sha256 x))
           ((file-name) (origin-file-name x))
           (else (bad))))
        ((bootstrap-item? x)
         (case field
           ((name) (bootstrap-item-name x))
           ((sha256) (bootstrap-item-hash x (%current-system)))
           ((recursive?) (bootstrap-item-recursive? x))
           (else (bad))))
        ((local-file? x)
         (case field
           ((file) (local-file-file x))
           ((name) (local-file-name x))
           ((selection) (local-file-selection x))
           ((select?) (and (local-file-select? x) #t))
           (else (bad))))
        (else (bad))))

;;; ---- refresh ----
;;; What `cix refresh' (cli/cmd-refresh.c) needs of each package: its
;;; name, version, the first URL of its source (#f unless an url-fetch
;;; origin), that source's sha256 (a bytevector, or #f) and its location
;;; "FILE:LINE:COLUMN" ("" when unknown).

(define (refresh-package-entry p)
  (let* ((src (package-source p))
         (fetch? (and (origin? src) (eq? (origin-method src) url-fetch)))
         (uri (and fetch? (origin-uri src)))
         (uri (if (pair? uri) (car uri) uri)))
    (list (package-name p) (package-version p)
          (and (string? uri) uri)
          (and fetch? (origin-sha256 src))
          (or (package-location p) ""))))

(define (refresh-packages spec)
  ;; The package SPEC names (NAME, NAME@VERSION, NAME-VERSION), or every
  ;; package of the distribution when SPEC is #f, as entries.
  (map refresh-package-entry
       (if spec
           (list (specification->package spec))
           (all-packages))))

(export refresh-packages)
