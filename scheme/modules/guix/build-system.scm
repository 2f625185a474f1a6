;;; build-system.scm - (guix build-system): build systems, and what they make of arguments
;;; SPDX-License-Identifier: GPL-3.0-or-later
(define-module (guix build-system)
  #:use-module (srfi srfi-9)
  #:export (build-system build-system? build-system-name
            build-system-description build-system-lower
            keyword-arguments->alist implicit-tool-chain tool-chain-inputs
            bootstrap-packages))

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
