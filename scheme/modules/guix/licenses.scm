;;; licenses.scm - (guix licenses): the licenses packages name
;;; SPDX-License-Identifier: GPL-3.0-or-later
(define-module (guix licenses)
  #:use-module (srfi srfi-9)
  #:export (license? license-name license-uri license-comment
            agpl3 agpl3+ artistic2.0 asl2.0 bsd-2 bsd-3 bsd-4 expat fdl1.3+ gpl1 gpl1+
            gpl2 gpl2+ gpl3 gpl3+ isc lgpl2.0 lgpl2.0+ lgpl2.1 lgpl2.1+
            lgpl3 lgpl3+ mpl2.0 psfl public-domain x11 zlib bzip2 openssl
            non-copyleft bsd-style x11-style))

(define-record-type <license>
  (license name uri comment)
  license?
  (name license-name)
  (uri license-uri)
  (comment license-comment))

(define-syntax-rule (define-license id name uri)
  (define id (license name uri "")))

(define-license agpl3 "AGPL 3" "https://gnu.org/licenses/agpl.html")
(define-license agpl3+ "AGPL 3+" "https://gnu.org/licenses/agpl.html")
(define-license artistic2.0 "Artistic License 2.0" "http://www.perlfoundation.org/artistic_license_2_0")
(define-license asl2.0 "ASL 2.0" "http://directory.fsf.org/wiki/License:Apache2.0")
(define-license bsd-2 "FreeBSD" "http://directory.fsf.org/wiki/License:FreeBSD")
(define-license bsd-3 "Modified BSD" "http://directory.fsf.org/wiki/License:BSD_3Clause")
(define-license bsd-4 "Original BSD" "http://directory.fsf.org/wiki/License:BSD_4Clause")
(define-license expat "Expat" "http://directory.fsf.org/wiki/License:Expat")
(define-license fdl1.3+ "FDL 1.3+" "https://www.gnu.org/licenses/fdl.html")
(define-license gpl1 "GPL 1" "https://www.gnu.org/licenses/old-licenses/gpl-1.0.html")
(define-license gpl1+ "GPL 1+" "https://www.gnu.org/licenses/old-licenses/gpl-1.0.html")
(define-license gpl2 "GPL 2" "https://www.gnu.org/licenses/old-licenses/gpl-2.0.html")
(define-license gpl2+ "GPL 2+" "https://www.gnu.org/licenses/old-licenses/gpl-2.0.html")
(define-license gpl3 "GPL 3" "https://www.gnu.org/licenses/gpl.html")
(define-license gpl3+ "GPL 3+" "https://www.gnu.org/licenses/gpl.html")
(define-license isc "ISC" "http://directory.fsf.org/wiki/License:ISC")
(define-license lgpl2.0 "LGPL 2.0" "https://www.gnu.org/licenses/old-licenses/lgpl-2.0.html")
(define-license lgpl2.0+ "LGPL 2.0+" "https://www.gnu.org/licenses/old-licenses/lgpl-2.0.html")
(define-license lgpl2.1 "LGPL 2.1" "https://www.gnu.org/licenses/old-licenses/lgpl-2.1.html")
(define-license lgpl2.1+ "LGPL 2.1+" "https://www.gnu.org/licenses/old-licenses/lgpl-2.1.html")
(define-license lgpl3 "LGPL 3" "https://www.gnu.org/licenses/lgpl.html")
(define-license lgpl3+ "LGPL 3+" "https://www.gnu.org/licenses/lgpl.html")
(define-license mpl2.0 "MPL 2.0" "http://directory.fsf.org/wiki/License:MPLv2.0")
(define-license psfl "Python Software Foundation License" "http://docs.python.org/license.html")
(define-license public-domain "Public Domain" "http://directory.fsf.org/wiki/License:PublicDomain")
(define-license x11 "X11" "http://directory.fsf.org/wiki/License:X11")
(define-license zlib "Zlib" "http://www.gzip.org/zlib/zlib_license.html")
(define-license bzip2 "bzip2" "http://directory.fsf.org/wiki/License:Bzip2")
(define-license openssl "OpenSSL" "http://directory.fsf.org/wiki/License:OpenSSL")

(define* (non-copyleft uri #:optional (comment ""))
  (license "non-copyleft" uri comment))

(define* (bsd-style uri #:optional (comment ""))
  (license "BSD-style" uri comment))

(define* (x11-style uri #:optional (comment ""))
  (license "X11-style" uri comment))
