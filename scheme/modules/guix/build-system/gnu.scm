;;; gnu.scm - (guix build-system gnu): configure, make, make check, make install
;;; SPDX-License-Identifier: GPL-3.0-or-later
(define-module (guix build-system gnu)
  #:use-module (guix build-system)
  #:use-module (srfi srfi-1)
  #:export (gnu-build-system %standard-phases modify-phases bootstrap-libc?))

;;; The phases are run by cix's builder (builder/, a C program compiled in
;;; the store by the bootstrap compiler, so an input of every package). A
;;; phase is its name (built in) or (NAME . SHELL-SNIPPET). In the flags,
;;; ${NAME} is the value of the build's variable NAME when the builder
;;; starts: ${out}, or an input's store path by its label (- and . as _).
(define %standard-phases
  '(set-paths unpack patch-source-shebangs configure
    patch-generated-file-shebangs build check install patch-shebangs strip
    shrink-runpath validate-runpath))

(define (phase-name p) (if (pair? p) (car p) p))

(define (check-phase who phases name)
  (unless (memq name (map phase-name phases))
    (error (format #f "modify-phases: ~a: no phase `~a'" who name))))

(define (snippet? x)
  (or (string? x)
      (error (format #f "modify-phases: a phase is a shell snippet (a string), not ~s" x))))

;;; One clause of modify-phases, as data: (delete NAME), (replace NAME
;;; SNIPPET), (add-before NAME NEW SNIPPET) or (add-after NAME NEW SNIPPET),
;;; done to PHASES.
(define (apply-clause c phases)
  (define (fail)
    (error (format #f "modify-phases: a clause is (delete 'NAME), (replace 'NAME SNIPPET), (add-before 'NAME 'NEW SNIPPET) or (add-after 'NAME 'NEW SNIPPET), not ~s" c)))
  (unless (and (list? c) (pair? c)) (fail))
  (case (car c)
    ((delete) (if (= (length c) 2) (%delete phases (cadr c)) (fail)))
    ((replace) (if (= (length c) 3) (%replace phases (cadr c) (caddr c)) (fail)))
    ((add-before add-after)
     (if (= (length c) 4)
         (%add phases (cadr c) (caddr c) (cadddr c) (eq? (car c) 'add-before))
         (fail)))
    (else (fail))))

;;; #:phases as Guix's packages write them in quoted arguments: the form
;;; (modify-phases %standard-phases CLAUSE...), not yet run, done here.
(define (phases-form x)
  (if (and (pair? x) (eq? (car x) 'modify-phases) (list? x) (pair? (cdr x)))
      (fold apply-clause
            (let ((base (phases-form (cadr x))))
              (if (eq? base '%standard-phases) %standard-phases base))
            (cddr x))
      x))

;;; (modify-phases PHASES (delete 'NAME) (replace 'NAME SNIPPET)
;;;                (add-before 'NAME 'NEW SNIPPET) (add-after 'NAME 'NEW SNIPPET) ...)
;;; Each clause becomes data for apply-clause, the same as a quoted form's:
;;; its keyword is matched by name, not by binding (a package module that
;;; imports (srfi srfi-1), whose `delete' is not Guile's, can still write
;;; (delete 'NAME)), its arguments are evaluated.
(define-syntax modify-phases
  (syntax-rules ()
    ((_ phases (kw arg ...) ...)
     (fold apply-clause phases (list (list 'kw arg ...) ...)))))

(define (%delete phases name)
  (check-phase 'delete phases name)
  (filter (lambda (p) (not (eq? (phase-name p) name))) phases))

(define (%replace phases name snippet)
  (check-phase 'replace phases name)
  (snippet? snippet)
  (map (lambda (p) (if (eq? (phase-name p) name) (cons name snippet) p)) phases))

(define (%add phases where name snippet before?)
  (check-phase (if before? 'add-before 'add-after) phases where)
  (snippet? snippet)
  (let loop ((ps phases))
    (cond ((null? ps) '())
          ((eq? (phase-name (car ps)) where)
           (if before?
               (cons* (cons name snippet) (car ps) (cdr ps))
               (cons* (car ps) (cons name snippet) (cdr ps))))
          (else (cons (car ps) (loop (cdr ps)))))))

(define (flags who x)
  (unless (and (list? x) (and-map string? x))
    (error (format #f "~a: a list of strings, not ~s" who x)))
  (for-each (lambda (f)
              (when (string-index f #\newline)
                (error (format #f "~a: a flag with a newline: ~s" who f))))
            x)
  (string-join x "\n"))

(define (bool x) (if x "1" "0"))

(define (variable-name phase)
  (string-append "phase_"
                 (string-map (lambda (c) (if (char=? c #\-) #\_ c))
                             (symbol->string phase))))

(define* (lower-gnu arguments location #:optional target)
  (define args
    (keyword-arguments->alist
     "gnu-build-system" arguments
     '(#:configure-flags #:make-flags #:tests? #:test-target #:parallel-build?
       #:parallel-tests? #:out-of-source? #:strip-binaries? #:validate-runpath?
       #:phases #:implicit-inputs? #:bin-sh)
     location))
  ;; Each value as Guix's packages may write it, quoted build-side code.
  (define (arg key default)
    (let ((p (assq key args)))
      (if p (build-side-value (string-append "#:" (symbol->string (keyword->symbol key))) (cdr p)) default)))
  (define phases (phases-form (arg #:phases %standard-phases)))
  (unless (and (list? phases)
               (every (lambda (p)
                        (or (symbol? p)
                            (and (pair? p) (symbol? (car p)) (string? (cdr p)))))
                      phases))
    (error (string-append
            (if location (string-append location ": ") "")
            (format #f "gnu-build-system: #:phases must be a list of phases (names, or names with shell snippets), not ~s; is a modify-phases form quoted?" phases))))
  ;; Cross-built: configure gets --build and --host, the target's tool
  ;; chain comes as an implicit input, and tests do not run (the build
  ;; machine cannot run what is built), as in Guix.
  `((env . ,(append
             `(("configureFlags" . ,(flags "#:configure-flags" (arg #:configure-flags '())))
               ("makeFlags" . ,(flags "#:make-flags" (arg #:make-flags '())))
               ("tests" . ,(bool (and (not target) (arg #:tests? #t))))
               ("testTarget" . ,(arg #:test-target "check"))
               ("parallelBuild" . ,(bool (arg #:parallel-build? #t)))
               ("parallelTests" . ,(bool (arg #:parallel-tests? #t)))
               ("outOfSource" . ,(bool (arg #:out-of-source? #f)))
               ("stripBinaries" . ,(bool (arg #:strip-binaries? #t)))
               ("validateRunpath" . ,(bool (arg #:validate-runpath? #t)))
               ("phases" . ,(string-join (map (compose symbol->string phase-name) phases) " ")))
             (if target
                 `(("target" . ,target) ("build" . ,(build-triplet)))
                 '())
             ;; #:bin-sh (input LABEL SUFFIX): that file of an input at
             ;; /bin/sh in the sandbox, for the first stages of the tool
             ;; chain only, whose seed programs run /bin/sh.
             ;; #:bin-sh 'shell: the shell of the implicit inputs, whichever
             ;; tool chain gives them (the final Bash, or the bootstrap's).
             (let ((sh (let ((sh (arg #:bin-sh #f)))
                         (if (eq? sh 'shell)
                             (if (eq? (implicit-tool-chain) 'bootstrap)
                                 '(input "bootstrap-tools" "/bin/sh")
                                 '(input "bash" "/bin/sh"))
                             sh))))
               (if sh
                   (begin
                     (unless (and (pair? sh) (eq? (car sh) 'input) (pair? (cdr sh))
                                  (string? (cadr sh)) (pair? (cddr sh))
                                  (string? (caddr sh)))
                       (error (format #f "gnu-build-system: #:bin-sh is (input LABEL FILE), not ~s" sh)))
                     `(("__cixBinSh" . (,(cadr sh) . ,(caddr sh)))))
                   '()))
             (filter-map (lambda (p)
                           (and (pair? p) (cons (variable-name (car p)) (cdr p))))
                         phases)))
    (builder . #f)
    (args . ())
    ;; #:implicit-inputs? #f: the builder only; the package names its tool
    ;; chain among its inputs (the stages of (gnu packages commencement)).
    (implicit . ,(append (if (arg #:implicit-inputs? #t)
                             (tool-chain-inputs '%final-inputs
                                                '(("bootstrap-tools" . %bootstrap-tools)
                                                  ("gnu-build" . %gnu-build)))
                             (bootstrap-packages '(("gnu-build" . %gnu-build))))
                         (if target
                             (list (list "cross-tools" (cross-tool-chain target)))
                             '())))))

;;; The GNU triplet of the build machine, from %current-system.
(define (build-triplet)
  (let* ((system ((module-ref (resolve-interface '(guix packages)) '%current-system)))
         (dash (string-index system #\-)))
    (string-append (substring system 0 dash) "-linux-gnu")))

(define (cross-tool-chain target)
  (unless (and (string? target) (> (string-length target) 0)
               (string-every (char-set-union char-set:letter+digit (char-set #\- #\_ #\.))
                             target))
    (error (format #f "gnu-build-system: bad target triplet ~s" target)))
  ((module-ref (resolve-interface '(gnu packages cross-base)) 'cross-tools) target))

;;; True when packages are built with the bootstrap binaries (as cix's
;;; tests build them): their C library's system() and popen() run /bin/sh,
;;; which the sandbox lacks, where the distribution's glibc runs its own
;;; Bash. Packages skip the tests that need it only then.
(define (bootstrap-libc?)
  (eq? (implicit-tool-chain) 'bootstrap))

(define gnu-build-system
  (build-system 'gnu "the GNU build system: ./configure && make && make check && make install"
                lower-gnu))
