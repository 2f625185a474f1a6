;;; m4.scm - (gnu packages m4): the GNU macro processor
;;; SPDX-License-Identifier: GPL-3.0-or-later
(define-module (gnu packages m4)
  #:use-module (guix packages)
  #:use-module (guix download)
  #:use-module (guix build-system gnu)
  #:use-module (guix licenses)
  #:export (m4))

(define m4
  (package
    (name "m4")
    (version "1.4.19")
    (source (origin
              (method url-fetch)
              (uri (string-append "mirror://gnu/m4/m4-" version ".tar.xz"))
              (sha256
               (base32 "15mghcksh11saylpm86h1zkz4in0rbi0pk8i6nqxkdikdmfdxbk3"))))
    (build-system gnu-build-system)
    (arguments
     ;; The sandbox has no /bin/sh.
     ;; - Gnulib's posix_spawn tests (test-posix_spawn-dup2-stdout,
     ;;   test-posix_spawn-dup2-stdin) spawn BOURNE_SHELL: point it at the
     ;;   shell of the inputs, and they run.
     ;; - test-sigprocmask and test-pthread_sigmask1 send themselves a
     ;;   signal through system("sh -c ..."), which the bootstrap's libc
     ;;   runs as /bin/sh: taken out of the test list on that libc only
     ;;   (the distribution's glibc runs its own Bash).
     ;; Skipped by the suites themselves: checks/198.sysval (the shell of
     ;; system() is /bin/sh), the changeword checks (an option of configure
     ;; not enabled) and 34 gnulib tests: those that need locales (btowc,
     ;; mbrtowc, mbsinit, mbsstr, setlocale, strtod1), Windows (*-w32-*),
     ;; multithreading (asyncsafe-spin2, thread_create, pthread_sigmask2,
     ;; *-mt) or perl, git, cvs (update-copyright, vc-list-files).
     (list #:phases
           (let ((phases (modify-phases %standard-phases
                           (add-after 'configure 'patch-shell
                             "sed -i \"s|^# define BOURNE_SHELL \\\"/bin/sh\\\"|# define BOURNE_SHELL \\\"$(command -v sh)\\\"|\" lib/config.h
grep -q \"BOURNE_SHELL \\\"$(command -v sh)\\\"\" lib/config.h"))))
             (if (bootstrap-libc?)
                 (modify-phases phases
                   (add-after 'configure 'skip-sandbox-tests
                     "sed -i 's/test-pthread_sigmask1\\$(EXEEXT) //; s/test-sigprocmask\\$(EXEEXT) //' tests/Makefile
! sed -n '/^TESTS =/,/[^\\\\]$/p' tests/Makefile | grep 'sigprocmask\\|pthread_sigmask1'"))
                 phases))))
    (synopsis "The GNU implementation of the m4 macro processor")
    (description
     "M4 copies its input to its output, expanding the macros it meets on
the way.  Macros are either built in (for including files, running
commands, doing arithmetic, handling text and so on) or defined by the
user, and can take arguments and call each other recursively.  Autoconf,
sendmail's configuration and many other tools are written in m4.")
    (home-page "https://www.gnu.org/software/m4/")
    (license gpl3+)))
