;;; acl.scm - (gnu packages acl): extended attributes and access control lists
;;; SPDX-License-Identifier: GPL-3.0-or-later
(define-module (gnu packages acl)
  #:use-module (guix packages)
  #:use-module (guix download)
  #:use-module (guix build-system gnu)
  #:use-module (guix licenses)
  #:use-module (gnu packages perl)
  #:export (attr acl))

(define attr
  (package
    (name "attr")
    (version "2.5.1")
    (source (origin
              (method url-fetch)
              (uri (string-append "mirror://savannah/attr/attr-" version ".tar.xz"))
              ;; Debian's orig tarball of this version, not repacked by Debian.
              (sha256
               (base32 "0cnwgaaff3gsa208nlbhvsp35nm82rrpcdnnf2ls24wkdxi8li6v"))))
    (build-system gnu-build-system)
    ;; Its tests set attributes in the build directory: the file system there
    ;; must take user.* attributes, which the sandbox's does (its tmpfs).
    ;; The suite's driver, test/run, is a Perl script; the tests that need
    ;; root skip themselves.
    (native-inputs (list perl))
    (arguments
     (list #:parallel-tests? #f))
    (synopsis "Extended attributes of files")
    (description
     "attr provides libattr and the getfattr, setfattr and attr commands, to
read and write the extended attributes of files (name-value pairs kept
by the file system beside the data).")
    (home-page "https://savannah.nongnu.org/projects/attr/")
    (license (list lgpl2.1+ gpl2+))))

(define acl
  (package
    (name "acl")
    (version "2.3.1")
    (source (origin
              (method url-fetch)
              (uri (string-append "mirror://savannah/acl/acl-" version ".tar.xz"))
              ;; Debian's orig tarball of this version, not repacked by Debian.
              (sha256
               (base32 "1cb63kzxqd47zfbndvsbwixxn3h7bs7b0f604dn304bzw51408y0"))))
    (build-system gnu-build-system)
    (propagated-inputs (list attr))
    ;; The same Perl driver of its tests as attr's.
    (native-inputs (list perl))
    (arguments
     (list #:parallel-tests? #f))
    (synopsis "Access control lists of files")
    (description
     "acl provides libacl and the getfacl and setfacl commands, which read
and write POSIX access control lists: permissions for more users and
groups than a file's owner and group.")
    (home-page "https://savannah.nongnu.org/projects/acl/")
    (license (list lgpl2.1+ gpl2+))))
