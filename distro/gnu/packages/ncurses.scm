;;; ncurses.scm - (gnu packages ncurses): the terminal-handling library
;;; SPDX-License-Identifier: GPL-3.0-or-later
(define-module (gnu packages ncurses)
  #:use-module (guix packages)
  #:use-module (guix download)
  #:use-module (guix build-system gnu)
  #:use-module (guix licenses)
  #:export (ncurses))

(define ncurses
  (package
    (name "ncurses")
    (version "6.4")
    (source (origin
              (method url-fetch)
              (uri (string-append "mirror://gnu/ncurses/ncurses-" version
                                  ".tar.gz"))
              (sha256
               (base32 "0nc14knjp080h6n06dpwnhmn68azqz290qhbydrm0z68k8yjhcb9"))))
    (build-system gnu-build-system)
    ;; The manual pages (about 1 MiB) go to their own output.
    (outputs '("out" "doc"))
    (arguments
     ;; There is no test suite: test/ holds demonstration programs, and
     ;; the Makefiles have no "check" target.
     (list #:tests? #f
           #:phases
           (modify-phases %standard-phases
             ;; ncursesw6-config would name the "doc" output (its --mandir),
             ;; a reference from "out" to "doc": it names no directory.
             (add-after 'unpack 'no-mandir-in-config
               "sed -i 's|^mandir=\"@mandir@\"$|mandir=|' misc/ncurses-config.in
grep -qx 'mandir=' misc/ncurses-config.in")
             ;; configure knows no --docdir: the manual pages reach "doc"
             ;; by --mandir.  Wide characters, shared libraries, headers
             ;; straight in include/ (not include/ncursesw: --enable-overwrite
             ;; makes configure honour --includedir), and a RUNPATH to lib/
             ;; for tic, infocmp, clear and the others.  No C++ compiler
             ;; nor Ada in the build: no C++ binding, no Ada binding.
             (replace 'configure
               "CONFIG_SHELL=$(command -v bash)
SHELL=$CONFIG_SHELL
export CONFIG_SHELL SHELL
\"$SHELL\" ./configure --prefix=\"$out\" --mandir=\"$doc/share/man\" \\
  --includedir=\"$out/include\" --enable-overwrite \\
  --with-shared --without-debug --enable-widec \\
  --without-cxx --without-cxx-binding --without-ada \\
  --with-manpage-format=normal \\
  --enable-pc-files --with-pkg-config-libdir=\"$out/lib/pkgconfig\" \\
  \"LDFLAGS=-Wl,-rpath=$out/lib\"")
             ;; Programs asking for the libraries by their usual names
             ;; (-lncurses, -lcurses, -lform, -lpanel, -lmenu) get the wide
             ;; ones: a linker script for the .so, links for the rest.
             (add-after 'install 'non-wide-names
               "cd \"$out/lib\"
for lib in ncurses form panel menu; do
  test -e lib${lib}w.so.6
  ln -sf lib${lib}w.so.6 lib$lib.so.6
  rm -f lib$lib.so
  echo \"INPUT (-l${lib}w)\" >lib$lib.so
  ln -sf lib${lib}w.a lib$lib.a
  test -e pkgconfig/${lib}w.pc
  ln -sf ${lib}w.pc pkgconfig/$lib.pc
done
rm -f libcurses.so libcurses.a
echo 'INPUT (-lncursesw)' >libcurses.so
ln -s libncursesw.a libcurses.a"))))
    ;; Programs find the terminal descriptions of the profile, as in Guix.
    (native-search-paths
     (list (search-path-specification
            (variable "TERMINFO_DIRS")
            (files '("share/terminfo")))))
    (synopsis "Library for text-terminal user interfaces")
    (description
     "Ncurses is a free implementation of the System V curses library: it
lets programs draw on character terminals (moving the cursor, colours,
windows, pads, keyboard and mouse input) without caring which terminal
they run on, by reading its capabilities from the terminfo database.  It
also provides the panel, menu and form libraries, the terminfo database
itself, and tools such as tic, infocmp, tput, clear and reset.  This build
handles wide characters (Unicode).")
    (home-page "https://invisible-island.net/ncurses/")
    (license x11)))
