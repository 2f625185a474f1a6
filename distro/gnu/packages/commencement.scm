;;; commencement.scm - (gnu packages commencement): the distribution's own
;;; tool chain, built in stages from the bootstrap binaries
;;; SPDX-License-Identifier: GPL-3.0-or-later
(define-module (gnu packages commencement)
  #:use-module (guix packages)
  #:use-module (guix download)
  #:use-module (guix build-system gnu)
  #:use-module (guix build-system trivial)
  #:use-module ((guix licenses) #:select (gpl2 gpl3+ lgpl2.1+))
  #:use-module (gnu packages bootstrap)
  #:use-module (gnu packages m4)
  #:use-module ((gnu packages base)
                #:select (coreutils sed grep tar gnu-make diffutils patch findutils))
  #:use-module ((gnu packages compression) #:select (gzip bzip2 xz))
  #:use-module ((gnu packages gawk) #:select (gawk))
  #:export (%bootstrap-tools-full
            linux-headers
            glibc
            binutils
            bash
            gcc
            gcc-toolchain
            %final-inputs
            %final-shell-inputs))

;;; How the chain is made (doc/bootstrap.md tells why):
;;;
;;;   bootstrap-tools-full  Debian's gcc, g++, binutils, glibc and Python,
;;;                         unpacked in the store (the seeds)
;;;   linux-headers         the kernel's API headers, from source
;;;   glibc                 built by the seeds' compiler, which it never
;;;                         links with; system() and popen() run a static
;;;                         Bash built in the same derivation against this
;;;                         glibc, kept in its libexec/
;;;
;;; Every package of a stage says #:implicit-inputs? #f and names its tool
;;; chain among its inputs, so that nothing of an earlier stage comes in
;;; unless asked for.  Stages that are only a means are hidden.

;;; The second seed: g++ and Python 3 (scripts/make-bootstrap --extra),
;;; which only the chain's builds need (GCC is written in C++, glibc's
;;; build runs Python).
(define %bootstrap-tarball-extra
  (bootstrap-item "bootstrap-tools-extra.tar.xz"
                  `(("x86_64-linux"
                     . ,(base32 "09dd6545lbg0mlshprw3j4gqrxqx2i267ljqgw1ilfrz6jr6slhz"))
                    ("i686-linux"
                     . ,(base32 "1l4injx4ambp3nn4z9f5245fq0xv3dpvh992fwx9yr8yvzgkaqci")))
                  #f))

(define %bootstrap-tools-full
  (package
    (inherit %bootstrap-tools)
    (name "bootstrap-tools-full")
    (inputs `(("tarball" ,%bootstrap-tarball)
              ("extra" ,%bootstrap-tarball-extra)
              ("busybox" ,%bootstrap-busybox)
              ("script" ,(local-file (data-file "distro/bootstrap/unpack-bootstrap.sh")
                                     "unpack-bootstrap.sh"))
              ("wrapper" ,(local-file (data-file "distro/bootstrap/gcc-wrapper.in")
                                      "gcc-wrapper.in"))))
    (description "The bootstrap binaries with g++ and Python 3, from which the
distribution's own tool chain is built.")))

;;; The inputs of a package built by the seeds.
(define (boot0-inputs)
  `(("bootstrap-tools" ,%bootstrap-tools-full)))

(define linux-headers
  (package
    (name "linux-headers")
    (version "6.1.176")
    (source (origin
              (method url-fetch)
              (uri (string-append "mirror://kernel.org/linux/kernel/v6.x/linux-"
                                  version ".tar.xz"))
              ;; Debian's linux_6.1.176.orig.tar.xz: upstream's tree less the
              ;; files Debian cannot distribute (firmware blobs), repacked; the
              ;; offline mirror is filled from Debian, so this is its hash.
              (sha256
               (base32 "0155wdk3s58nyfqwdz2r7z7dbn4pvfvjms3qv7qa7vizjwjl1bcs"))))
    (build-system gnu-build-system)
    (inputs (boot0-inputs))
    (arguments
     (list #:implicit-inputs? #f
           #:tests? #f                  ; headers only: nothing to test
           #:phases
           (modify-phases %standard-phases
             (delete 'configure)
             (replace 'build
               (string-append "sh=$(command -v bash)
make -j\"${NIX_BUILD_CORES:-1}\" ARCH=" (linux-arch)
                              " HOSTCC=gcc SHELL=\"$sh\" CONFIG_SHELL=\"$sh\" headers"))
             (replace 'install
               "mkdir -p \"$out/include\"
cd usr/include
find . -name '*.h' -type f | while read -r f; do
  mkdir -p \"$out/include/${f%/*}\"
  cp \"$f\" \"$out/include/$f\"
done
test -f \"$out/include/linux/version.h\"
test -f \"$out/include/asm/unistd.h\""))))
    (synopsis "Linux kernel's headers for user space")
    (description "The headers of the Linux kernel's programming interface
for programs in user space (system calls, ioctls, structures), which the C
library is built against.")
    (home-page "https://www.kernel.org/")
    (license gpl2)))

;;; Tools that glibc's build needs, built by the seeds; hidden, as every
;;; means of the chain.  Their suites run when the distribution's own
;;; packages of them are built.
(define (boot0 p name)
  (package
    (inherit p)
    (name name)
    (inputs (boot0-inputs))
    (arguments (list #:implicit-inputs? #f #:tests? #f))
    (properties '((hidden? . #t)))))

(define m4-boot0 (boot0 m4 "m4-boot0"))

(define bison-boot0
  (package
    (name "bison-boot0")
    (version "3.8.2")
    (source (origin
              (method url-fetch)
              (uri (string-append "mirror://gnu/bison/bison-" version ".tar.xz"))
              ;; Debian's bison_3.8.2+dfsg.orig.tar.xz: upstream's less the
              ;; manual's GFDL sources.
              (sha256
               (base32 "1rbv2wffgafjx1jgancyp0amhxppw54zm9v2iy122hfkdp4s7y6z"))))
    (build-system gnu-build-system)
    (inputs `(,@(boot0-inputs) ("m4" ,m4-boot0)))
    (arguments
     (list #:implicit-inputs? #f
           #:tests? #f
           #:phases
           (modify-phases %standard-phases
             ;; The manual's sources are not in Debian's tarball: they are
             ;; made empty and old, and what the build makes of them (the
             ;; info file, the examples extracted) new.
             (add-after 'configure 'no-manual
               "set -e
touch -d @86400 doc/bison.texi
for f in $(make -p -n -q doc/bison.info 2>/dev/null | sed -n 's|^[.]/doc/bison.info: *||p; s|^doc/bison.info: *||p'); do
  test -e \"$f\" || { mkdir -p \"${f%/*}\"; touch -d @86400 \"$f\"; }
done
echo 'The manual of Bison is not in the sources this was built from.' >doc/bison.info
touch examples/extracted.stamp doc/bison.info"))
           ;; Perl, which is not there, only edits the manual.
           #:make-flags '("PERL=true")))
    (synopsis "Parser generator (for the tool chain's build)")
    (description "GNU Bison, built by the bootstrap binaries for glibc's
build.")
    (home-page "https://www.gnu.org/software/bison/")
    (license gpl3+)
    (properties '((hidden? . #t)))))

;;; The raw compiler of the seeds, not its wrapper: glibc links nothing of
;;; the seeds' C library and sets its programs' interpreter itself.
(define (seed-cc)
  (string-append "${bootstrap_tools}/usr/bin/" (seed-tool-prefix) "-gcc-12"))

(define %bash-source
  (origin
    (method url-fetch)
    (uri "mirror://gnu/bash/bash-5.2.15.tar.gz")
    ;; Debian's bash_5.2.15.orig.tar.gz: bash 5.2 with upstream's patches
    ;; 1 to 15 applied, a tree Debian made (upstream ships bash-5.2.tar.gz
    ;; and the patches).
    (sha256 (base32 "0l8gc1bavrd896kx3hwcrlrly7m4jq8fr423kqai61yrx705ncbs"))))

(define glibc
  (package
    (name "glibc")
    (version "2.36")
    (source (origin
              (method url-fetch)
              (uri (string-append "mirror://gnu/glibc/glibc-" version ".tar.xz"))
              ;; Debian's glibc_2.36.orig.tar.xz, a snapshot of upstream's
              ;; release branch, not the glibc-2.36 release tarball.
              (sha256
               (base32 "1vh8ly99mc2d4nh90sn8fjm4v4hcy49zszlmcvwclv6lf0hc0hx5"))))
    (build-system gnu-build-system)
    (inputs `(,@(boot0-inputs)
              ("linux-headers" ,linux-headers)
              ("bison" ,bison-boot0)
              ("busybox" ,%bootstrap-busybox)
              ("bash-source" ,%bash-source)))
    (arguments
     (list #:implicit-inputs? #f
           #:out-of-source? #t
           ;; The seeds' awk and Python run /bin/sh (system(), pipes,
           ;; subprocess): the seeds' static busybox is put there for this
           ;; build (their bash finds its libraries from where it is).
           #:bin-sh '(input "busybox" "/bin/busybox")
           ;; Its suite takes longer than the whole chain on two cores; it
           ;; is run by `make distro-check' (doc/bootstrap.md).
           #:tests? #f
           ;; Its libraries find each other through the loader's own
           ;; directory, not a RUNPATH.
           #:validate-runpath? #f
           #:configure-flags
           (list (string-append "CC=" (seed-cc))
                 "--with-headers=${linux_headers}/include"
                 "--disable-werror"
                 "--disable-nscd"
                 "--disable-build-nscd"
                 "--without-selinux"
                 "--enable-kernel=3.2"
                 "libc_cv_slibdir=${out}/lib")
           #:phases
           (modify-phases %standard-phases
             (add-after 'unpack 'no-manual
               ;; Debian's tarball has no manual/ (its GFDL sources): it is
               ;; not one of the directories built.
               "set -e
test ! -e manual
sed -i 's/ wctype manual shadow / wctype shadow /' Makeconfig
! grep -qw manual Makeconfig")
             (add-after 'unpack 'use-store-shell
               ;; system(), popen(), wordexp() and execvp()'s fallback run
               ;; this Bash, installed below, not /bin/sh.
               "set -e
sed -i \"s|\\\"/bin/sh\\\"|\\\"$out/libexec/sh\\\"|\" sysdeps/posix/system.c \\
  libio/oldiopopen.c sysdeps/unix/sysv/linux/paths.h sysdeps/generic/paths.h
grep -q \"$out/libexec/sh\" sysdeps/posix/system.c
grep -q \"$out/libexec/sh\" sysdeps/unix/sysv/linux/paths.h
! grep -n '\"/bin/sh\"' sysdeps/posix/system.c libio/oldiopopen.c")
             (add-after 'install 'install-kernel-headers
               ;; The kernel's headers beside the C library's, as a system's
               ;; /usr/include has them: the compiler's one system directory.
               ;; Copied, not linked, so that what links with glibc does not
               ;; keep the headers alive; glibc's own (scsi/...) are kept.
               "set -e
cp -R --no-clobber \"$linux_headers\"/include/. \"$out/include/\"
test -f \"$out/include/linux/limits.h\" && test -f \"$out/include/asm/unistd.h\"
! grep -rqF \"$linux_headers\" \"$out/include\"")
             (add-after 'install 'install-shell
               ;; A static Bash on this very glibc: the seeds' compiler with
               ;; none of the seeds' headers or libraries.
               (string-append "set -e
cc=\"" (seed-cc) "\"
CC=\"$cc -static -nostdinc -isystem $($cc -print-file-name=include) -isystem $out/include -isystem $linux_headers/include -B$out/lib/ -L$out/lib\"
mkdir -p \"$TMPDIR/sh\" && cd \"$TMPDIR/sh\"
tar xf \"$bash_source\" && cd bash-*
./configure --enable-static-link --without-bash-malloc --disable-nls \\
  --without-curses CC=\"$CC\" >configure.log 2>&1 || { tail -40 configure.log; exit 1; }
make -j\"${NIX_BUILD_CORES:-2}\" >make.log 2>&1 || { tail -40 make.log; exit 1; }
install -D -m 0555 bash \"$out/libexec/sh\"
\"$out/libexec/sh\" -c 'echo static shell: $BASH_VERSION'"))
             (add-after 'install-shell 'use-own-shell
               ;; Its scripts (ldd, tzselect, sotruss, xtrace), whose
               ;; configure wrote the seeds' bash in them, run that shell.
               "set -e
for f in \"$out\"/bin/*; do
  if test -f \"$f\" && head -c 2 \"$f\" | grep -q '#!'; then
    sed -i -E \"1s@^#! *[^ ]*/(bash|sh)( |\\$)@#!$out/libexec/sh\\\\2@\" \"$f\"
    if grep -q \"$bootstrap_tools\" \"$f\"; then echo \"$f: still names the seeds\"; exit 1; fi
  fi
done")
             (add-after 'use-own-shell 'install-c-utf8
               ;; The locale C.UTF-8 (C with UTF-8 characters), which test
               ;; suites and programs ask for where glibc looks for locales
               ;; (its lib/locale), compiled from its own sources: without
               ;; it, setlocale fails and a program's multibyte text is
               ;; bytes. Other locales come from a LOCPATH of the user's.
               "set -e
mkdir -p \"$out/lib/locale\"
\"$out/bin/localedef\" --no-archive -i C -f UTF-8 \"$out/lib/locale/C.utf8\"
test \"$(LC_ALL=C.UTF-8 \"$out/bin/locale\" charmap)\" = UTF-8"))))
    (synopsis "The GNU C library")
    (description "The GNU C library: the system calls and the basic
functions of C and POSIX (stdio, strings, memory, threads, dynamic loading,
locales), and the dynamic loader every program of the distribution runs on.")
    (home-page "https://www.gnu.org/software/libc/")
    (license lgpl2.1+)))

;;; The #:builder of a trivial package of the chain: SCRIPT run by the
;;; seeds' bash, their tools in PATH.
(define (seed-script script)
  `((input "bootstrap-tools" "/bin/bash") "-e" "-c"
    ,(string-append "export PATH=$bootstrap_tools/bin\n" script)))

;;; Stage 1: the seeds' gcc and g++, compiling and linking for the glibc
;;; above (its headers, start files, loader and library directory) instead
;;; of the seeds' C library.  What it links takes the seeds' libgcc and
;;; libstdc++ statically, so that nothing it builds loads a seed library.
(define %seed-gcc
  (package
    (name "seed-gcc")
    (version "12.2.0")
    (source #f)
    (build-system trivial-build-system)
    (inputs `(,@(boot0-inputs)
              ("glibc" ,glibc)
              ("wrapper" ,(local-file (data-file "distro/bootstrap/gcc-wrapper.in")
                                      "gcc-wrapper.in"))))
    (arguments
     `(#:implicit-inputs? #f
       #:builder
       ,(seed-script (string-append "boot=$bootstrap_tools
tool=" (seed-tool-prefix) " multiarch=" (seed-multiarch) " loader=" (seed-loader) "
cxx=$boot/usr/include/c++/12
mkdir -p $out/bin
# wrap NAME DRIVER ALWAYS...: $out/bin/NAME from the template.
wrap () {
  name=$1 driver=$2
  shift 2
  sed -e \"s|@bash@|$boot/bin/bash|\" -e \"s|@name@|$name|\" \\
      -e \"s|@what@|the seeds' $driver for the store's glibc|\" \\
      -e \"s|@driver@|$boot/usr/bin/$driver|\" -e \"s|@libc_lib@|$glibc/lib|\" \\
      -e \"s|@loader@|$glibc/lib/$loader|\" \\
      -e \"s|@store@|${out%/*}|\" -e \"s|@always@|$*|\" $wrapper >$out/bin/$name
  chmod 0555 $out/bin/$name
}
c=\"-B$glibc/lib/ -idirafter $glibc/include -static-libgcc\"
cplus=\"-isystem $cxx -isystem $boot/usr/include/$multiarch/c++/12 -isystem $cxx/backward $c -static-libstdc++\"
wrap gcc $tool-gcc-12 $c
wrap cc $tool-gcc-12 $c
wrap g++ $tool-g++-12 $cplus
wrap c++ $tool-g++-12 $cplus
printf '#!%s\\nexec %s -idirafter %s \"$@\"\\n' $boot/bin/bash \\
  $boot/usr/bin/$tool-cpp-12 $glibc/include >$out/bin/cpp
chmod 0555 $out/bin/cpp
# It works: a C and a C++ program, run on the store's glibc.
cd $TMPDIR
printf '#include <stdio.h>\\n#include <math.h>\\nint main(void){printf(\"%g\\\\n\", sqrt(2.0));return 0;}\\n' >t.c
$out/bin/gcc -O t.c -o t -lm
./t
printf '#include <iostream>\\n#include <vector>\\nint main(){std::vector<int> v{1,2};std::cout<<v.size()<<std::endl;}\\n' >t.cc
$out/bin/g++ t.cc -o tt
./tt
test \"$(./tt)\" = 2"))))
    (synopsis "The bootstrap compiler, building for the store's C library")
    (description "Wrappers of the bootstrap binaries' gcc and g++ that
compile and link against the distribution's glibc.")
    (home-page #f)
    (license gpl3+)
    (properties '((hidden? . #t)))))

;;; What stage 2 builds with: the seed compiler for the new glibc first in
;;; PATH, then the seeds' binutils and tools.
(define (boot1-inputs)
  `(("seed-gcc" ,%seed-gcc)
    ("glibc" ,glibc)
    ,@(boot0-inputs)))

(define binutils
  (package
    (name "binutils")
    (version "2.40")
    (source (origin
              (method url-fetch)
              (uri (string-append "mirror://gnu/binutils/binutils-" version ".tar.xz"))
              ;; Debian's binutils_2.40.orig.tar.xz, a repack of upstream's
              ;; release (its sha256 is not upstream's).
              (sha256
               (base32 "07f47za2frbyn2vbzdjgb1znsm9mshdwnm485zhf36san8p2v36p"))))
    (build-system gnu-build-system)
    (inputs (boot1-inputs))
    (arguments
     (list #:implicit-inputs? #f
           ;; Its suites need DejaGnu and Expect, which are not packaged yet.
           #:tests? #f
           #:configure-flags
           '("--disable-nls" "--disable-werror" "--disable-gprofng" "--disable-gold"
             "--enable-deterministic-archives"
             ;; ld searches no directory of its own: the compiler (and the
             ;; ld wrapper) say where libraries are.
             "--with-lib-path=/no-ld-lib-path"
             ;; -rpath makes a DT_RUNPATH, which LD_LIBRARY_PATH can
             ;; override and which is not inherited, not a DT_RPATH.
             "--enable-new-dtags")
           ;; The manuals are not rebuilt (there is no makeinfo yet).
           #:make-flags '("MAKEINFO=true")))
    (synopsis "Binary utilities: the assembler, the linker and their tools")
    (description "GNU Binutils: as, the assembler; ld, the linker; and the
tools that read and change object files and archives (ar, nm, objdump,
objcopy, readelf, strip, size, strings).")
    (home-page "https://www.gnu.org/software/binutils/")
    (license gpl3+)))

(define bash
  (package
    (name "bash")
    (version "5.2.15")
    (source %bash-source)
    (build-system gnu-build-system)
    (inputs (boot1-inputs))
    (arguments
     (list #:implicit-inputs? #f
           ;; Its suite compares output with files of an other locale setup
           ;; and runs for long; run when (gnu packages bash) takes it over.
           #:tests? #f
           #:configure-flags '("--without-bash-malloc" "--disable-nls")
           #:phases
           (modify-phases %standard-phases
             (add-after 'install 'link-sh "ln -s bash \"$out/bin/sh\"")
             ;; bashbug's shell and the Makefile of loadable builtins would
             ;; name the seeds' sh and install (what PATH had); checked
             ;; once the binaries are stripped.
             (add-after 'strip 'use-own-shell
               "sed -i \"1s|^#!.*|#!$out/bin/sh -|\" \"$out/bin/bashbug\"
sed -i 's|^INSTALL = .*|INSTALL = install -c|' \"$out/lib/bash/Makefile.inc\"
! grep -rqF \"$bootstrap_tools\" \"$out\""))))
    (synopsis "The GNU Bourne-Again SHell")
    (description "Bash, the shell of the GNU system: the POSIX shell
language with arrays, arithmetic, brace expansion, history and line
editing.  Scripts of the distribution are patched to run it.")
    (home-page "https://www.gnu.org/software/bash/")
    (license gpl3+)))

;;; binutils' ld behind the wrapper that gives each link its RUNPATH.
(define ld-wrapper
  (package
    (name "ld-wrapper")
    (version "0")
    (source #f)
    (build-system trivial-build-system)
    (inputs `(("bash" ,bash)
              ("binutils" ,binutils)
              ("template" ,(local-file (data-file "distro/bootstrap/ld-wrapper.in")
                                       "ld-wrapper.in"))
              ,@(boot0-inputs)))
    (arguments
     `(#:implicit-inputs? #f
       #:builder
       ,(seed-script "mkdir -p $out/bin
sed -e \"s|@bash@|$bash/bin/bash|\" -e \"s|@ld@|$binutils/bin/ld|\" \\
    -e \"s|@store@|${out%/*}|\" $template >$out/bin/ld
chmod 0555 $out/bin/ld
$out/bin/ld --version >/dev/null")))
    (synopsis "The linker, giving programs the RUNPATH they need")
    (description "A wrapper of binutils' ld that adds a RUNPATH entry for
the directory of each shared library a link takes from the store.")
    (home-page #f)
    (license gpl3+)
    (properties '((hidden? . #t)))))

(define (gcc-source-part name version hash)
  (origin
    (method url-fetch)
    (uri (string-append "mirror://gnu/" name "/" name "-" version ".tar."
                        (if (string=? name "mpc") "gz" "xz")))
    (sha256 (base32 hash))))

(define gcc
  (package
    (name "gcc")
    (version "12.2.0")
    (source (origin
              (method url-fetch)
              (uri (string-append "mirror://gnu/gcc/gcc-" version "/gcc-"
                                  version ".tar.xz"))
              ;; Debian's gcc-12_12.2.0.orig.tar.gz, which holds upstream's
              ;; release less its GFDL manuals (gcc-12.2.0-dfsg.tar.xz),
              ;; unpacked below, and two tarballs that are not used.
              (sha256
               (base32 "1jqgfif9v17acpz83k495r2lf6r4wald1zkakj46mfgfdbhqnadq"))))
    (build-system gnu-build-system)
    ;; Every program it links needs libgcc_s (see use-store-glibc): its
    ;; run-time libraries, start files and libgcc (lib/, 18 MiB) are an
    ;; output of their own, so that a program's closure holds them and
    ;; not the compiler (bin/, libexec/, include/: 80 MiB).
    (outputs '("out" "lib"))
    (inputs `(("ld-wrapper" ,ld-wrapper)
              ("binutils" ,binutils)
              ;; Before the seeds: the shell its installed scripts name.
              ("bash" ,bash)
              ,@(boot1-inputs)
              ("m4" ,m4-boot0)
              ;; Built in GCC's tree and linked into it statically.
              ("gmp-source"
               ,(gcc-source-part "gmp" "6.2.1"
                                 ;; Debian's gmp_6.2.1+dfsg1.orig.tar.xz
                                 "0k56xy42khdvc5666qpbvsp9rfd4y32sy5gj4h0jldh47r39w6s7"))
              ("mpfr-source"
               ,(gcc-source-part "mpfr" "4.2.0"
                                 "14yr4sf4mys64nzbgnd997l6l4n8l9vsjnnvnb0lh4jh2ggpi8q6"))
              ("mpc-source"
               ,(gcc-source-part "mpc" "1.3.1"
                                 "1f2rqz0hdrrhx4y1i5f8pv6yv08a876k1dqcm9s2p26gyn928r5b"))))
    (arguments
     (list #:implicit-inputs? #f
           #:out-of-source? #t
           ;; Its suite needs DejaGnu and runs for hours on two cores.
           #:tests? #f
           #:configure-flags
           '("--enable-languages=c,c++"
             "--disable-bootstrap"
             "--disable-multilib"
             "--disable-nls"
             "--disable-lto"
             "--disable-libsanitizer"
             "--disable-libvtv"
             "--disable-libstdcxx-pch"
             ;; No plugins, so no libcc1 (GDB's plugin, which libtool
             ;; did not name as its install expects).
             "--disable-plugin"
             "--enable-default-pie"
             "--with-system-zlib=no"
             "--with-native-system-header-dir=${glibc}/include"
             "--with-local-prefix=/no-gcc-local-prefix"
             ;; lib/ into the lib output; the C++ headers, which would
             ;; follow libdir, stay in out.
             "--libdir=${lib}/lib"
             "--with-gxx-include-dir=${out}/include/c++"
             ;; GCC's own programs take the seed compiler's libstdc++
             ;; and libgcc statically, not the seeds' shared ones.
             "LDFLAGS=-static-libstdc++ -static-libgcc"
             ;; The libraries it builds for programs (libstdc++, libgcc_s,
             ;; libatomic...) are linked by the ld wrapper, not the seeds'
             ;; ld, and find glibc and each other through their RUNPATH.
             "LD_FOR_TARGET=${ld_wrapper}/bin/ld"
             "LDFLAGS_FOR_TARGET=-Wl,-rpath,${lib}/lib -Wl,-rpath,${glibc}/lib")
           #:phases
           (modify-phases %standard-phases
             (add-after 'unpack 'unpack-gcc
               "set -e
tar xf gcc-12.2.0-dfsg.tar.xz --strip-components=1
rm -f ./*.tar.xz
for p in gmp mpfr mpc; do
  eval src=\\$${p}_source
  tar xf \"$src\"
  mv $p-* $p
done
# Debian's GMP has no doc/ (its manual is under the GFDL): a Makefile
# that makes nothing stands for it.
test ! -e gmp/doc
mkdir gmp/doc
printf 'all:\n%%:\n\t@:\n' >gmp/doc/Makefile.in
test -f gcc/gcc.cc && test -f gmp/configure && test -f mpc/configure")
             (add-after 'unpack-gcc 'use-store-glibc
               ;; The loader, start files and libraries of the store's
               ;; glibc, not /lib64 and /usr/lib; libraries in lib/, not
               ;; lib64/. The target's header is linux64.h on x86-64,
               ;; linux.h on i686.
               (string-append "set -e
h=gcc/config/i386/" (if (string=? (linux-arch) "x86_64") "linux64.h" "linux.h") "
sed -i -e \"s|/lib64/ld-linux-x86-64.so.2|$glibc/lib/ld-linux-x86-64.so.2|\" \\
  -e \"s|/lib/ld-linux.so.2|$glibc/lib/ld-linux.so.2|\" $h
grep -q \"$glibc/lib/" (seed-loader) "\" $h
cat >>$h <<EOF
#undef STANDARD_STARTFILE_PREFIX_1
#define STANDARD_STARTFILE_PREFIX_1 \"$glibc/lib/\"
#undef STANDARD_STARTFILE_PREFIX_2
#define STANDARD_STARTFILE_PREFIX_2 \"\"
EOF
sed -i -e '/m64=/s/lib64/lib/' gcc/config/i386/t-linux64
# The as and collect-ld scripts its build writes run the shell in PATH.
sed -i \"1s|^#! */bin/sh|#!$(command -v bash)|\" gcc/exec-tool.in
! grep -q '^#! */bin/sh' gcc/exec-tool.in"))
             ;; The manual's hook documentation cannot be checked against
             ;; Debian's stripped doc/tm.texi.in: said to be done.
             (add-before 'install 'no-tm-texi "touch gcc/s-tm-texi")
             (add-after 'install 'link-cc "ln -s gcc \"$out/bin/cc\"")
             ;; glibc loads libgcc_s with dlopen when a thread exits or is
             ;; cancelled (pthread_exit unwinds its stack), looking for it
             ;; where glibc's own libraries are, never in the program's
             ;; RUNPATH: only a libgcc_s the program has loaded already is
             ;; found. So every program and library linked dynamically
             ;; needs it, whatever --as-needed says: the installed GCC's
             ;; link specification (a specs file in its library directory,
             ;; read instead of the built-in one, which it copies) adds it.
             ;; Not the built-in one: GCC's own build runs programs of its
             ;; configure scripts before libgcc_s is installed.
             (add-after 'link-cc 'libgcc-s-always
               "set -e
d=$(\"$out/bin/gcc\" -print-libgcc-file-name)
d=${d%/*}
test ! -e \"$d/specs\"
\"$out/bin/gcc\" -dumpspecs | awk 'p { $0 = $0 \" %{!static:%{!static-pie:%{!static-libgcc:--push-state --no-as-needed -lgcc_s --pop-state}}}\"; p = 0 }
  $0 == \"*lib:\" { p = 1 } { print }' >\"$d/specs\"
grep -q -e '--no-as-needed -lgcc_s' \"$d/specs\"
cd \"$TMPDIR\"
printf '#include <pthread.h>\\nstatic void *f(void *a) { pthread_exit(a); }\\nint main(void) { pthread_t t; void *r; pthread_create(&t, 0, f, &t); pthread_join(t, &r); return r != &t; }\\n' >exit.c
\"$out/bin/gcc\" -pthread exit.c -o exit
./exit")
             ;; install-tools re-run fixincludes on a system's headers, which
             ;; a store has no use for; its programs name the seeds' sed.
             (add-after 'strip 'remove-install-tools
               "rm -r \"$out\"/libexec/gcc/*/*/install-tools \"$lib\"/lib/gcc/*/*/install-tools
! grep -rqF \"$bootstrap_tools\" \"$out\" \"$lib\"")
             ;; libstdc++'s printers for GDB name the Python modules in out:
             ;; they go there too, where GDB's auto-load looks for the
             ;; library's. Nothing else of lib names out.
             (add-after 'remove-install-tools 'lib-apart
               "set -e
d=\"$out/share/gdb/auto-load$lib/lib\"
mkdir -p \"$d\"
mv \"$lib\"/lib/libstdc++.so.*-gdb.py \"$d\"/
! grep -rlF \"$out\" \"$lib\""))))
    (synopsis "The GNU Compiler Collection: C and C++")
    (description "GCC, the GNU compiler of C and C++, with libstdc++ and
the runtime libraries they need.  It finds the store's glibc by itself;
the ld of gcc-toolchain gives the programs it links their RUNPATH.")
    (home-page "https://gcc.gnu.org/")
    (license gpl3+)))

;;; What users install to compile: GCC, binutils with the ld wrapper, and
;;; glibc's programs, in one bin/.  GCC finds glibc's headers and libraries
;;; by itself, so nothing else is needed in the profile.
(define gcc-toolchain
  (package
    (name "gcc-toolchain")
    (version (package-version gcc))
    (source #f)
    (build-system trivial-build-system)
    (inputs `(("gcc" ,gcc)
              ("ld-wrapper" ,ld-wrapper)
              ("binutils" ,binutils)
              ("glibc" ,glibc)
              ,@(boot0-inputs)))
    (arguments
     `(#:implicit-inputs? #f
       #:builder
       ,(seed-script "mkdir -p $out/bin
for d in $glibc/bin $binutils/bin $gcc/bin; do
  for f in $d/*; do ln -sfn $f $out/bin/${f##*/}; done
done
ln -sfn $ld_wrapper/bin/ld $out/bin/ld
ln -sfn $ld_wrapper/bin/ld $out/bin/ld.bfd
test -x $out/bin/gcc && test -x $out/bin/g++ && test -x $out/bin/cc")))
    (synopsis "GCC, binutils and glibc: the tool chain to compile C and C++")
    (description "The distribution's own tool chain in one package: GCC
(C and C++), GNU binutils with a linker that gives programs the RUNPATH of
the store libraries they use, and the GNU C library.")
    (home-page "https://gcc.gnu.org/")
    (license gpl3+)))

;;; The final tool chain, in PATH's order: ld-wrapper's ld before
;;; binutils'.
(define (final-tool-chain)
  `(("ld-wrapper" ,ld-wrapper)
    ("gcc" ,gcc)
    ("binutils" ,binutils)
    ("glibc" ,glibc)
    ("bash" ,bash)))

;;; Stage 3: the utilities every build runs, and the builder, built by the
;;; final GCC against the final glibc.  Their build takes the seeds'
;;; utilities after the final tool chain in PATH; nothing of the seeds is
;;; linked in (their lib/ holds no library the linker looks for), and
;;; their scripts name the final Bash.  Their suites run when the
;;; distribution's own packages of them are built, on them.
(define (boot2-inputs)
  `(,@(final-tool-chain)
    ("bootstrap-tools" ,%bootstrap-tools)))

(define (final p)
  (unless (null? (package-inputs p))
    (error (format #f "commencement: ~a has inputs of its own, which the final
inputs cannot build" (package-name p))))
  (package
    (inherit p)
    (inputs (boot2-inputs))
    ;; The first of a keyword's values is the one taken.
    (arguments (append (list #:implicit-inputs? #f #:tests? #f)
                       (package-arguments p)))
    (properties '((hidden? . #t)))))

(define coreutils-final (final coreutils))
(define sed-final (final sed))
(define grep-final (final grep))
(define gawk-final (final gawk))
(define tar-final (final tar))
(define gzip-final (final gzip))
(define bzip2-final (final bzip2))
(define xz-final (final xz))
(define make-final (final gnu-make))
(define diffutils-final (final diffutils))
(define patch-final (final patch))
(define findutils-final (final findutils))

;;; cix's builder again, compiled by the final GCC: the gnu-build-system
;;; of every other package runs on the final glibc.
(define gnu-build-final
  (package
    (inherit %gnu-build)
    (inputs `(("gcc-toolchain" ,gcc-toolchain)
              ("bash" ,bash)
              ("coreutils" ,coreutils-final)))
    (arguments
     `(#:implicit-inputs? #f
       #:builder ((input "bash" "/bin/bash") "-e" "-c"
                  ,(string-append "export PATH=$gcc_toolchain/bin:$coreutils/bin\n"
                                  %gnu-build-command))))))

;;; What gnu-build-system adds to every package's inputs (their order is
;;; PATH's): the final tool chain, the final utilities and the builder.
(define (%final-inputs)
  `(,@(final-tool-chain)
    ("coreutils" ,coreutils-final)
    ("sed" ,sed-final)
    ("grep" ,grep-final)
    ("gawk" ,gawk-final)
    ("tar" ,tar-final)
    ("gzip" ,gzip-final)
    ("bzip2" ,bzip2-final)
    ("xz" ,xz-final)
    ("make" ,make-final)
    ("diffutils" ,diffutils-final)
    ("patch" ,patch-final)
    ("findutils" ,findutils-final)
    ("gnu-build" ,gnu-build-final)))

;;; What trivial-build-system adds: the shell its snippets run in, and the
;;; basic utilities.
(define (%final-shell-inputs)
  `(("bash" ,bash)
    ("coreutils" ,coreutils-final)))
