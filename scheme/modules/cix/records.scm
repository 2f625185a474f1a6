;;; records.scm - (cix records): the field syntax of packages and origins
;;; SPDX-License-Identifier: GPL-3.0-or-later
(define-module (cix records)
  #:use-module (ice-9 pretty-print)
  #:export (expand-record-form location->string record-error
            define-primitive short-repr))

;;; The primitives are cix's own, in C (scheme/guile.c), in the module
;;; (cix primitives) that exists only inside cix: they are looked up when
;;; called, so that these modules compile anywhere.
(define-syntax-rule (define-primitive name)
  (define (name . args)
    (apply (module-ref (resolve-interface '(cix primitives)) 'name) args)))

;;; (NAME (FIELD EXPR) ... (inherit BASE)) becomes
;;;   (let* ((FIELD EXPR) ...) (BUILDER (list (cons 'FIELD FIELD) ...) BASE 'LOCATION))
;;; so that a field sees the fields written before it. An unknown field is
;;; a syntax error at its place. A field of THUNKED is bound to a procedure
;;; of no arguments that computes it, as Guix's thunked fields: its value is
;;; worked out each time it is asked for, so that it sees the parameters of
;;; that time (%current-system when a package is lowered).
(define* (expand-record-form x who builder field-names #:optional (thunked '()))
  (define location
    (let ((props (syntax-source x)))
      (and props (location->string props))))
  (syntax-case x ()
    ((_ clause ...)
     (let loop ((cs #'(clause ...)) (binds '()) (base #f))
       (syntax-case cs ()
         (()
          (with-syntax (((bind ...) (reverse binds))
                        ((pair ...)
                         (map (lambda (b)
                                (syntax-case b ()
                                  ((f e) #'(cons 'f f))))
                              (reverse binds)))
                        (base-expr (or base #'#f))
                        (loc (datum->syntax x location))
                        (build builder))
            #'(let* (bind ...) (build (list pair ...) base-expr loc))))
         (((head arg) . rest)
          (and (identifier? #'head) (eq? (syntax->datum #'head) 'inherit))
          (loop #'rest binds #'arg))
         (((f e) . rest)
          (identifier? #'f)
          (if (memq (syntax->datum #'f) field-names)
              (loop #'rest
                    (cons (if (memq (syntax->datum #'f) thunked)
                              #'(f (lambda () e))
                              #'(f e))
                          binds)
                    base)
              (syntax-violation who
                                (format #f "unknown field `~a'" (syntax->datum #'f))
                                x (car cs))))
         ((c . rest)
          (syntax-violation who "expected (FIELD VALUE)" x #'c)))))))

;;; Guile's way: FILE:LINE:COLUMN, the line from 1, the column from 0.
(define (location->string props)
  (let ((file (assq-ref props 'filename))
        (line (assq-ref props 'line))
        (column (assq-ref props 'column)))
    (and line
         (format #f "~a:~a:~a" (or file "<unknown>") (+ 1 line) (or column 0)))))

(define (record-error location who fmt . args)
  (error (string-append (if location (string-append location ": ") "")
                        who ": " (apply format #f fmt args))))

;;; A value as `write' shows it, cut to a line's worth: for messages about
;;; values that may be large (a package record, a list of them).
(define (short-repr x)
  (call-with-output-string
   (lambda (port) (truncated-print x port #:width 72))))
