;;; linux.scm - (gnu packages linux): tools of the Linux system
;;; SPDX-License-Identifier: GPL-3.0-or-later
(define-module (gnu packages linux)
  #:use-module (guix packages)
  #:use-module (guix download)
  #:use-module (guix build-system gnu)
  #:use-module ((guix licenses)
                #:select (gpl3+ gpl2+ gpl2 lgpl2.0+ lgpl2.1+ bsd-4 public-domain))
  #:use-module (gnu packages ncurses)
  #:use-module (gnu packages pkg-config)
  #:use-module (gnu packages tcl)
  #:use-module (gnu packages compression)
  #:export (util-linux procps psmisc))

(define util-linux
  (package
    (name "util-linux")
    (version "2.38.1")
    (source (origin
              (method url-fetch)
              (uri (string-append "mirror://kernel.org/linux/utils/util-linux/v2.38/util-linux-" version ".tar.xz"))
              ;; Debian's orig tarball of this version, not repacked by Debian.
              (sha256
               (base32 "0kz82x8lrapcl3bfpqwwqnv552rv6ddk4s7zvnizjv2fnhcjljb0"))))
    (build-system gnu-build-system)
    ;; No setuid or setgid bits, no chown at install, nothing of systemd,
    ;; no Python binding; install into its own output, not /bin and /sbin.
    ;; Its suite (tests/run.sh) runs whole; the tests that need root, a
    ;; loop device or a kernel module are skipped by it.
    (native-inputs (list pkg-config))
    (inputs (list ncurses zlib))
    (arguments
     (list #:configure-flags
           '("--disable-use-tty-group" "--disable-makeinstall-chown"
             "--disable-makeinstall-setuid" "--without-systemd" "--without-python"
             "--without-udev" "--disable-liblastlog2" "--disable-pylibmount"
                  "--with-bashcompletiondir=${out}/share/bash-completion/completions"
             "--disable-static")
           #:test-target "check"
           ;; hardlink's options test expects the kernel's SHA-256 (AF_ALG
           ;; sockets), which the sandbox does not give: it compares bytes
           ;; instead and says so; a known failure here, named.
           #:make-flags '("TS_OPTS=--parallel=2" "TS_OPT_hardlink_options_known_fail=yes")
           #:phases
           (modify-phases %standard-phases
             ;; lsblk --sysroot DIR (its tests read dumps of sysfs) still
             ;; required the real /sys/dev/block, which a build has not:
             ;; only without --sysroot now.
             (add-after 'unpack 'lsblk-sysroot
               "sed -i 's/^\\tcheck_sysdevblock();$/\\tif (!lsblk->sysroot)\\n\\t\\tcheck_sysdevblock();/' misc-utils/lsblk.c
grep -q 'if (!lsblk->sysroot)' misc-utils/lsblk.c"))))
    (synopsis "Essential system utilities of Linux")
    (description
     "util-linux is the collection of basic programs of a Linux system:
mount, fdisk, lsblk, blkid, findmnt, dmesg, kill, su, script, hexdump,
uuidgen, unshare, nsenter and many more, with the libraries libblkid,
libmount, libuuid, libfdisk and libsmartcols.")
    (home-page "https://www.kernel.org/pub/linux/utils/util-linux/")
    (license (list gpl3+ gpl2+ gpl2 lgpl2.0+ lgpl2.1+ bsd-4 public-domain))))

(define procps
  (package
    (name "procps")
    (version "4.0.2")
    (source (origin
              (method url-fetch)
              (uri (string-append "mirror://sourceforge/procps-ng/Production/procps-ng-" version ".tar.xz"))
              ;; Debian's orig tarball of this version, not repacked by Debian.
              (sha256
               (base32 "0yplzn3i427asfiwf499rmd63jdp29wwr98vm11sm57zlqpcsgzf"))))
    (build-system gnu-build-system)
    ;; Its suite is DejaGnu's, with its own unit tests; it runs, its
    ;; DejaGnu configuration running getconf and sh from PATH rather than
    ;; /usr/bin and /bin, which a build has not.  Left out: pmap's two
    ;; tests "with unreachable process", which take process 1 for another
    ;; user's; in the build's own process namespace it is the build's.
    (native-inputs (list pkg-config dejagnu))
    (inputs (list ncurses))
    (arguments
     (list #:configure-flags '("--disable-kill" "--disable-static" "--without-systemd")
           #:phases
           (modify-phases %standard-phases
             (add-before 'check 'test-programs-from-path
               "sed -i -e 's|exec /usr/bin/getconf|exec getconf|' -e 's|exec /bin/sh|exec sh|' testsuite/config/unix.exp
! grep -q 'exec /usr/bin\\|exec /bin' testsuite/config/unix.exp
sed -i '/^set test \"pmap XX* with unreachable process\"$/,+2d' testsuite/pmap.test/pmap.exp
! grep -q 'with unreachable process' testsuite/pmap.test/pmap.exp"))))
    (synopsis "Utilities that report on processes (ps, top, free)")
    (description
     "procps-ng reads /proc and reports on processes and the system: ps,
top, free, vmstat, pgrep, pkill, pmap, pwdx, uptime, w, watch, sysctl,
and the libproc2 library.")
    (home-page "https://gitlab.com/procps-ng/procps")
    (license (list gpl2+ lgpl2.1+))))

(define psmisc
  (package
    (name "psmisc")
    (version "23.6")
    (source (origin
              (method url-fetch)
              (uri (string-append "mirror://sourceforge/psmisc/psmisc/psmisc-" version ".tar.xz"))
              ;; Debian's orig tarball of this version, not repacked by Debian.
              (sha256
               (base32 "1kvqc5ajrni02hc4zik9ir9c3gm591lnyp9dwqcs2hz0s52xal07"))))
    (build-system gnu-build-system)
    ;; Its suite is DejaGnu's and runs whole.
    (native-inputs (list dejagnu))
    (inputs (list ncurses))
    (synopsis "Utilities that use /proc: killall, pstree, fuser")
    (description
     "psmisc has killall (signals processes by name), pstree (the tree of
processes), fuser (which processes use a file or socket), peekfd and
prtstat.")
    (home-page "https://gitlab.com/psmisc/psmisc")
    (license gpl2+)))
