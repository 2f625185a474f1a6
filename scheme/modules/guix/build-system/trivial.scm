;;; trivial.scm - (guix build-system trivial): a command of the package's own
;;; SPDX-License-Identifier: GPL-3.0-or-later
(define-module (guix build-system trivial)
  #:use-module (guix build-system)
  #:export (trivial-build-system))

;;; #:builder is a shell snippet, run with -e by the bash of the implicit
;;; inputs (the final Bash and coreutils, or the bootstrap binaries: see
;;; implicit-tool-chain) with their bin directories in PATH, or a list
;;; (PROGRAM ARG ...) whose items are strings or (input LABEL [SUFFIX])
;;; (that input's store path, followed by SUFFIX). #:env adds variables;
;;; #:implicit-inputs? #f leaves out the implicit inputs (for the seeds and
;;; the boot stages), and so needs a list.
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
  (define implicit
    (if implicit?
        (tool-chain-inputs '%final-shell-inputs
                           '(("bootstrap-tools" . %bootstrap-tools)))
        '()))
  (when (and (string? builder) (null? implicit))
    (error (string-append (if location (string-append location ": ") "")
                          "trivial-build-system: a shell snippet as #:builder needs the implicit inputs' shell")))
  `((env . ,(arg #:env '()))
    ;; A snippet is run by the implicit inputs' bash (the first of them).
    (builder . ,(if (string? builder)
                    (cons (car (car implicit)) "/bin/bash")
                    (item (car builder))))
    (args . ,(if (string? builder)
                 (list "-e" "-c" (string-append (path-of implicit) builder))
                 (map item (cdr builder))))
    (implicit . ,implicit)))

;;; "export PATH=$a/bin:$b/bin\n" for the implicit inputs labelled a and b
;;; (their variables, - as _), put before a snippet.
(define (path-of implicit)
  (string-append
   "export PATH="
   (string-join (map (lambda (i)
                       (string-append "$" (string-map (lambda (c) (if (memv c '(#\- #\. #\+)) #\_ c))
                                                      (car i))
                                      "/bin"))
                     implicit)
                ":")
   "\n"))

(define trivial-build-system
  (build-system 'trivial "a build command of the package's own" lower-trivial))
