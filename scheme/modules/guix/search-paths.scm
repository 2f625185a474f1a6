;;; search-paths.scm - (guix search-paths): the environment variables packages ask for
;;; SPDX-License-Identifier: GPL-3.0-or-later
(define-module (guix search-paths)
  #:use-module (srfi srfi-1)
  #:use-module (srfi srfi-9)
  #:use-module (cix records)
  #:export (search-path-specification search-path-specification?
            search-path-specification-variable search-path-specification-files
            search-path-specification-separator search-path-specification-file-type
            search-path-specification-file-pattern
            search-path-specification->sexp
            $PATH))

;;; As in Guix: a package says which variable its programs read and which
;;; files of a profile go in it,
;;;   (search-path-specification
;;;     (variable "TERMINFO_DIRS")
;;;     (files '("share/terminfo")))
;;; with (separator ":") by default (#f: one file, the first found),
;;; (file-type 'directory) and (file-pattern #f) (a regexp: the files of
;;; that type below FILES whose base name matches). `cix package
;;; --search-paths' prints them for the profile's packages.

(define-record-type <search-path-specification>
  (%make-search-path-specification variable files separator file-type file-pattern)
  search-path-specification?
  (variable search-path-specification-variable)
  (files search-path-specification-files)
  (separator search-path-specification-separator)
  (file-type search-path-specification-file-type)
  (file-pattern search-path-specification-file-pattern))

(define (shell-name? s)
  (and (string? s)
       (> (string-length s) 0)
       (<= (string-length s) 256)
       (char-set-contains? (char-set-union (char-set #\_) (ucs-range->char-set 65 91)
                                           (ucs-range->char-set 97 123))
                           (string-ref s 0))
       (string-every (char-set-union (char-set #\_) (ucs-range->char-set 48 58)
                                     (ucs-range->char-set 65 91)
                                     (ucs-range->char-set 97 123))
                     s)))

(define (clean-string? s)
  (and (string? s) (> (string-length s) 0) (not (string-index s #\nul))))

(define (search-path-from-fields fields base location)
  (define (field name default)
    (cond ((assq name fields) => cdr)
          (base (case name
                  ((variable) (search-path-specification-variable base))
                  ((files) (search-path-specification-files base))
                  ((separator) (search-path-specification-separator base))
                  ((file-type) (search-path-specification-file-type base))
                  ((file-pattern) (search-path-specification-file-pattern base))))
          ((eq? default 'required)
           (record-error location "search-path-specification" "no `~a' field" name))
          (else default)))
  (define (fail fmt . args)
    (apply record-error location "search-path-specification" fmt args))
  (when (and base (not (search-path-specification? base)))
    (fail "`inherit' needs a search-path-specification, not ~s" base))
  (let ((variable (field 'variable 'required))
        (files (field 'files 'required))
        (separator (field 'separator ":"))
        (file-type (field 'file-type 'directory))
        (file-pattern (field 'file-pattern #f)))
    (unless (shell-name? variable)
      (fail "its variable must be a shell variable name, not ~s" variable))
    (unless (and (list? files) (<= (length files) 256)
                 (every (lambda (f) (and (clean-string? f)
                                         (not (string-prefix? "/" f))))
                        files))
      (fail "its files must be a list of relative file names, not ~s" files))
    (unless (or (not separator)
                (and (clean-string? separator)
                     (not (string-any (char-set #\" #\\ #\$ #\` #\}) separator))
                     (not (string-any (ucs-range->char-set 0 32) separator))))
      (fail "its separator must be #f or a string without shell characters, not ~s"
            separator))
    (unless (memq file-type '(directory regular symlink))
      (fail "its file-type must be 'directory, 'regular or 'symlink, not ~s" file-type))
    (unless (or (not file-pattern)
                (and (clean-string? file-pattern) (<= (string-length file-pattern) 1024)))
      (fail "its file-pattern must be #f or a regular expression, not ~s" file-pattern))
    (%make-search-path-specification variable files separator file-type file-pattern)))

(define-syntax search-path-specification
  (lambda (x)
    (expand-record-form x 'search-path-specification #'search-path-from-fields
                        '(variable files separator file-type file-pattern))))

(define (search-path-specification->sexp spec)
  ;; (VARIABLE SEPARATOR FILE-TYPE FILE-PATTERN FILES): what cix reads in C.
  (list (search-path-specification-variable spec)
        (search-path-specification-separator spec)
        (search-path-specification-file-type spec)
        (search-path-specification-file-pattern spec)
        (search-path-specification-files spec)))

(define $PATH
  (search-path-specification
   (variable "PATH")
   (files '("bin" "sbin"))))
