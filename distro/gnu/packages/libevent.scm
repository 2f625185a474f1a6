;;; libevent.scm - (gnu packages libevent): event notification
;;; SPDX-License-Identifier: GPL-3.0-or-later
(define-module (gnu packages libevent)
  #:use-module (guix packages)
  #:use-module (guix download)
  #:use-module (guix build-system gnu)
  #:use-module ((guix licenses) #:select (bsd-3))
  #:export (libevent))

(define libevent
  (package
    (name "libevent")
    (version "2.1.12")
    (source (origin
              (method url-fetch)
              (uri (string-append "https://github.com/libevent/libevent/releases/download/release-" version "-stable/libevent-" version "-stable.tar.gz"))
              ;; Debian's orig tarball of this version, not repacked by Debian.
              (sha256
               (base32 "1fq30imk8zd26x8066di3kpc5zyfc5z6frr3zll685zcx4dxxrlj"))))
    (build-system gnu-build-system)
    ;; Without libevent_openssl (tmux, its user here, needs none), and
    ;; without event_rpcgen.py, a generator of RPC code in Python (which
    ;; is not among its inputs).  Its
    ;; suite runs the regression tests once for each back end; two are
    ;; left out of each run (REGRESS_ARGS, as its test.sh takes them):
    ;; dns/initialize_nameservers reads /etc/resolv.conf, which a build
    ;; has not, and main/del_wait wants a 300 ms wait measured within
    ;; 50 ms, which a loaded machine misses.
    (arguments
     (list #:configure-flags '("--disable-openssl" "--disable-static")
           #:make-flags '("REGRESS_ARGS=:dns/initialize_nameservers :main/del_wait")
           #:phases
           (modify-phases %standard-phases
             (add-after 'install 'without-python-script
               "rm \"$out/bin/event_rpcgen.py\" && rmdir \"$out/bin\""))))
    (synopsis "Event notification library")
    (description
     "libevent calls a function when an event happens on a file descriptor,
a signal arrives or a timeout expires, over epoll, poll or select,
with buffered network I/O, DNS and HTTP on top. tmux is built on it.")
    (home-page "https://libevent.org/")
    (license bsd-3)))
