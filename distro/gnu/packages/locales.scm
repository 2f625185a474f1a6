;;; locales.scm - (gnu packages locales): UTF-8 locales of the C library
;;; SPDX-License-Identifier: GPL-3.0-or-later
(define-module (gnu packages locales)
  #:use-module (guix packages)
  #:use-module (guix build-system trivial)
  #:use-module (guix search-paths)
  #:use-module ((guix licenses) #:select (lgpl2.1+))
  #:use-module ((gnu packages commencement) #:select (glibc))
  #:use-module ((gnu packages compression) #:select (gzip))
  #:export (glibc-utf8-locales))

;;; The locales a program finds where glibc looks: its own lib/locale has
;;; C.UTF-8 only. A user who installs this package and sets LOCPATH (which
;;; `cix package --search-paths' prints) has these too; LOCPATH replaces
;;; glibc's own directory, so C.UTF-8 is among them. As Guix's package of
;;; that name, a few languages, each in UTF-8, compiled by glibc's own
;;; localedef from the sources glibc installs (share/i18n).
(define %utf8-locales
  '("C" "de_DE" "el_GR" "en_GB" "en_US" "es_ES" "fr_FR" "ja_JP" "ru_RU" "tr_TR"
    "zh_CN"))

(define glibc-utf8-locales
  (package
    (name "glibc-utf8-locales")
    (version (package-version glibc))
    (source #f)
    (build-system trivial-build-system)
    (inputs `(("glibc" ,glibc) ("gzip" ,gzip)))
    (arguments
     `(#:builder
       ,(string-append
         "export PATH=$glibc/bin:$gzip/bin:$PATH
mkdir -p $out/lib/locale
for l in " (string-join %utf8-locales " ") "; do
  localedef --no-archive -i $l -f UTF-8 $out/lib/locale/$l.UTF-8
  # glibc asks for the normalised name (en_US.utf8) first.
  ln -s $l.UTF-8 $out/lib/locale/$l.utf8
done
test \"$(LOCPATH=$out/lib/locale LC_ALL=fr_FR.UTF-8 locale charmap)\" = UTF-8
test \"$(LOCPATH=$out/lib/locale LC_ALL=de_DE.UTF-8 locale -k decimal_point)\" = 'decimal_point=\",\"'")))
    (native-search-paths
     (list (search-path-specification
            (variable "LOCPATH")
            (files '("lib/locale")))))
    (synopsis "UTF-8 locales of the GNU C library")
    (description "A few locales of the GNU C library, each in the UTF-8
encoding (C, English, French, German, Greek, Japanese, Russian, Spanish,
Turkish, Chinese), for programs to use when LOCPATH names this package's
lib/locale, as a profile's search paths say.")
    (home-page "https://www.gnu.org/software/libc/")
    (license lgpl2.1+)))
