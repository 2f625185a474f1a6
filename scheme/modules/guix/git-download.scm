;;; git-download.scm - (guix git-download): the files of a Git checkout
;;; SPDX-License-Identifier: GPL-3.0-or-later
(define-module (guix git-download)
  #:use-module (ice-9 popen)
  #:use-module (ice-9 rdelim)
  #:use-module (srfi srfi-1)
  #:export (git-predicate))

;;; (git-predicate DIRECTORY): a procedure of a file name and its stat, as
;;; local-file's #:select? takes, true for the files Git tracks in the
;;; checkout DIRECTORY and for the directories on their way, as in Guix:
;;; (local-file DIR "name" #:recursive? #t #:select? (git-predicate DIR))
;;; is the checkout without its build products and untracked files.
(define (git-predicate directory)
  (define top (canonicalize-path directory))
  (define (ls-files)
    ;; -z: names as they are, NUL-terminated; no quoting to undo.
    (let* ((port (open-pipe* OPEN_READ "git" "-C" top "ls-files" "-z"))
           (text (read-delimited "" port))
           (status (close-pipe port)))
      (unless (and (zero? (status:exit-val status)) (string? text))
        (error "git-predicate: `git ls-files' failed in" top))
      (filter (lambda (s) (not (string-null? s))) (string-split text #\nul))))
  ;; Git runs at the first call, not when the predicate is made: a module
  ;; defining a package with it loads without running Git (for every
  ;; `cix package -A', as any user), and Git runs only to lower it.
  (define files (make-hash-table))
  (define dirs (make-hash-table))
  (define read? #f)
  (define (read-files!)
    (unless read?
      (for-each (lambda (f)
                  (hash-set! files f #t)
                  (let loop ((f f))
                    (let ((slash (string-rindex f #\/)))
                      (when slash
                        (let ((d (substring f 0 slash)))
                          (hash-set! dirs d #t)
                          (loop d))))))
                (ls-files))
      (set! read? #t)))
  (lambda (file stat)
    (read-files!)
    (let ((rel (and (string-prefix? (string-append top "/") file)
                    (substring file (+ 1 (string-length top))))))
      (and rel
           (if (eq? (stat:type stat) 'directory)
               (hash-ref dirs rel #f)
               (hash-ref files rel #f))))))
