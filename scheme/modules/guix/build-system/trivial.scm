;;; trivial.scm - (guix build-system trivial): a command of the package's own
;;; SPDX-License-Identifier: GPL-3.0-or-later
(define-module (guix build-system trivial)
  #:use-module (guix build-system)
  #:export (trivial-build-system))

;;; #:builder is a shell snippet, run by the bootstrap's bash with -e, or a
;;; list (PROGRAM ARG ...) whose items are strings or (input LABEL [SUFFIX])
;;; (that input's store path, followed by SUFFIX). #:env adds variables;
;;; #:implicit-inputs? #f leaves out the bootstrap tools (for the seeds).
(define* (lower-trivial arguments location #:optional target)
  (define args
    (keyword-arguments->alist "trivial-build-system" arguments
                              '(#:builder #:env #:implicit-inputs?) location))
  (define (arg key default) (let ((p (assq key args))) (if p (cdr p) default)))
  (define builder (arg #:builder #f))
  (define (item x)
    (cond ((string? x) x)
          ((and (pair? x) (eq? (car x) 'input) (pair? (cdr x)) (string? (cadr x)))
           (cons (cadr x) (if (pair? (cddr x)) (caddr x) "")))
          (else (error (format #f "trivial-build-system: bad item in #:builder: ~s" x)))))
  (define implicit?
    (arg #:implicit-inputs? #t))
  (unless builder
    (error (string-append (if location (string-append location ": ") "")
                          "trivial-build-system: no #:builder")))
  `((env . ,(arg #:env '()))
    (builder . ,(if (string? builder) #f (item (car builder))))
    (args . ,(if (string? builder) (list "-e" "-c" builder) (map item (cdr builder))))
    (implicit . ,(if implicit?
                     (list (list "bootstrap-tools"
                                 (module-ref (resolve-interface '(gnu packages bootstrap))
                                             '%bootstrap-tools)))
                     '()))))

(define trivial-build-system
  (build-system 'trivial "a build command of the package's own" lower-trivial))
