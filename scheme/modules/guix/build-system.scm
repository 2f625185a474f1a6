;;; build-system.scm - (guix build-system): build systems, and what they make of arguments
;;; SPDX-License-Identifier: GPL-3.0-or-later
(define-module (guix build-system)
  #:use-module (srfi srfi-1)
  #:use-module (srfi srfi-9)
  #:export (build-system build-system? build-system-name
            build-system-description build-system-lower
            keyword-arguments->alist build-side-value implicit-tool-chain
            tool-chain-inputs bootstrap-packages))

;;; A build system turns a package's arguments into what its derivation
;;; needs: (lower ARGUMENTS LOCATION TARGET) gives an alist with
;;;   env       ((NAME . VALUE) ...)     variables of the builder
;;;   builder   #f or a program          (#f: the build system's own)
;;;   args      (ARG ...)                strings, or (input LABEL [SUFFIX])
;;;   implicit  ((LABEL PACKAGE) ...)    inputs the build system adds
;;; TARGET is #f for a native build, or the GNU triplet of the machine the
;;; package is cross-built for (its implicit inputs are then still for the
;;; build machine). The derivation itself is made by cix, in C.
(define-record-type <build-system>
  (build-system name description lower)
  build-system?
  (name build-system-name)
  (description build-system-description)
  (lower build-system-lower))

;;; (#:a 1 #:b 2) -> ((#:a . 1) (#:b . 2)), refusing any keyword not in allowed.
(define (keyword-arguments->alist who args allowed location)
  (define (fail fmt . rest)
    (error (string-append (if location (string-append location ": ") "")
                          who ": " (apply format #f fmt rest))))
  (let loop ((args args) (acc '()))
    (cond ((null? args) (reverse acc))
          ((not (keyword? (car args)))
           (fail "expected a keyword in the arguments, got ~s" (car args)))
          ((null? (cdr args))
           (fail "keyword ~s has no value" (car args)))
          ((not (memq (car args) allowed))
           (fail "unknown argument ~s" (car args)))
          (else (loop (cddr args) (cons (cons (car args) (cadr args)) acc))))))

;;; Guix's packages write their arguments as code of the build side,
;;; quoted: '(#:configure-flags '("--disable-nls")), or
;;; (list (string-append "--with-gmp=" (assoc-ref %build-inputs "gmp"))).
;;; Guix runs that code in the build; cix's builder is a C program that
;;; takes strings, so such a value is worked out here, when the package is
;;; lowered, into what it would give: quotes dropped, (list ...) and
;;; (string-append ...) done, and the build's own values (an output, an
;;; input) written as ${NAME}, which gnu-build puts in (the output "out",
;;; the input of label LABEL with - and . as _). Anything else (a lambda,
;;; a call of another procedure) is refused with the form named: it would
;;; need Scheme in the build, which cix has not.
(define (build-variable label)
  (string-append "${" (string-map (lambda (c) (if (memv c '(#\- #\.)) #\_ c)) label) "}"))

(define %build-side-alists
  '(%outputs %build-inputs outputs inputs native-inputs %build-target-inputs))

(define (build-side-value who x)
  (define (fail form)
    (error (format #f "~a: ~s is code of Guix's build side, which cix does not run (strings, lists of strings, booleans, numbers, and (list ...), (string-append ...), (assoc-ref %outputs \"out\"), (assoc-ref %build-inputs \"LABEL\") are worked out when the package is lowered; a phase is a shell snippet)" who form)))
  (let eval ((x x) (depth 0))
    (when (> depth 64)
      (error (format #f "~a: an argument nested too deeply" who)))
    (cond ((or (string? x) (boolean? x) (number? x) (keyword? x) (null? x)) x)
          ((eq? x '%output) "${out}")
          ((symbol? x) x)
          ((not (pair? x)) (fail x))
          ((and (eq? (car x) 'quote) (pair? (cdr x)) (null? (cddr x)))
           (eval (cadr x) (+ depth 1)))
          ((and (eq? (car x) 'list) (list? x))
           (map (lambda (e) (eval e (+ depth 1))) (cdr x)))
          ((and (eq? (car x) 'string-append) (list? x))
           (let ((parts (map (lambda (e) (eval e (+ depth 1))) (cdr x))))
             (if (every string? parts) (apply string-append parts) (fail x))))
          ((and (eq? (car x) 'assoc-ref) (= (length x) 3)
                (memq (cadr x) %build-side-alists) (string? (caddr x)))
           (build-variable (caddr x)))
          ((and (list? x)
                (memq (car x) '(lambda lambda* assoc-ref which search-input-file
                                invoke system* substitute* let let* begin if)))
           (fail x))
          ;; A list of values (flags, phases already made and the like),
          ;; or a pair such as (NAME . SNIPPET).
          (else (cons (eval (car x) (+ depth 1)) (eval (cdr x) (+ depth 1)))))))

;;; Which tool chain the build systems add to a package's inputs:
;;;   final      the distribution's own, (gnu packages commencement)'s
;;;              %final-inputs (the default)
;;;   bootstrap  the bootstrap binaries themselves, as the boot stages do;
;;;              what cix's own test suite builds with, so that it needs
;;;              no GCC or glibc built first
;;; from the environment variable CIX_TOOL_CHAIN. Packages built one way
;;; and the other are different derivations.
(define (implicit-tool-chain)
  (let ((v (getenv "CIX_TOOL_CHAIN")))
    (cond ((or (not v) (string=? v "") (string=? v "final")) 'final)
          ((string=? v "bootstrap") 'bootstrap)
          (else (error (format #f "CIX_TOOL_CHAIN: unknown tool chain `~a' (final or bootstrap)" v))))))

;;; The inputs a build system adds to a package, looked up when it is
;;; lowered: with the final tool chain, the list that the procedure FINAL
;;; of (gnu packages commencement) gives; with the bootstrap one, the
;;; packages of (gnu packages bootstrap) that BOOTSTRAP names, a list of
;;; (LABEL . VARIABLE).
(define (tool-chain-inputs final bootstrap)
  (case (implicit-tool-chain)
    ((bootstrap) (bootstrap-packages bootstrap))
    (else ((module-ref (resolve-interface '(gnu packages commencement)) final)))))

;;; ((LABEL . VARIABLE) ...) -> ((LABEL PACKAGE) ...), the packages of
;;; (gnu packages bootstrap).
(define (bootstrap-packages labelled)
  (let ((m (resolve-interface '(gnu packages bootstrap))))
    (map (lambda (b) (list (car b) (module-ref m (cdr b)))) labelled)))
