;;; tmux.scm - (gnu packages tmux): the terminal multiplexer
;;; SPDX-License-Identifier: GPL-3.0-or-later
(define-module (gnu packages tmux)
  #:use-module (guix packages)
  #:use-module (guix download)
  #:use-module (guix build-system gnu)
  #:use-module ((guix licenses) #:select (isc))
  #:use-module (gnu packages libevent)
  #:use-module (gnu packages ncurses)
  #:use-module (gnu packages pkg-config)
  #:use-module (gnu packages bison)
  #:export (tmux))

(define tmux
  (package
    (name "tmux")
    (version "3.3a")
    (source (origin
              (method url-fetch)
              (uri (string-append "https://github.com/tmux/tmux/releases/download/" version "/tmux-" version ".tar.gz"))
              ;; Debian's orig tarball of this version, not repacked by Debian.
              (sha256
               (base32 "0gzrrm6imhcp3sr5vw8g71x9n40bbdidwvcdyk2741xx8dw39zg4"))))
    (build-system gnu-build-system)
    ;; It has no test suite (make check does nothing); in its stead the
    ;; built tmux must say its version.
    (native-inputs (list pkg-config bison))
    (inputs (list libevent ncurses))
    (arguments
     (list #:phases
           (modify-phases %standard-phases
             (replace 'check "./tmux -V | grep -qx 'tmux 3.3a'"))))
    (synopsis "Terminal multiplexer")
    (description
     "tmux runs several programs in one terminal, in windows and panes, and
keeps them running on a server when the terminal is gone: a later
client attaches to them again.")
    (home-page "https://github.com/tmux/tmux/wiki")
    (license isc)))
