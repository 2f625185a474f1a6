;;; profiles.scm - (guix profiles): manifests, what `cix package -m FILE' installs
;;; SPDX-License-Identifier: GPL-3.0-or-later
(define-module (guix profiles)
  #:use-module (srfi srfi-1)
  #:use-module (srfi srfi-9)
  #:use-module (srfi srfi-11)
  #:use-module (cix records)
  #:use-module (guix packages)
  #:use-module (gnu packages)
  #:export (manifest manifest? manifest-entries
            manifest-entry manifest-entry? manifest-entry-name
            manifest-entry-version manifest-entry-output manifest-entry-item
            manifest-entry-search-paths
            package->manifest-entry packages->manifest specifications->manifest
            concatenate-manifests))

;;; A manifest file gives, as its last value, what a profile holds, as in
;;; Guix:
;;;   (specifications->manifest '("hello" "sed:debug"))
;;;   (packages->manifest (list hello (list sed "debug")))
;;; `cix package -m FILE' makes the profile hold exactly its entries.

(define-record-type <manifest>
  (%manifest entries)
  manifest?
  (entries manifest-entries))

(define-record-type <manifest-entry>
  (%manifest-entry name version output item search-paths)
  manifest-entry?
  (name manifest-entry-name)
  (version manifest-entry-version)
  (output manifest-entry-output)
  (item manifest-entry-item)
  (search-paths manifest-entry-search-paths))

(define (manifest entries)
  (unless (and (list? entries) (every manifest-entry? entries))
    (error (format #f "manifest: a list of manifest entries is expected, not ~a"
                   (short-repr entries))))
  (%manifest entries))

;;; (manifest-entry (item PACKAGE) (output "out")): name, version and search
;;; paths default to the package's (its transitive native search paths).
(define (entry-from-fields fields base location)
  (define (fail fmt . args)
    (apply record-error location "manifest-entry" fmt args))
  (define (field name default)
    (cond ((assq name fields) => cdr)
          (base (case name
                  ((name) (manifest-entry-name base))
                  ((version) (manifest-entry-version base))
                  ((output) (manifest-entry-output base))
                  ((item) (manifest-entry-item base))
                  ((search-paths) (manifest-entry-search-paths base))))
          ((eq? default 'required) (fail "no `~a' field" name))
          (else (default))))
  (when (and base (not (manifest-entry? base)))
    (fail "`inherit' needs a manifest entry, not ~a" (short-repr base)))
  (let* ((item (field 'item 'required))
         (_ (unless (package? item)
              (fail "its item must be a package (store items are not supported), not ~a"
                    (short-repr item))))
         (name (field 'name (lambda () (package-name item))))
         (version (field 'version (lambda () (package-version item))))
         (output (field 'output (lambda () "out")))
         (search-paths (field 'search-paths
                              (lambda () (package-transitive-native-search-paths item)))))
    (unless (and (string? name) (> (string-length name) 0))
      (fail "its name must be a non-empty string, not ~a" (short-repr name)))
    (unless (string? version)
      (fail "its version must be a string, not ~a" (short-repr version)))
    (unless (and (string? output) (member output (package-outputs item)))
      (fail "package `~a' has no output `~a'" (package-full-name item) output))
    (unless (and (list? search-paths) (every search-path-specification? search-paths))
      (fail "its search-paths must be a list of search-path-specification, not ~a"
            (short-repr search-paths)))
    (%manifest-entry name version output item search-paths)))

(define-syntax manifest-entry
  (lambda (x)
    (expand-record-form x 'manifest-entry #'entry-from-fields
                        '(name version output item search-paths))))

(define* (package->manifest-entry package #:optional (output "out"))
  (manifest-entry (item package) (output output)))

(define (packages->manifest packages)
  ;; Each a package, or (PACKAGE OUTPUT).
  (manifest
   (map (lambda (x)
          (cond ((package? x) (package->manifest-entry x))
                ((and (list? x) (= 2 (length x)) (package? (car x)) (string? (cadr x)))
                 (package->manifest-entry (car x) (cadr x)))
                (else
                 (error (format #f "packages->manifest: a package or (PACKAGE OUTPUT) is expected, not ~a"
                                (short-repr x))))))
        packages)))

(define (specifications->manifest specs)
  ;; "hello", "sed:debug", "gawk@5.2.1": as `cix package -i' reads them.
  (unless (and (list? specs) (every string? specs))
    (error (format #f "specifications->manifest: a list of strings is expected, not ~a"
                   (short-repr specs))))
  (manifest
   (map (lambda (spec)
          (let-values (((p output) (specification->package+output spec)))
            (package->manifest-entry p output)))
        specs)))

(define (concatenate-manifests manifests)
  (manifest (append-map manifest-entries manifests)))
