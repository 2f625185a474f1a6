;;; acl.scm - (gnu packages acl): extended attributes and access control lists
;;; SPDX-License-Identifier: GPL-3.0-or-later
(define-module (gnu packages acl)
  #:use-module (guix packages)
  #:use-module (guix download)
  #:use-module (guix build-system gnu)
  #:use-module (guix licenses)
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
    ;; Its suite sets user.* attributes on files, which a build cannot: the
    ;; sandbox refuses every setxattr (as Nix's does: a store path cannot
    ;; hold extended attributes).  The built programs are run instead:
    ;; getfattr lists a file's (none), setfattr is refused as expected.
    (arguments
     (list #:phases
           (modify-phases %standard-phases
             (replace 'check
               "touch f
test -z \"$(./getfattr -d f)\"
! ./setfattr -n user.x -v 1 f 2>err
grep -q 'Operation not supported' err"))))
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
    ;; Its suite sets access control lists, extended attributes that a build
    ;; cannot set (see attr).  The built getfacl is run instead: a file's
    ;; list, from its mode alone.
    (arguments
     (list #:phases
           (modify-phases %standard-phases
             (replace 'check
               "touch f && chmod 640 f
./getfacl -c f >acl
printf 'user::rw-\\ngroup::r--\\nother::---\\n\\n' | cmp - acl"))))
    (synopsis "Access control lists of files")
    (description
     "acl provides libacl and the getfacl and setfacl commands, which read
and write POSIX access control lists: permissions for more users and
groups than a file's owner and group.")
    (home-page "https://savannah.nongnu.org/projects/acl/")
    (license (list lgpl2.1+ gpl2+))))
