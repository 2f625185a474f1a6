#!/bin/sh
# t4030-build-eval.sh - cix build: package definitions in Scheme, lowered to derivations
# SPDX-License-Identifier: GPL-3.0-or-later
test_description='cix build: Guix-style package files, origins as Nix fetchurl derivations, errors with their place, identical definitions give identical derivations, a package read half-way is not kept'
. "$(dirname "$0")/test-lib.sh"

test_private_store
# Downloads come from this directory only (the daemon's too: it starts later).
CIX_CAS_DIRS=$TRASH_DIRECTORY/cas CIX_MIRRORS_FILE=/dev/null
export CIX_CAS_DIRS CIX_MIRRORS_FILE
N="local?store=$CIX_STORE_DIR&real=$TRASH_DIRECTORY/nixreal&state=$TRASH_DIRECTORY/nixstate&log=$TRASH_DIRECTORY/nixlog"

test_expect_success 'cix build --help and --version' '
	cix build --help >help.out && grep -q -- "--derivations" help.out &&
	cix build --version >v.out && grep -q "cix build (cix)" v.out
'

test_expect_success 'numbers of options are whole decimal numbers within bounds' '
	for bad in "" -1 +1 " 1" 1x 1025 99999999999999999999; do
		test_expect_code 2 cix build -d -j "$bad" hello 2>err &&
		grep -q "invalid number" err || return 1
	done &&
	test_expect_code 2 cix build -d --timeout 315360001 hello 2>err &&
	grep -q "invalid number" err
'

test_expect_success 'nothing to build is a usage error' '
	test_expect_code 2 cix build 2>err && grep -q "nothing to build" err
'

test_expect_success NIX 'the source of hello is the .drv of Nix'"'"'s <nix/fetchurl.nix>, byte for byte' '
	cix build -S -d hello >src.drv &&
	h=$(sed -n "s/.*(base32 \"\(.*\)\").*/\1/p" "$CIX_SRC_DIR/distro/gnu/packages/base.scm" | head -1) &&
	cat >f.nix <<-EOF &&
	import <nix/fetchurl.nix> { url = "mirror://gnu/hello/hello-2.10.tar.gz"; sha256 = "$h"; }
	EOF
	nix-instantiate --store "$N" f.nix 2>/dev/null >nix.drv &&
	test_cmp nix.drv src.drv &&
	cmp "$TRASH_DIRECTORY/nixreal/$(basename $(cat nix.drv))" "$(cat src.drv)"
'

# A package that needs no bootstrap: a trivial build with a builder of its own.
cat >trivial.scm <<'EOF'
(use-modules (guix packages) (guix build-system trivial) (guix licenses))
(define seed
  (package
    (name "seed")
    (version "1.0")
    (build-system trivial-build-system)
    (arguments '(#:implicit-inputs? #f
                 #:builder ("/bin/sh" "-c" "echo $name > $out")
                 #:env (("GREETING" . "hi"))))
    (synopsis "s") (description "d") (home-page #f) (license gpl3+)))
(define user
  (package
    (inherit seed)
    (name "user")
    (inputs `(("seed" ,seed)))
    (outputs '("out" "doc"))))
user
EOF

test_expect_success 'a package file: its last value is built (-d prints the .drv)' '
	cix build -f trivial.scm -d >d1 &&
	test_line_count = 1 d1 &&
	grep -q -- "-user-1.0.drv$" d1 &&
	cix derivation show "$(cat d1)" >show.json &&
	grep -q "\"GREETING\": \"hi\"" show.json &&
	grep -q "seed-1.0.drv" show.json &&
	grep -q "\"doc\"" show.json
'

test_expect_success 'the same definitions give the same derivation; any change, another' '
	cix build -f trivial.scm -d >d2 && test_cmp d1 d2 &&
	sed "s/(\"GREETING\" . \"hi\")/(\"GREETING\" . \"ho\")/" trivial.scm >changed.scm &&
	cix build -f changed.scm -d >d3 && ! test_cmp d1 d3 &&
	sed "s/echo \$name/echo \$name!/" trivial.scm >changed2.scm &&
	cix build -f changed2.scm -d >d4 && ! test_cmp d1 d4 && ! test_cmp d3 d4
'

cat >prop.scm <<'EOF'
(use-modules (guix packages) (guix build-system trivial))
(define (pkg name inputs propagated)
  (package
    (name name) (version "1")
    (build-system trivial-build-system)
    (inputs inputs) (propagated-inputs propagated)
    (arguments '(#:implicit-inputs? #f #:builder ("/x")))))
(define b (pkg "bee" '() '()))
(define a (pkg "ay" '() `(("bee" ,b))))
(pkg "sea" `(("ay" ,a)) '())
EOF

test_expect_success 'propagated inputs reach the packages that use them' '
	cix build -d -f prop.scm >prop.drv &&
	cix derivation show "$(cat prop.drv)" >prop.json &&
	grep -q -- "-ay-1.drv" prop.json && grep -q -- "-bee-1.drv" prop.json &&
	grep "\"buildInputs\"" prop.json | grep -q -- "-bee-1" &&
	grep "\"bee\":" prop.json
'

cat >outs.scm <<\EOF
(use-modules (guix packages) (guix build-system trivial))
(define lib
  (package
    (name "lib") (version "1")
    (build-system trivial-build-system)
    (outputs '("out" "doc" "debug"))
    (arguments '(#:implicit-inputs? #f #:builder ("/x")))))
(package
  (name "app") (version "1")
  (build-system trivial-build-system)
  (inputs `(("lib" ,lib) ("libdoc" ,lib "doc")))
  (arguments '(#:implicit-inputs? #f
               #:builder ("/x" (input "lib") (input "libdoc")))))
EOF

test_expect_success 'an input is the output it names, whatever the order outputs are written in' '
	cix build -d -f outs.scm >app.drv &&
	cix build -d -e "(begin (load \"$TRASH_DIRECTORY/outs.scm\") lib)" >lib.drv &&
	cix derivation show "$(cat lib.drv)" >lib.json &&
	cix derivation show "$(cat app.drv)" >app.json &&
	for o in out doc; do
		sed -n "/\"$o\": {/,/}/s/.*\"path\": \"\(.*\)\".*/\1/p" lib.json >"$o.path" &&
		test_line_count = 1 "$o.path" || return 1
	done &&
	sed -n "/\"args\"/,/]/p" app.json >args &&
	grep -n "\"$(cat out.path)\"" args >o.line && grep -n "\"$(cat doc.path)\"" args >d.line &&
	test "$(cut -d: -f1 o.line)" -lt "$(cut -d: -f1 d.line)"
'

test_expect_success '-e EXPR names a package too' '
	cix build -d -e "(begin (load \"$TRASH_DIRECTORY/trivial.scm\"))" >e.drv &&
	test_cmp d1 e.drv
'

test_expect_success 'missing Scheme modules are one clear line' '
	CIX_SCHEME_PATH=/nonexistent CIX_SCHEME_COMPILED_PATH=/nonexistent \
		test_must_fail cix build -d hello 2>err &&
	test_line_count = 1 err && grep -q "cannot load cix.s Scheme modules" err
'

test_expect_success 'an unknown package is refused in one line' '
	test_must_fail cix build -d no-such-package 2>err &&
	test_line_count = 1 err && grep -q "no-such-package: unknown package" err
'

test_expect_success 'an unknown output is refused' '
	test_must_fail cix build -d hello:doc 2>err && grep -q "no output .doc." err
'

test_expect_success 'an unknown field is a located error' '
	cat >badfield.scm <<-\EOF &&
	(use-modules (guix packages) (guix build-system trivial))
	(package
	  (name "x")
	  (colour "blue"))
	EOF
	test_must_fail cix build -d -f badfield.scm 2>err &&
	test_line_count = 1 err &&
	grep -q "badfield.scm:4:" err && grep -q "unknown field .colour." err
'

test_expect_success 'a missing field is a located error' '
	cat >nofield.scm <<-\EOF &&
	(use-modules (guix packages) (guix build-system trivial))

	(package (name "x"))
	EOF
	test_must_fail cix build -d -f nofield.scm 2>err &&
	grep -q "nofield.scm:3:0: package: no .build-system. field" err
'

test_expect_success 'a reader error is located' '
	printf "(use-modules (guix packages))\n(package (name \"x\"\n" >unbalanced.scm &&
	test_must_fail cix build -d -f unbalanced.scm 2>err &&
	test_line_count = 1 err && grep -q "unbalanced.scm:" err
'

test_expect_success 'an unbound variable is reported, with its place' '
	printf "(use-modules (guix packages))\n\n(car no-such-variable)\n" >unbound.scm &&
	test_must_fail cix build -d -f unbound.scm 2>err &&
	test_line_count = 1 err && grep -q "no-such-variable" err
'

test_expect_success 'a file that gives no package' '
	echo 42 >num.scm &&
	test_must_fail cix build -d -f num.scm 2>err && grep -q "is not a package" err
'

test_expect_success 'bad arguments of a build system are refused' '
	cat >badarg.scm <<-\EOF &&
	(use-modules (guix packages) (guix build-system gnu))
	(package (name "x") (version "1") (source #f)
	  (build-system gnu-build-system)
	  (arguments (quote (#:colour "blue"))))
	EOF
	test_must_fail cix build -d -f badarg.scm 2>err &&
	grep -q "badarg.scm:2:0: gnu-build-system: unknown argument #:colour" err
'

# Packages whose reading into C fails half-way: at their build system's
# say (a Scheme error unwinding through the reader), at an input that is
# no package (an error of the reader's own). package-derivation reads in
# the same process as the command, so the same package is read again.
cat >half.scm <<'EOF'
(use-modules (guix packages) (guix build-system trivial))
(define (pkg name args inputs)
  (package
    (name name) (version "1")
    (build-system trivial-build-system)
    (inputs inputs)
    (arguments (append '(#:implicit-inputs? #f #:builder ("/x")) args))))
(define leaf (pkg "leaf" '() '()))
(define bad-args (pkg "bad-args" '(#:colour "blue") `(("leaf" ,leaf))))
(define bad-input (pkg "bad-input" '() `(("leaf" ,leaf) ("x" ,42))))
(define (user p) (pkg (string-append "user-of-" (package-name p)) '() `(("p" ,p))))
;; The message of the error of reading P, or its derivation.
(define (try p)
  (catch #t (lambda () (package-derivation p))
    (lambda (key . args) (apply format #f (cadr args) (caddr args)))))
EOF

test_expect_success 'a package read half-way is not kept: read again, the same error' '
	for b in bad-args bad-input; do
		test_must_fail cix build -d -e "(begin (load \"$TRASH_DIRECTORY/half.scm\")
		  (let* ((u (user $b)) (one (try u)) (two (try u)) (alone (try $b)))
		    (error (string-append one \" | \" two \" | \" alone))))" 2>err &&
		grep -v "^WARNING" err >msg && test_line_count = 1 msg &&
		sed "s/^cix build: //" msg | tr "|" "\n" | sed "s/^ *//; s/ *$//" | sort -u >msgs &&
		test_line_count = 1 msgs &&
		grep -q "^$TRASH_DIRECTORY/half.scm:3:2: " msgs && ! grep -q "\.drv" msgs ||
		{ cat err; return 1; }
	done &&
	grep -q "package .bad-input.: not a package, origin or file$" msgs
'

test_expect_success 'after a read that failed: the command'"'"'s own read, the same error; others whole' '
	test_must_fail cix build -d -e "(begin (load \"$TRASH_DIRECTORY/half.scm\")
	  (try (user bad-args)) bad-args)" 2>err &&
	grep -q "trivial-build-system: unknown argument #:colour$" err &&
	cix build -d -e "(begin (load \"$TRASH_DIRECTORY/half.scm\") (user leaf))" >whole.drv &&
	cix build -d -e "(begin (load \"$TRASH_DIRECTORY/half.scm\")
	  (try (user bad-input)) (try bad-args) (user leaf))" >after.drv &&
	test_cmp whole.drv after.drv
'

test_expect_success 'a hash of the wrong length in an origin' '
	cat >badhash.scm <<-\EOF &&
	(use-modules (guix packages) (guix download))
	(origin (method url-fetch) (uri "http://example.org/x.tar.gz")
	        (sha256 (base32 "0ssi")))
	EOF
	test_must_fail cix build -d -f badhash.scm 2>err &&
	test_line_count = 1 err && grep -q "base32" err
'

test_expect_success 'a source is built (downloaded) from a content-addressed mirror, offline' '
	mkdir -p cas/sha256 && printf "the source\n" >src.tar &&
	hex=$(cix hash -f base16 src.tar) && b32=$(cix hash src.tar) &&
	cp src.tar cas/sha256/$hex &&
	cat >cas.scm <<-EOF &&
	(use-modules (guix packages) (guix download) (guix build-system trivial))
	(package (name "cas") (version "1") (build-system trivial-build-system)
	  (source (origin (method url-fetch)
	                  (uri "mirror://no-such-mirror/cas/src.tar")
	                  (sha256 (base32 "$b32"))))
	  (arguments (quote (#:implicit-inputs? #f #:builder ("/x")))))
	EOF
	cix build -S -f cas.scm >src.out &&
	cmp src.tar "$(cat src.out)" &&
	case "$(cat src.out)" in */*-src.tar) ;; *) false ;; esac
'

test_expect_success 'without the mirror, the unknown mirror is the error' '
	cix store --delete "$(cat src.out)" &&
	mv cas cas.away &&
	{ test_must_fail cix build -S -f cas.scm 2>err; r=$?; mv cas.away cas; test $r = 0; } &&
	grep -q "unknown mirror .no-such-mirror." err
'

# A static program of the host's as a builder: a real build, no bootstrap.
cat >mkout.c <<'EOF'
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
int main(int argc, char **argv)
{
	const char *out = getenv("out"), *name = getenv("name");
	if (argc > 1 && !strcmp(argv[1], "fail")) {
		fprintf(stderr, "failing on purpose\n");
		return 1;
	}
	FILE *f = out ? fopen(out, "w") : NULL;
	if (!f)
		return 2;
	fprintf(f, "built %s\n", name ? name : "?");
	return fclose(f) != 0;
}
EOF
cat >static.scm <<'EOF'
(use-modules (guix packages) (guix build-system trivial))
(package
  (name "static") (version "1")
  (build-system trivial-build-system)
  (inputs `(("prog" ,(local-file "mkout"))))
  (arguments '(#:implicit-inputs? #f #:builder ((input "prog")))))
EOF
sed 's/#:builder ((input "prog"))/#:builder ((input "prog") "fail")/; s/"static"/"failing"/' static.scm >failing.scm
gcc -static -O2 -o mkout mkout.c 2>/dev/null && test_set_prereq STATIC

test_expect_success STATIC '-n lists what would be built' '
	cix build -n -f static.scm 2>n.out &&
	grep -q "would be built" n.out && grep -q -- "-static-1.drv" n.out
'

test_expect_success STATIC 'a package is built in the sandbox; its output path is printed' '
	cix build -f static.scm >out1 &&
	test_line_count = 1 out1 &&
	test "$(cat "$(cat out1)")" = "built static-1" &&
	cix build -f static.scm >out2 && test_cmp out1 out2 &&
	cix build -n -f static.scm 2>n2.out && grep -q "nothing to be built" n2.out
'

test_expect_success STATIC 'its .drv builds the same; --check agrees; --log-file names the log' '
	cix build "$(cix build -d -f static.scm)" >out3 && test_cmp out1 out3 &&
	cix build --check -f static.scm >out4 && test_cmp out1 out4 &&
	cix build --log-file -f static.scm >log.path && test -s "$(cat log.path)"
'

test_expect_success STATIC,LOCAL '-r makes a symlink to the result and an indirect root' '
	cix build -r result -f static.scm >out5 &&
	test "$(readlink result)" = "$(cat out1)" &&
	ls "$CIX_STATE_DIR"/gcroots/auto/ >roots && test_line_count = 1 roots &&
	test "$(readlink "$CIX_STATE_DIR/gcroots/auto/$(cat roots)")" = "$TRASH_DIRECTORY/result" &&
	cix build -r two -f static.scm -f static.scm >out6 &&
	test "$(readlink two-0)" = "$(cat out1)" && test "$(readlink two-1)" = "$(cat out1)" &&
	! test -e two-2
'

test_expect_success STATIC 'a failing build fails, says so, and registers nothing' '
	test_must_fail cix build -f failing.scm 2>fail.err &&
	grep -q "failing on purpose" fail.err &&
	o=$(cix build -d -f failing.scm) &&
	cix derivation show "$o" >fail.json &&
	out=$(sed -n "s/.*\"path\": \"\(.*-failing-1\)\".*/\1/p" fail.json | head -1) &&
	test -n "$out" && test_must_fail cix store --check-validity "$out"
'

command -v git >/dev/null && test_set_prereq GIT

test_expect_success GIT 'a local file with #:select? (git-predicate DIR): only the files Git tracks' '
	mkdir -p repo/sub repo/build &&
	echo tracked >repo/a && echo tracked >repo/sub/b && printf "#!/bin/sh\n" >repo/run &&
	chmod +x repo/run && ln -s a repo/link &&
	(cd repo && git init -q && git add a sub/b run link &&
	 git -c user.name=t -c user.email=t@t commit -q -m one) &&
	echo untracked >repo/c && echo made >repo/build/out &&
	cat >sel.scm <<-EOF &&
	(use-modules (guix packages) (guix git-download) (guix build-system trivial))
	(package (name "sel") (version "1")
	  (source (local-file "$TRASH_DIRECTORY/repo" "the-checkout" #:recursive? #t
	                      #:select? (git-predicate "$TRASH_DIRECTORY/repo")))
	  (build-system trivial-build-system)
	  (arguments (quote (#:implicit-inputs? #f #:builder ("/x")))))
	EOF
	# (a temporary directory of its own: other tests make theirs in /tmp)
	mkdir -p seltmp && TMPDIR=$TRASH_DIRECTORY/seltmp cix build -d -f sel.scm >sel.drv &&
	cix derivation show "$(cat sel.drv)" >sel.json &&
	src=$(sed -n "s|.*\"\(/[^\"]*-the-checkout\)\".*|\1|p" sel.json | head -1) &&
	test -n "$src" &&
	(cd "$src" && find . | LC_ALL=C sort) >found &&
	printf "%s\n" . ./a ./link ./run ./sub ./sub/b >expect &&
	test_cmp expect found &&
	test -x "$src/run" && ! test -x "$src/a" && test "$(readlink "$src/link")" = a &&
	! ls seltmp | grep "^cix-select\."
'

test_expect_success GIT 'the selection is its content: an untracked change is no change, a tracked one is' '
	echo more >repo/c2 &&
	cix build -d -f sel.scm >sel2.drv && test_cmp sel.drv sel2.drv &&
	echo changed >repo/a &&
	cix build -d -f sel.scm >sel3.drv && ! test_cmp sel.drv sel3.drv
'

test_expect_success 'a bad #:select?, and git-predicate out of a checkout, fail in one line' '
	cat >badsel.scm <<-EOF &&
	(use-modules (guix packages) (guix build-system trivial))
	(package (name "sel") (version "1")
	  (source (local-file "$TRASH_DIRECTORY" "x" #:select? 42))
	  (build-system trivial-build-system)
	  (arguments (quote (#:implicit-inputs? #f #:builder ("/x")))))
	EOF
	test_must_fail cix build -d -f badsel.scm 2>err &&
	test_line_count = 1 err && grep "#:select? is a procedure" err &&
	mkdir -p nogit &&
	sed -e "s|(guix build-system trivial)|(guix build-system trivial) (guix git-download)|" \
		-e "s|#:select? 42|#:select? (git-predicate \"$TRASH_DIRECTORY/nogit\")|" \
		badsel.scm >nogit.scm &&
	GIT_CEILING_DIRECTORIES=$TRASH_DIRECTORY test_must_fail cix build -d -f nogit.scm 2>err &&
	grep "git-predicate" err
'

test_expect_success '--system: the derivations say it, and the packages see it as %current-system' '
	cat >sys.scm <<-\EOF &&
	(use-modules (guix packages) (guix build-system trivial))
	(package (name "sys") (version "1") (source #f)
	  (build-system trivial-build-system)
	  (arguments (list #:implicit-inputs? #f #:builder (list "/x")
	                   #:env (list (cons "SEEN" (%current-system))))))
	EOF
	cix build -d -f sys.scm >x86.drv &&
	cix build -d --system=i686-linux -f sys.scm >i686.drv &&
	! test_cmp x86.drv i686.drv &&
	cix derivation show "$(cat i686.drv)" >i686.json &&
	grep "\"system\": \"i686-linux\"" i686.json && grep "\"SEEN\": \"i686-linux\"" i686.json &&
	cix derivation show "$(cat x86.drv)" >x86.json &&
	grep "\"SEEN\": \"x86_64-linux\"" x86.json &&
	for bad in "" i686 -linux i686- i686-linux-gnu "i686 linux" I686-linux; do
		test_expect_code 2 cix build -d --system="$bad" -f sys.scm 2>err &&
		grep -q "is not a system" err || return 1
	done
'

test_expect_success '--system with no bootstrap binaries for it: one line naming it' '
	test_must_fail cix build -d --system=riscv64-linux hello 2>err &&
	test_line_count = 1 err &&
	grep "no bootstrap binaries for riscv64-linux (there are for x86_64-linux, i686-linux)" err
'

test_expect_success 'the arguments of a package are worked out for the system it is lowered for' '
	cix build -d --system=i686-linux linux-headers >h32.drv &&
	cix build -d linux-headers >h64.drv &&
	cix derivation show "$(cat h32.drv)" >h32.json &&
	cix derivation show "$(cat h64.drv)" >h64.json &&
	grep "\"system\": \"i686-linux\"" h32.json && grep -q "ARCH=i386 " h32.json &&
	grep "\"system\": \"x86_64-linux\"" h64.json && grep -q "ARCH=x86_64 " h64.json &&
	cix build -d --system=i686-linux -e "(@ (gnu packages base) gnu-make)" >m32.drv &&
	cix derivation show "$(cat m32.drv)" | grep -q "MAKE_HOST .*i686-pc-linux-gnu"
'

# (The host's /bin/sh as builder: not through a daemon, whose sandbox
# has its own paths.)
[ "$(uname -m)" = x86_64 ] && [ -z "${CIX_TEST_DAEMON:-}" ] && test_set_prereq X86_64

test_expect_success X86_64 'an i686-linux derivation is built with a 32-bit personality: uname -m says i686' '
	cat >uname.scm <<-\EOF &&
	(use-modules (guix packages) (guix build-system trivial))
	(package (name "uname") (version "1") (source #f)
	  (build-system trivial-build-system)
	  (arguments (quote (#:implicit-inputs? #f
	                     #:builder ("/bin/sh" "-c" "/bin/uname -m >$out")))))
	EOF
	(
		test_sandbox_host_paths &&
		out=$(cix build -f uname.scm) && test "$(cat "$out")" = x86_64 &&
		out=$(cix build --system=i686-linux -f uname.scm) && test "$(cat "$out")" = i686
	)
'

test_done
