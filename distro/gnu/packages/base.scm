;;; base.scm - (gnu packages base): the GNU packages at the base of the system
;;; SPDX-License-Identifier: GPL-3.0-or-later
(define-module (gnu packages base)
  #:use-module (guix packages)
  #:use-module (guix download)
  #:use-module (guix build-system gnu)
  #:use-module (guix licenses)
  #:use-module ((gnu packages bootstrap) #:select (gnu-triplet))
  #:export (hello
            sed
            grep
            diffutils
            patch
            findutils
            coreutils
            gnu-make
            tar))

(define hello
  (package
    (name "hello")
    (version "2.10")
    (source (origin
              (method url-fetch)
              (uri (string-append "mirror://gnu/hello/hello-" version ".tar.gz"))
              (sha256
               (base32 "0ssi1wpaf7plaswqqjwigppsg5fyh99vdlb9kzl7c9lng89ndq1i"))))
    (build-system gnu-build-system)
    (synopsis "Example GNU package that greets the world")
    (description
     "GNU Hello prints a greeting, \"Hello, world!\" by default, in the
language of the user.  It exists to show how a GNU package is written,
configured, built, tested and installed.")
    (home-page "https://www.gnu.org/software/hello/")
    (license gpl3+)))

;; Two gnulib tests that sed, grep, diffutils and findutils carry ask
;; system() to run "sh -c 'sleep 1; kill ...'": the bootstrap's libc runs
;; /bin/sh, which the sandbox lacks, so they abort.  Built with the
;; bootstrap binaries (as cix's tests do), they are made to exit 77, which
;; the harness reports as SKIP; the distribution's glibc runs its own
;; shell, and they run.
(define %skip-gnulib-system-tests
  "for t in pthread_sigmask1 sigprocmask; do
  test -f gnulib-tests/test-$t.c
  printf 'int main (void) { return 77; }\\n' >gnulib-tests/test-$t.c
done")

;; PHASES, with the skip of those two tests when built on the bootstrap's
;; C library.
(define (with-gnulib-system-tests phases)
  (if (bootstrap-libc?)
      (modify-phases phases
        (add-after 'unpack 'skip-gnulib-system-tests %skip-gnulib-system-tests))
      phases))

(define sed
  (package
    (name "sed")
    (version "4.9")
    (source (origin
              (method url-fetch)
              (uri (string-append "mirror://gnu/sed/sed-" version ".tar.xz"))
              (sha256
               (base32 "10aijwj1sqqr6njsfbcjh9wjv95bl78jp1nn9933kmqw5rrnn8kf"))))
    (build-system gnu-build-system)
    (arguments
     ;; On the bootstrap's C library only, tests taken out of the suite:
     ;; execute-tests.sh, posix-mode-s.sh, sandbox.sh and eval.sh run sed's
     ;; 'e' command or s///e flag, which popen() a command through /bin/sh:
     ;; that libc looks for it there, and the sandbox has none.  Skipped by
     ;; the suite itself: the ones needing locales (en_US.UTF-8,
     ;; ru_RU.UTF-8, el_GR, ja_JP), perl (misc.pl, debug.pl), valgrind,
     ;; SELinux, or O_TEXT, and the costly regex-max-int.sh.
     (list #:phases
           (if (bootstrap-libc?)
               (modify-phases (with-gnulib-system-tests %standard-phases)
                 (add-after 'configure 'skip-shell-tests
                   "sed -i -E 's#testsuite/(execute-tests|posix-mode-s|sandbox|eval)\\.sh ##' Makefile
! grep -E 'testsuite/(execute-tests|posix-mode-s|sandbox|eval)\\.sh' Makefile"))
               %standard-phases)))
    (synopsis "Stream editor")
    (description
     "Sed reads text, line by line, from files or its standard input, edits
it with a small language of commands (substitutions by regular expression,
deletions, insertions, transliterations) and writes the result.  It is the
usual tool for non-interactive edits in scripts and build systems.")
    (home-page "https://www.gnu.org/software/sed/")
    (license gpl3+)))

(define grep
  (package
    (name "grep")
    (version "3.8")
    (source (origin
              (method url-fetch)
              (uri (string-append "mirror://gnu/grep/grep-" version ".tar.xz"))
              (sha256
               (base32 "10n3mc9n1xmg85hpxyr4wiqzfp27ffxzwhvkv021j27vnk0pr3a9"))))
    (build-system gnu-build-system)
    ;; Built without PCRE (no grep -P): libpcre2 is not packaged.
    ;; Skipped by the suite itself: the pcre* tests (no PCRE), the ones
    ;; needing locales, perl (hash-collision-perf), git or cvs, and the
    ;; "expensive" ones; triple-backref is an expected failure upstream.
    (arguments
     (list #:phases (with-gnulib-system-tests %standard-phases)))
    (synopsis "Print the lines of files that match a pattern")
    (description
     "Grep searches files or its standard input for lines matching regular
expressions (basic, extended, or fixed strings) and prints them, or counts
them, or names the files holding them.")
    (home-page "https://www.gnu.org/software/grep/")
    (license gpl3+)))

(define diffutils
  (package
    (name "diffutils")
    (version "3.8")
    (source (origin
              (method url-fetch)
              (uri (string-append "mirror://gnu/diffutils/diffutils-"
                                  version ".tar.xz"))
              (sha256
               (base32 "1v4g8gi0lgakqa7iix8s4fq7lq6l92vw3rjd9wfd2rhjng8xggd6"))))
    (build-system gnu-build-system)
    (arguments
     (list #:phases (modify-phases (with-gnulib-system-tests %standard-phases)
                      ;; tests/large-subopt pipes diff's output into perl and
                      ;; is an expected failure: with no perl in the build
                      ;; it would "pass" unexpectedly, which fails the suite.
                      ;; It skips when perl is not there.  Skipped by the
                      ;; suite itself: strip-trailing-cr (valgrind) and
                      ;; brief-vs-stat-zero-kernel-lies (/proc/cmdline).
                      (add-after 'unpack 'skip-perl-test
                        "sed -i '/^fail=0$/i command -v perl >/dev/null || skip_ \"requires perl\"' tests/large-subopt
grep -q 'skip_ \"requires perl\"' tests/large-subopt"))))
    (synopsis "Compare files and show their differences")
    (description
     "The GNU diffutils are diff, which shows line by line how two files or
directories differ, cmp, which finds the first differing byte, diff3, which
compares three files, and sdiff, which merges two files interactively.")
    (home-page "https://www.gnu.org/software/diffutils/")
    (license gpl3+)))

(define patch
  (package
    (name "patch")
    (version "2.7.6")
    (source (origin
              (method url-fetch)
              (uri (string-append "mirror://gnu/patch/patch-"
                                  version ".tar.xz"))
              (sha256
               (base32 "1zfqy4rdcy279vwn2z1kbv19dcfw25d2aqy9nzvdkq5bjzd0nqdc"))))
    (build-system gnu-build-system)
    (arguments
     ;; patch applies ed scripts (patch -e) by popen()ing ed, through
     ;; /bin/sh: on the bootstrap's C library, whose utilities have an ed,
     ;; the ed parts of crlf-handling and need-filename are skipped, as the
     ;; suite does when ed is not there (as it is not on the distribution's
     ;; own tool chain, which has no ed).  dash-o-append and context-format
     ;; are expected failures upstream.
     (list #:phases
           (if (bootstrap-libc?)
               (modify-phases %standard-phases
                 (add-after 'unpack 'skip-ed-tests
                   "sed -i 's|^    type ed >/dev/null 2>/dev/null$|    false|' tests/test-lib.sh
grep -A1 '^have_ed' tests/test-lib.sh | grep -q '^    false$'"))
               %standard-phases)))
    (synopsis "Apply a diff to files")
    (description
     "Patch reads a difference listing, as made by diff in its normal,
context or unified formats, and applies it to the original files, finding
where each change goes even when the lines have moved.")
    (home-page "https://savannah.gnu.org/projects/patch/")
    (license gpl3+)))

(define findutils
  (package
    (name "findutils")
    (version "4.9.0")
    (source (origin
              (method url-fetch)
              (uri (string-append "mirror://gnu/findutils/findutils-"
                                  version ".tar.xz"))
              (sha256
               (base32 "1zk2sighc26bfdsm97bv7cd1cnvq7r4gll4zqpnp0rs3kp0bigx2"))))
    (build-system gnu-build-system)
    ;; The DejaGnu suites (find/testsuite, xargs/testsuite) do not run:
    ;; runtest (DejaGnu, with expect and Tcl) is not packaged, and
    ;; 'make check' says so with a warning.  Skipped by the suite itself:
    ;; inode-zero.sh (no file with inode 0 here) and the "expensive"
    ;; many-dir-entries-vs-OOM.sh.
    (arguments
     (list #:phases (modify-phases (with-gnulib-system-tests %standard-phases)
                      ;; updatedb is made from updatedb.sh during the build,
                      ;; and help-version.sh runs it before the install
                      ;; phase patches its "#! /bin/sh"; two tests write
                      ;; scripts starting with "#!/bin/sh".  There is no
                      ;; /bin/sh in the sandbox: they get the inputs' sh.
                      (add-after 'unpack 'patch-bin-sh
                        "sed -i \"1s|^#! */bin/sh$|#!$(command -v sh)|\" locate/updatedb.sh
head -1 locate/updatedb.sh | grep -qx \"#!$(command -v sh)\"
for f in tests/find/exec-plus-last-file.sh tests/xargs/verbose-quote.sh; do
  sed -i \"s|'#!/bin/sh'|'#!$(command -v sh)'|\" $f
  grep -q \"'#!$(command -v sh)'\" $f
done"))))
    (synopsis "Find files and run commands on them")
    (description
     "The GNU findutils are find, which walks directory trees and selects
files by name, type, size, time and other tests, xargs, which builds command
lines from its input, and locate and updatedb, which search a database of
file names.")
    (home-page "https://www.gnu.org/software/findutils/")
    (license gpl3+)))

(define coreutils
  (package
    (name "coreutils")
    (version "9.1")
    (source (origin
              (method url-fetch)
              (uri (string-append "mirror://gnu/coreutils/coreutils-"
                                  version ".tar.xz"))
              (sha256
               (base32 "08q4b0w7mwfxbqjs712l6wrwl2ijs7k50kssgbryg9wbsw8g98b1"))))
    (build-system gnu-build-system)
    ;; Guix gives it acl, gmp and libcap; none of them is packaged yet,
    ;; so it is built without ACLs or capabilities, and 'expr' and 'factor'
    ;; use the mini-gmp coreutils carries.  The manual pages are the ones
    ;; the tarball ships (help2man, to remake them, needs perl).
    (outputs '("out" "debug"))
    (arguments
     ;; Skipped by the suite itself (214 of the 634 tests of tests/, 52 of
     ;; the 370 of gnulib-tests/): the ones needing root, perl (all the .pl
     ;; tests), locales, ACLs, valgrind, SELinux, a tty, other users or
     ;; groups, or the "expensive" and "very expensive" ones.
     (list #:phases (modify-phases (with-gnulib-system-tests %standard-phases)
                      ;; env.sh writes scripts starting with "#!/bin/sh" and
                      ;; runs them; there is no /bin/sh in the sandbox.
                      ;; test-freadptr and test-freadseek compare what they
                      ;; read with their own .sh script, whose first line
                      ;; patch-source-shebangs makes the inputs' sh.
                      (add-after 'unpack 'patch-test-scripts
                        "sed -i \"s|^#!/bin/sh$|#!$(command -v sh)|\" tests/misc/env.sh
test $(grep -c \"^#!$(command -v sh)$\" tests/misc/env.sh) = 3
for t in freadptr freadseek; do
  sed -i \"s|#!/bin/sh|#!$(command -v sh)|\" gnulib-tests/test-$t.c
  grep -q \"#!$(command -v sh)\" gnulib-tests/test-$t.c
done")
                      ;; chmod/setgid.sh and install/install-C.sh set the
                      ;; setgid bit (chmod g+s, install -m2755): the sandbox,
                      ;; like Nix's, makes that fail with EPERM.
                      (add-after 'unpack 'skip-setgid-tests
                        "for t in tests/chmod/setgid.sh tests/install/install-C.sh; do
  sed -i \"/^print_ver_ /a skip_ 'the build sandbox refuses setuid and setgid bits'\" $t
  grep -q \"^skip_ 'the build sandbox refuses\" $t
done"))))
    (synopsis "The basic file, text and shell utilities of GNU")
    (description
     "Coreutils holds the commands every Unix-like system is expected to
have: ls, cp, mv, rm and the other file tools, cat, sort, cut, head, tail,
wc and the other text tools, and the small utilities scripts rely on, such
as echo, test, env, date, id and sleep.")
    (home-page "https://www.gnu.org/software/coreutils/")
    (license gpl3+)))

(define tar
  (package
    (name "tar")
    (version "1.34")
    (source (origin
              (method url-fetch)
              (uri (string-append "mirror://gnu/tar/tar-" version ".tar.xz"))
              ;; Debian's tar_1.34+dfsg.orig.tar.xz, not upstream's tarball
              ;; (63bebd26...): Debian took out the Texinfo manual, under
              ;; the GFDL (doc/ keeps the manual pages and a stub Makefile).
              ;; The offline mirror is filled from Debian, so the package
              ;; takes its hash.
              (sha256
               (base32 "0i281sxcbh6aiam52nvrgsa7q8ri6mxkffzvvsa874nb82ah4mvx"))))
    (build-system gnu-build-system)
    (arguments
     ;; tar runs compression programs (-I, -z...), --to-command,
     ;; --info-script and checkpoint actions through "/bin/sh -c", which
     ;; the sandbox (and a store-only system) lacks: it gets the shell of
     ;; the inputs instead.
     ;; Taken out of the suite on the bootstrap's C library: filerem02
     ;; ("toplevel file removed"), whose genfile helper removes a directory
     ;; during the run through system(), that is /bin/sh there.  Skipped by the suite itself: the lzip and zstd
     ;; tests (not packaged), the xattrs, ACL, SELinux and
     ;; capabilities tests (setfattr, getfacl, chcon, setcap and libacl are
     ;; not packaged either; opcomp06 too, for setfattr), listed05 (root, to mount a ramfs),
     ;; multiv07, volsize and the star tests (archives to download
     ;; beforehand), and onetop05 (the sandbox refuses setgid bits).
     (list #:make-flags (if (bootstrap-libc?) '("TESTSUITEFLAGS=-k !filerem02") '())
           #:phases (modify-phases %standard-phases
                      (add-after 'unpack 'set-shell-file-name
                        "sed -i \"s|\\\"/bin/sh\\\"|\\\"$(command -v sh)\\\"|g\" src/system.c
grep -q \"\\\"$(command -v sh)\\\"\" src/system.c
! grep -q '\"/bin/sh\"' src/system.c")
                      ;; Debian's stub doc/Makefile installs nothing: the
                      ;; manual pages are installed as upstream's would.
                      (add-after 'install 'install-manual-pages
                        "install -D -m 644 doc/tar.1 $out/share/man/man1/tar.1
install -D -m 644 doc/rmt.8 $out/share/man/man8/rmt.8"))))
    (synopsis "Make and unpack tar archives")
    (description
     "GNU tar packs files and directory trees, with their names, modes,
owners and times, into one archive file, and lists, compares, updates or
extracts them again.  It reads and writes the POSIX formats and GNU's own,
handles sparse files and incremental backups, and compresses through gzip,
bzip2, xz and others.")
    (home-page "https://www.gnu.org/software/tar/")
    (license gpl3+)))

;; Debian's make-dfsg orig tarball (see gnu-make) is a repacked tree with no
;; configure script, no Makefile.in at the top and none of the gnulib m4
;; files configure.ac calls for (Debian regenerates them at build time); with
;; no autotools packaged, and not even the macros to run them on,
;; make is configured and built by hand for glibc on GNU/Linux (x86-64 or
;; i686: what differs, the host's name and the size of off_t, is given).
;; The configuration: src/config.h.in with what configure finds on glibc 2.36
;; (posix_spawn, the jobserver, 'load', high-resolution time stamps, glibc's
;; glob), without NLS or Guile.
(define (gnu-make-configure)
  (string-append "# src/config.h from src/config.h.in, for glibc 2.36 on GNU/Linux
defs=\"HAVE_ALLOCA HAVE_ALLOCA_H HAVE_ATEXIT HAVE_CLOCK_GETTIME
HAVE_DECL_DLERROR HAVE_DECL_DLOPEN HAVE_DECL_DLSYM HAVE_DECL_GETDTABLESIZE
HAVE_DECL_PROGRAM_INVOCATION_NAME HAVE_DECL_PROGRAM_INVOCATION_SHORT_NAME
HAVE_DECL_STRERROR_R HAVE_DIRENT_H HAVE_DUP HAVE_DUP2 HAVE_FCNTL HAVE_FCNTL_H
HAVE_FDOPEN HAVE_FORK HAVE_GETCWD HAVE_GETDTABLESIZE HAVE_GETGROUPS
HAVE_GETHOSTBYNAME HAVE_GETHOSTNAME HAVE_GETRLIMIT HAVE_GETTIMEOFDAY
HAVE_INTTYPES_H HAVE_ISATTY HAVE_LIMITS_H HAVE_LOCALE_H HAVE_LONG_LONG_INT
HAVE_LSTAT HAVE_MEMORY_H HAVE_MEMRCHR HAVE_MKSTEMP HAVE_MKTEMP HAVE_PIPE
HAVE_POSIX_SPAWN HAVE_POSIX_SPAWNATTR_SETSIGMASK HAVE_PSELECT HAVE_READLINK
HAVE_REALPATH HAVE_SA_RESTART HAVE_SETEGID HAVE_SETEUID HAVE_SETLINEBUF
HAVE_SETREGID HAVE_SETREUID HAVE_SETRLIMIT HAVE_SETVBUF HAVE_SIGACTION
HAVE_SIGSETMASK HAVE_SOCKET HAVE_SPAWN_H HAVE_STDINT_H HAVE_STDLIB_H
HAVE_STPCPY HAVE_STRCASECMP HAVE_STRCOLL HAVE_STRDUP HAVE_STRERROR_R
HAVE_STRINGS_H HAVE_STRING_H HAVE_STRNCASECMP HAVE_STRNDUP HAVE_STRSIGNAL
HAVE_STRUCT_DIRENT_D_TYPE HAVE_SYS_FILE_H HAVE_SYS_PARAM_H
HAVE_SYS_RESOURCE_H HAVE_SYS_SELECT_H HAVE_SYS_SOCKET_H HAVE_SYS_STAT_H
HAVE_SYS_TIME_H HAVE_SYS_TYPES_H HAVE_SYS_WAIT_H
HAVE_TTYNAME HAVE_UINTMAX_T HAVE_UMASK HAVE_UNISTD_H
HAVE_UNSIGNED_LONG_LONG_INT HAVE_VFORK HAVE_WAIT3 HAVE_WAITPID HAVE_WCHAR_H
HAVE_WCHAR_T HAVE_WINT_T HAVE_WORKING_FORK HAVE_WORKING_O_NOATIME
HAVE_WORKING_O_NOFOLLOW HAVE_WORKING_VFORK HAVE__BOOL FILE_TIMESTAMP_HI_RES
MAKE_JOBSERVER MAKE_LOAD MAKE_SYMLINKS STDC_HEADERS TIME_WITH_SYS_TIME
USE_POSIX_SPAWN STRERROR_R_CHAR_P\"
script=
for d in $defs; do script=\"$script;s/^#undef $d\\$/#define $d 1/\"; done
sed -e \"${script#;}\" \\
    -e 's/^#undef HAVE_DECL_\\(BSD_SIGNAL\\|SYS_SIGLIST\\|_SYS_SIGLIST\\|__SYS_SIGLIST\\|__ARGV\\)$/#define HAVE_DECL_\\1 0/' \\
    -e 's/^#undef MAKE_HOST$/#define MAKE_HOST \"" (gnu-triplet) "\"/' \\
    -e 's/^#undef PACKAGE$/#define PACKAGE \"make\"/' \\
    -e 's/^#undef PACKAGE_BUGREPORT$/#define PACKAGE_BUGREPORT \"bug-make@gnu.org\"/' \\
    -e 's/^#undef PACKAGE_NAME$/#define PACKAGE_NAME \"GNU make\"/' \\
    -e 's/^#undef PACKAGE_STRING$/#define PACKAGE_STRING \"GNU make 4.3\"/' \\
    -e 's/^#undef PACKAGE_TARNAME$/#define PACKAGE_TARNAME \"make\"/' \\
    -e 's|^#undef PACKAGE_URL$|#define PACKAGE_URL \"https://www.gnu.org/software/make/\"|' \\
    -e 's/^#undef PACKAGE_VERSION$/#define PACKAGE_VERSION \"4.3\"/' \\
    -e 's/^#undef VERSION$/#define VERSION \"4.3\"/' \\
    -e \"s/^#undef PATH_SEPARATOR_CHAR\\$/#define PATH_SEPARATOR_CHAR ':'/\" \\
    -e 's/^#undef RETSIGTYPE$/#define RETSIGTYPE void/' \\
    -e 's/^#undef SCCS_GET$/#define SCCS_GET \"get\"/' \\
    -e 's/^#undef ST_MTIM_NSEC$/#define ST_MTIM_NSEC st_mtim.tv_nsec/' \\
    -e 's/^# undef \\(_ALL_SOURCE\\|_GNU_SOURCE\\|_POSIX_PTHREAD_SEMANTICS\\|_TANDEM_SOURCE\\|__EXTENSIONS__\\)$/# define \\1 1/' \\
    src/config.h.in >src/config.h"))

;; The sources Makefile.am lists for a POSIX system, without Guile, and the
;; few gnulib modules make takes that glibc lacks (find_in_given_path and
;; concatenated file names); --export-dynamic for the 'load' directive.
(define %gnu-make-build
  "srcs=\"src/ar.c src/arscan.c src/commands.c src/default.c src/dir.c
src/expand.c src/file.c src/function.c src/getopt.c src/getopt1.c
src/guile.c src/hash.c src/implicit.c src/job.c src/load.c src/loadapi.c
src/main.c src/misc.c src/output.c src/read.c src/remake.c src/rule.c
src/signame.c src/strcache.c src/variable.c src/version.c src/vpath.c
src/posixos.c src/remote-stub.c
lib/concat-filename.c lib/exitfail.c lib/findprog-in.c
lib/xalloc-die.c lib/xconcat-filename.c\"
objs=
for c in $srcs; do
  o=${c%.c}.o
  gcc -O2 -g -Wall -D_FILE_OFFSET_BITS=64 -Isrc -Ilib -DHAVE_CONFIG_H \\
    -DLIBDIR=\\\"$out/lib\\\" -DINCLUDEDIR=\\\"$out/include\\\" \\
    -DLOCALEDIR=\\\"$out/share/locale\\\" -c -o $o $c
  objs=\"$objs $o\"
done
gcc -O2 -g -Wl,--export-dynamic -o make $objs")

(define gnu-make
  (package
    (name "make")
    (version "4.3")
    (source (origin
              (method url-fetch)
              (uri (string-append "mirror://gnu/make/make-" version ".tar.gz"))
              ;; Debian's make-dfsg_4.3.orig.tar.gz, not upstream's tarball
              ;; (e05fdde4...): Debian took out the manual (doc/, under the
              ;; GFDL) and the files Autoconf and Automake generate. The
              ;; offline mirror is filled from Debian, so the package takes
              ;; its hash.
              (sha256
               (base32 "0iwh3yfhm6zrbmgnmjs7f8c0chi6palx5g43bxs4x0kq4ma1fk5y"))))
    (build-system gnu-build-system)
    ;; Guix builds it with Guile; Guile is not packaged.
    (outputs '("out" "debug"))
    (arguments
     ;; The test suite (tests/run_make_tests.pl) is written in Perl, which
     ;; is not packaged.
     (list #:tests? #f
           #:phases (modify-phases %standard-phases
                      ;; Recipes run the shell of the inputs, not /bin/sh.
                      (add-after 'unpack 'set-default-shell
                        "sed -i \"s|^const char \\*default_shell = \\\"/bin/sh\\\";|const char *default_shell = \\\"$(command -v sh)\\\";|\" src/job.c
! grep -q '\"/bin/sh\";' src/job.c")
                      (replace 'configure (gnu-make-configure))
                      (replace 'build %gnu-make-build)
                      (replace 'install
                        "install -D -m 755 make $out/bin/make
install -D -m 644 src/gnumake.h $out/include/gnumake.h"))))
    (synopsis "Rebuild files from their dependencies")
    (description
     "GNU make reads a makefile, which says how each file of a program is
made from others, and runs the commands needed to bring out of date files up
to date, in parallel when asked.  Its language has variables, pattern rules,
functions, conditionals and included makefiles.")
    (home-page "https://www.gnu.org/software/make/")
    (license gpl3+)))
