;;; units.scm - (gnu packages units): unit conversion
;;; SPDX-License-Identifier: GPL-3.0-or-later
(define-module (gnu packages units)
  #:use-module (guix packages)
  #:use-module (guix download)
  #:use-module (guix build-system gnu)
  #:use-module (guix licenses)
  #:use-module (gnu packages readline)
  #:export (units))

(define units
  (package
    (name "units")
    (version "2.22")
    (source (origin
              (method url-fetch)
              (uri (string-append "mirror://gnu/units/units-" version ".tar.gz"))
              ;; Debian's orig tarball of this version, not repacked by Debian.
              (sha256
               (base32 "0j2q2a9sgldqwcifsnb7qagsmp8fvj91vfh6v4k7gzi1fwhf24sx"))))
    (build-system gnu-build-system)
    ;; Without Python, its units_cur (which downloads currency rates) is not
    ;; installed.
    (inputs (list readline))
    (arguments
     (list #:configure-flags '("--with-readline")))
    (synopsis "Conversion between units of measure")
    (description
     "GNU Units converts quantities between units of measure, from a
database of some 3,000 units, and evaluates expressions with units in
them: two furlongs per fortnight in metres per second.")
    (home-page "https://www.gnu.org/software/units/")
    (license gpl3+)))
