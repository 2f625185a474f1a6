;;; packages.scm - (guix packages): packages and origins, as Guix writes them
;;; SPDX-License-Identifier: GPL-3.0-or-later
(define-module (guix packages)
  #:use-module (srfi srfi-1)
  #:use-module (srfi srfi-9)
  #:use-module (rnrs bytevectors)
  #:use-module (cix records)
  #:use-module (guix search-paths)
  #:re-export (search-path-specification search-path-specification?
               search-path-specification-variable search-path-specification-files
               search-path-specification-separator search-path-specification-file-type
               search-path-specification-file-pattern $PATH)
  #:export (package package? package-name package-version package-source
            package-build-system package-arguments package-inputs
            package-native-inputs package-propagated-inputs package-outputs
            package-synopsis package-description package-license
            package-home-page package-location package-full-name
            package-properties package-native-search-paths package-search-paths
            package-transitive-native-search-paths
            origin origin? origin-method origin-uri origin-sha256
            origin-file-name
            bootstrap-item bootstrap-item? bootstrap-item-name
            bootstrap-item-sha256 bootstrap-item-recursive? bootstrap-item-hash
            local-file local-file? local-file-file local-file-name
            local-file-select? local-file-selection
            base32 %current-system %current-target-system %supported-systems
            package-derivation package-cross-derivation
            package-field-names))

;;; A package or an origin is written with its fields in any order, as in
;;; Guix: (package (name "hello") (version "2.10") (source ...) ...). A
;;; field may use the ones written before it (the seed's hello uses
;;; `version' in its source's URI), `(inherit P)' takes P's fields for
;;; those not written, and the place of the definition is kept.

(define-record-type <package>
  (%make-package name version source build-system arguments inputs
                 native-inputs propagated-inputs outputs native-search-paths
                 search-paths synopsis description license home-page properties
                 location)
  package?
  (name package-name)
  (version package-version)
  (source package-source)
  (build-system package-build-system)
  (arguments %package-arguments)
  (inputs package-inputs)
  (native-inputs package-native-inputs)
  (propagated-inputs package-propagated-inputs)
  (outputs package-outputs)
  (native-search-paths package-native-search-paths)
  (search-paths package-search-paths)
  (synopsis package-synopsis)
  (description package-description)
  (license package-license)
  (home-page package-home-page)
  (properties package-properties)
  (location package-location))

(define package-field-names
  '(name version source build-system arguments inputs native-inputs
    propagated-inputs outputs native-search-paths search-paths synopsis
    description license home-page properties))

(define package-defaults
  `((version . "") (source . #f) (arguments . ()) (inputs . ())
    (native-inputs . ()) (propagated-inputs . ()) (outputs . ("out"))
    (native-search-paths . ()) (search-paths . ())
    (synopsis . "") (description . "") (license . #f) (home-page . #f)
    (properties . ())))

(define (package-from-fields fields base location)
  (define (field name)
    (cond ((assq name fields) => cdr)
          (base (case name
                  ((name) (package-name base))
                  ((version) (package-version base))
                  ((source) (package-source base))
                  ((build-system) (package-build-system base))
                  ((arguments) (%package-arguments base))
                  ((inputs) (package-inputs base))
                  ((native-inputs) (package-native-inputs base))
                  ((propagated-inputs) (package-propagated-inputs base))
                  ((outputs) (package-outputs base))
                  ((native-search-paths) (package-native-search-paths base))
                  ((search-paths) (package-search-paths base))
                  ((synopsis) (package-synopsis base))
                  ((description) (package-description base))
                  ((license) (package-license base))
                  ((home-page) (package-home-page base))
                  ((properties) (package-properties base))))
          ((assq name package-defaults) => cdr)
          (else (record-error location "package" "no `~a' field" name))))
  (when (and base (not (package? base)))
    (record-error location "package" "`inherit' needs a package, not ~s" base))
  (let ((p (apply %make-package
                  (append (map field package-field-names) (list location)))))
    (unless (string? (package-name p))
      (record-error location "package" "its name must be a string"))
    (unless (string? (package-version p))
      (record-error location "package" "its version must be a string"))
    (for-each (lambda (name get)
                (let ((l (get p)))
                  (unless (and (list? l) (every search-path-specification? l))
                    (record-error location "package"
                                  "its ~a must be a list of search-path-specification, not ~s"
                                  name l))))
              '(native-search-paths search-paths)
              (list package-native-search-paths package-search-paths))
    p))

(define-syntax package
  (lambda (x)
    (expand-record-form x 'package #'package-from-fields
                        '(name version source build-system arguments inputs
                          native-inputs propagated-inputs outputs
                          native-search-paths search-paths synopsis
                          description license home-page properties)
                        '(arguments))))

;;; A package's arguments, worked out now (the field is thunked: see
;;; expand-record-form), so that they follow %current-system.
(define (package-arguments p)
  (let ((a (%package-arguments p)))
    (if (procedure? a) (a) a)))

(define (package-full-name p)
  (string-append (package-name p) "-" (package-version p)))

(define (package-transitive-native-search-paths p)
  ;; The search paths of P and of the packages it propagates, transitively
  ;; (what a profile holding P needs), each once, P's first.
  (define (input-package in)
    (cond ((package? in) in)
          ((and (pair? in) (pair? (cdr in)) (package? (cadr in))) (cadr in))
          (else #f)))
  (let loop ((todo (list p)) (seen '()) (acc '()))
    (cond ((null? todo)
           (delete-duplicates (reverse acc)
                              (lambda (a b)
                                (equal? (search-path-specification->sexp a)
                                        (search-path-specification->sexp b)))))
          ((memq (car todo) seen)
           (loop (cdr todo) seen acc))
          (else
           (let ((q (car todo)))
             (loop (append (cdr todo)
                           (filter-map input-package (package-propagated-inputs q)))
                   (cons q seen)
                   (append (reverse (package-native-search-paths q)) acc)))))))

(define-record-type <origin>
  (%make-origin method uri sha256 file-name location)
  origin?
  (method origin-method)
  (uri origin-uri)
  (sha256 origin-sha256)
  (file-name origin-file-name)
  (location origin-location))

(define (origin-from-fields fields base location)
  (define (field name default)
    (cond ((assq name fields) => cdr)
          (base (case name
                  ((method) (origin-method base))
                  ((uri) (origin-uri base))
                  ((sha256) (origin-sha256 base))
                  ((file-name) (origin-file-name base))))
          ((eq? default 'required)
           (record-error location "origin" "no `~a' field" name))
          (else default)))
  (let ((o (%make-origin (field 'method 'required) (field 'uri 'required)
                         (field 'sha256 'required) (field 'file-name #f)
                         location)))
    (unless (and (bytevector? (origin-sha256 o))
                 (= 32 (bytevector-length (origin-sha256 o))))
      (record-error location "origin" "its sha256 must be (base32 \"...\") of 32 bytes"))
    o))

(define-syntax origin
  (lambda (x)
    (expand-record-form x 'origin #'origin-from-fields
                        '(method uri sha256 file-name))))

;;; A seed of the bootstrap, made by scripts/make-bootstrap and added to the
;;; store as it is: only its content hash names it.
(define-record-type <bootstrap-item>
  (bootstrap-item name sha256 recursive?)
  bootstrap-item?
  (name bootstrap-item-name)
  (sha256 bootstrap-item-sha256)
  (recursive? bootstrap-item-recursive?))

;;; A seed's hash for SYSTEM: its sha256 is one hash, or one per system,
;;; ((SYSTEM . HASH) ...), the binaries differing from one to the other.
(define (bootstrap-item-hash item system)
  (let ((h (bootstrap-item-sha256 item)))
    (cond ((not (pair? h)) h)
          ((assoc system h) => cdr)
          (else (error (format #f "~a: no bootstrap binaries for ~a (there are for ~a)"
                               (bootstrap-item-name item) system
                               (string-join (map car h) ", ")))))))

;;; A file or directory of this machine, added to the store as it is; a
;;; directory with SELECT? (a procedure of a file's name and stat, as in
;;; Guix) only with the files it selects (and the directories it keeps).
(define-record-type <local-file>
  (%local-file file name select?)
  local-file?
  (file local-file-file)
  (name local-file-name)
  (select? local-file-select?))

(define* (local-file file #:optional (name (basename file))
                     #:key (recursive? #t) (select? #f))
  (when (and select? (not (procedure? select?)))
    (error "local-file: #:select? is a procedure of a file name and its stat, not" select?))
  (%local-file file name select?))

;;; The files of a local file with #:select?, as names relative to it,
;;; sorted: regular files and symlinks; a directory is entered only when
;;; selected.  Bounded: no deeper than 64, no more than 100,000 files.
(define (local-file-selection lf)
  (define select? (local-file-select? lf))
  (define top (canonicalize-path (local-file-file lf)))
  (define count 0)
  (define (walk dir rel depth)
    (when (> depth 64)
      (error "local-file: a directory deeper than 64:" dir))
    (let ((names (sort (filter (lambda (n) (not (member n '("." ".."))))
                               (let ((d (opendir dir)))
                                 (let loop ((acc '()))
                                   (let ((e (readdir d)))
                                     (if (eof-object? e)
                                         (begin (closedir d) acc)
                                         (loop (cons e acc)))))))
                       string<?)))
      (append-map
       (lambda (n)
         (let* ((abs (string-append dir "/" n))
                (r (if (string-null? rel) n (string-append rel "/" n)))
                (st (lstat abs)))
           (cond ((not (select? abs st)) '())
                 ((eq? (stat:type st) 'directory) (walk abs r (+ depth 1)))
                 ((memq (stat:type st) '(regular symlink))
                  (set! count (+ count 1))
                  (when (> count 100000)
                    (error "local-file: more than 100,000 files selected in" top))
                  (list r))
                 (else '()))))
       names)))
  (and select?
       (begin
         (unless (eq? (stat:type (stat top)) 'directory)
           (error "local-file: #:select? needs a directory:" top))
         (walk top "" 0))))

(define-primitive %nix-base32->bytevector)

(define (base32 str)
  (unless (string? str)
    (error "base32: not a string:" str))
  (%nix-base32->bytevector str))

(define %current-system (make-parameter "x86_64-linux"))
;;; #f, or the GNU triplet of the machine packages are cross-built for
;;; (cix build --target=TRIPLET): build systems see it when lowering.
(define %current-target-system (make-parameter #f))

(define-primitive %package-derivation)

;;; The file name of PACKAGE's derivation (built natively, or cross-built
;;; for TARGET), written to the store; usable where cix writes
;;; derivations: in `cix build -e EXPR' or `-f FILE', whose value may be one.
;;; (Guix returns a <derivation> record; cix the file name.)
(define* (package-derivation package #:optional (system (%current-system)))
  (check-system 'package-derivation system)
  (%package-derivation package #f))

(define* (package-cross-derivation package target
                                   #:optional (system (%current-system)))
  (check-system 'package-cross-derivation system)
  (unless (string? target)
    (error "package-cross-derivation: the target is a GNU triplet, not" target))
  (%package-derivation package target))

;;; The systems cix builds for: x86-64, and i686 on an x86-64 kernel.
(define %supported-systems '("x86_64-linux" "i686-linux"))

(define (check-system who system)
  (unless (member system %supported-systems)
    (error (format #f "~a: cannot build for system ~s (only ~a)"
                   who system (string-join %supported-systems ", ")))))
