(use-modules (guix packages) (guix build-system trivial))
(package
  (name "failing") (version "1")
  (build-system trivial-build-system)
  (inputs `(("prog" ,(local-file "mkout"))))
  (arguments '(#:implicit-inputs? #f #:builder ((input "prog") "fail"))))
