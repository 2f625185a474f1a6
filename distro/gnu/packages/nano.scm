;;; nano.scm - (gnu packages nano): the nano editor
;;; SPDX-License-Identifier: GPL-3.0-or-later
(define-module (gnu packages nano)
  #:use-module (guix packages)
  #:use-module (guix download)
  #:use-module (guix build-system gnu)
  #:use-module (guix licenses)
  #:use-module (gnu packages ncurses)
  #:export (nano))

(define nano
  (package
    (name "nano")
    (version "7.2")
    (source (origin
              (method url-fetch)
              (uri (string-append "mirror://gnu/nano/nano-" version ".tar.xz"))
              (sha256
               (base32 "09j5gb44yiv18fvn0iy17jnl9d5lh3gkry4kqv776a5xd0kl9ww6"))))
    (build-system gnu-build-system)
    (inputs (list ncurses))
    ;; No test suite: "make check" builds and runs nothing.
    (arguments (list #:tests? #f))
    (synopsis "Small and simple text editor for the terminal")
    (description
     "GNU nano is an editor of text files on a terminal, made to be easy to
learn: the main commands are listed at the bottom of the screen.  It has
syntax highlighting, search and replace by regular expression, undo and
redo, several buffers, spell checking, line numbers, soft wrapping and
justification of paragraphs.")
    (home-page "https://www.nano-editor.org/")
    (license gpl3+)))
