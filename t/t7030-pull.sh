#!/bin/sh
# t7030-pull.sh - cix pull: the package collection from a git repository, in generations
# SPDX-License-Identifier: GPL-3.0-or-later
test_description='cix pull: a commit of a git repository built into the store and used by cix, generations, roll-back, GC roots, broken commits and bad URLs refused'
. "$(dirname "$0")/test-lib.sh"

test_private_store
unset XDG_CONFIG_HOME XDG_CACHE_HOME CIX_PULL_URL
GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.org
GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@example.org GIT_CONFIG_NOSYSTEM=1
export GIT_AUTHOR_NAME GIT_AUTHOR_EMAIL GIT_COMMITTER_NAME GIT_COMMITTER_EMAIL GIT_CONFIG_NOSYSTEM
REPO=$TRASH_DIRECTORY/repo
CUR=$HOME/.config/cix/current

command -v git >/dev/null && test_set_prereq GIT

# cix as a user who set none of the variables of test-lib: the pulled
# generation is then what it uses.
pulled () {
	env -u CIX_SCHEME_PATH -u CIX_SCHEME_COMPILED_PATH -u CIX_DATA_DIR cix "$@"
}
# The store path of generation N.
gen () { readlink "$CUR-$1-link"; }
commit_repo () { (cd "$REPO" && git add -A && git commit -q -m "$1" && git rev-parse HEAD); }

# $MKPKG builds the package the second commit adds.
[ -x "$MKPKG" ] && test_set_prereq STATIC

write_pulltest () {
	cat >"$REPO/distro/gnu/packages/pulltest.scm" <<EOF
(define-module (gnu packages pulltest)
  #:use-module (guix packages)
  #:use-module (guix build-system trivial))
(define-public pulltest
  (package
    (name "pulltest") (version "$1")
    (build-system trivial-build-system)
    (inputs \`(("mkpkg" ,(local-file "$MKPKG" "mkpkg"))))
    (arguments '(#:implicit-inputs? #f
                 #:builder ((input "mkpkg") "pulltest" "$1")))
    (synopsis "a package only a pull brings") (description "d")
    (home-page "h") (license #f)))
EOF
}

test_expect_success GIT 'a repository holding the project'"'"'s modules' '
	mkdir -p "$REPO/scheme" &&
	cp -R "$CIX_SRC_DIR/scheme/modules" "$REPO/scheme/modules" &&
	cp -R "$CIX_SRC_DIR/distro" "$CIX_SRC_DIR/builder" "$REPO/" &&
	git init -q -b main "$REPO" &&
	commit_repo one >c1 && test_line_count = 1 c1
'

test_expect_success '--help, --version and usage errors' '
	cix pull --help >help && grep -q -- "--roll-back" help && grep -q -- "--url" help &&
	cix pull --version >v && grep -q "cix pull (cix)" v &&
	test_expect_code 2 cix pull extra 2>err && grep -q "unexpected argument" err &&
	test_expect_code 2 cix pull --branch=b --commit=abcd 2>err && grep -q "exclusive" err &&
	test_expect_code 2 cix pull --commit=xyz 2>err && grep -q "invalid commit" err &&
	test_expect_code 2 cix pull --branch=a..b 2>err && grep -q "invalid branch" err &&
	test_expect_code 2 cix pull -l --roll-back 2>err && grep -q "separate" err &&
	test_expect_code 2 cix pull -l --url=x 2>err && grep -q "separate" err &&
	test_expect_code 2 cix pull --url=-x 2>err && grep -q "invalid URL" err &&
	test_expect_code 2 cix pull --frobnicate 2>err && test_line_count = 2 err
'

test_expect_success GIT 'a bad URL fails in one line, and makes no generation' '
	test_expect_code 1 cix pull --url="$TRASH_DIRECTORY/nothing" 2>err &&
	grep "^cix pull: cannot fetch from .*nothing.*: fatal: " err &&
	test_expect_code 1 cix pull --url="file://$TRASH_DIRECTORY/nothing" 2>err &&
	grep -q "^cix pull: cannot fetch from .file://" err &&
	test_path_is_missing "$CUR" &&
	cix pull -l >list && test_line_count = 0 list &&
	test_expect_code 1 cix pull --roll-back 2>err && grep -q "no generation yet" err &&
	! ls "$HOME/.cache/cix/pull" | grep -q "\.git$"
'

test_expect_success GIT 'a commit that is not a repository of cix is refused' '
	mkdir other && (cd other && git init -q -b main && echo x >README &&
		git add README && git commit -q -m x) &&
	test_expect_code 1 cix pull --url="$TRASH_DIRECTORY/other" 2>err &&
	grep -q "has no scheme/modules and distro" err && test_path_is_missing "$CUR"
'

test_expect_success GIT 'cix pull: generation 1, the commit built into the store' '
	cix pull --url="$REPO" 2>err &&
	grep -q "generation 1: $CIX_STORE_DIR/.*-cix-pull-$(cut -c1-7 c1) " err &&
	test "$(readlink "$CUR")" = current-1-link &&
	p1=$(gen 1) && echo "$p1" >p1 &&
	case $p1 in "$CIX_STORE_DIR"/*-cix-pull-$(cut -c1-7 c1)) ;; *) false ;; esac &&
	cix store --check-validity "$p1" &&
	test_cmp c1 "$p1/commit" &&
	diff -r "$CIX_SRC_DIR/scheme/modules" "$p1/share/cix/scheme" &&
	diff -r "$CIX_SRC_DIR/distro" "$p1/share/cix/distro" &&
	diff -r "$CIX_SRC_DIR/builder" "$p1/share/cix/builder" &&
	(cd "$p1/share/cix/scheme" && find . -name "*.scm") | sed "s/scm$/go/" | sort >want &&
	(cd "$p1/share/cix/distro" && find . -name "*.scm") | sed "s/scm$/go/" | sort -o want - want &&
	(cd "$p1/lib/cix/scheme/go" && find . -name "*.go") | sort >got &&
	test_cmp want got
'

test_expect_success GIT 'cix uses it: the same packages as the source tree has, its data directory' '
	cix package -A >from-source &&
	pulled package -A >from-pull &&
	test -s from-pull && test_cmp from-source from-pull &&
	dir="((@ (cix primitives) %cix-data-dir))" &&
	test_must_fail pulled build -d -e "(error \"data:\" $dir)" 2>err &&
	grep -q "data: \"$(cat p1)/share/cix\"" err &&
	test_must_fail cix build -d -e "(error \"data:\" $dir)" 2>err &&
	grep -q "data: \"$CIX_SRC_DIR\"" err
'

test_expect_success GIT 'the same commit again: nothing to do' '
	cix pull --url="$REPO" 2>err && grep -q "already at commit $(cat c1)" err &&
	test "$(readlink "$CUR")" = current-1-link && test_path_is_missing "$CUR-2-link"
'

test_expect_success GIT 'a new package in the repository: generation 2 has it' '
	write_pulltest 1.0 && commit_repo two >c2 &&
	CIX_PULL_URL=$REPO cix pull 2>err && grep -q "generation 2: " err &&
	test "$(readlink "$CUR")" = current-2-link && test_cmp c2 "$(gen 2)/commit" &&
	pulled package -A pulltest >a && grep -q "^pulltest	1.0	out	gnu/packages/pulltest.scm:5$" a &&
	cix package -A pulltest >a && test_line_count = 0 a &&
	pulled build -d pulltest >d && grep -q -- "-pulltest-1.0.drv$" d
'

test_expect_success GIT,STATIC 'the new package builds' '
	pulled build pulltest >out && test_line_count = 1 out &&
	test "$(cat "$(cat out)/bin/pulltest")" = "pulltest 1.0"
'

# (LeakSanitizer cannot run under ptrace: not asked for there.)
command -v strace >/dev/null && test_set_prereq STRACE
test_expect_success GIT,STRACE 'cix loads the compiled modules of the generation' '
	ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 \
		strace -f -e trace=openat -o trace env -u CIX_SCHEME_PATH \
		-u CIX_SCHEME_COMPILED_PATH -u CIX_DATA_DIR cix build -d pulltest >/dev/null 2>&1 &&
	grep -q "\"$(gen 2)/lib/cix/scheme/go/gnu/packages/pulltest.go\"" trace &&
	grep -q "\"$(gen 2)/lib/cix/scheme/go/guix/packages.go\"" trace &&
	! grep "\"$CIX_BUILD_DIR/scheme/go/" trace
'

test_expect_success GIT 'cix pull -l: the generations, their dates and commits' '
	cix pull -l >list &&
	grep -q "^Generation 1	" list && grep -q "^Generation 2	.*(current)$" list &&
	grep -q "^  commit $(cat c1)$" list && grep -q "^  commit $(cat c2)$" list &&
	grep -q "^  $(gen 2)$" list && test $(grep -c "(current)" list) = 1
'

test_expect_success GIT '--roll-back: generation 1, without the package; -S switches' '
	cix pull --roll-back 2>err && grep -q "from generation 2 to 1" err &&
	test "$(readlink "$CUR")" = current-1-link &&
	pulled package -A pulltest >a && test_line_count = 0 a &&
	test_must_fail pulled build -d pulltest 2>err &&
	test_expect_code 1 cix pull --roll-back 2>err && grep -q "no generation before 1" err &&
	cix pull -S 2 && test "$(readlink "$CUR")" = current-2-link &&
	pulled package -A pulltest >a && test_line_count = 1 a &&
	cix pull -S -1 && test "$(readlink "$CUR")" = current-1-link &&
	test_expect_code 1 cix pull -S 7 2>err && grep -q "generation 7 does not exist" err &&
	test_expect_code 1 cix pull -S x 2>err && grep -q "invalid generation" err &&
	test "$(readlink "$CUR")" = current-1-link &&
	cix pull --switch-generation=+1 && test "$(readlink "$CUR")" = current-2-link
'

test_expect_success GIT 'CIX_SCHEME_PATH, when set, wins over the pulled collection' '
	CIX_SCHEME_COMPILED_PATH= cix package -A pulltest >a && test_line_count = 0 a &&
	CIX_SCHEME_PATH= pulled package -A pulltest >a && test_line_count = 1 a
'

# pull_refused PATTERN: cix pull fails, saying PATTERN; current is $before.
pull_refused () {
	test_expect_code 1 cix pull --url="$REPO" 2>err &&
	grep "$1" err &&
	test "$(readlink "$CUR")" = "$before" && test_path_is_missing "$CUR-3-link"
}

test_expect_success GIT 'a broken commit fails clearly and leaves the current generation' '
	before=$(readlink "$CUR") &&
	printf "(define-module (gnu packages broken))\n(define x (+ 1 2)\n" \
		>"$REPO/distro/gnu/packages/broken.scm" &&
	commit_repo broken >c3 &&
	pull_refused "^cix pull: commit $(cut -c1-12 c3) is broken (the current generation stays): gnu/packages/broken.scm:3:1: " &&
	printf "(define-module (gnu packages broken))\n(define-public x (no-such-thing))\n" \
		>"$REPO/distro/gnu/packages/broken.scm" &&
	commit_repo unbound >c4 &&
	pull_refused "is broken (the current generation stays): gnu/packages/broken.scm: .*no-such-thing" &&
	pulled package -A pulltest >a && test_line_count = 1 a &&
	(cd "$REPO" && git rm -q distro/gnu/packages/broken.scm && git commit -q -m fixed)
'

test_expect_success GIT 'cix gc keeps every generation' '
	cix gc 2>err &&
	cix store --check-validity "$(gen 1)" "$(gen 2)" &&
	cix gc --list-roots >roots &&
	grep -q "current-1-link" roots && grep -q "current-2-link" roots &&
	pulled package -A pulltest >a && test_line_count = 1 a
'

test_expect_success GIT '--commit: an older commit gives the same store item again' '
	cix pull --url="$REPO" --commit=$(cut -c1-10 c1) 2>err &&
	grep -q "generation 3: " err &&
	test "$(gen 3)" = "$(gen 1)" &&
	pulled package -A pulltest >a && test_line_count = 0 a &&
	test_expect_code 1 cix pull --url="$REPO" --commit=0123456789 2>err &&
	grep -q "no commit .0123456789." err && test "$(readlink "$CUR")" = current-3-link
'

test_expect_success GIT '--branch: the head of that branch' '
	(cd "$REPO" && git checkout -q -b other) && write_pulltest 2.0 && commit_repo v2 >c5 &&
	(cd "$REPO" && git checkout -q main) &&
	cix pull --url="$REPO" --branch=other 2>err && grep -q "generation 4: " err &&
	test_cmp c5 "$(gen 4)/commit" &&
	pulled package -A pulltest >a && grep -q "^pulltest	2.0	" a &&
	test_expect_code 1 cix pull --url="$REPO" --branch=nope 2>err &&
	grep -q "^cix pull: cannot fetch from .*: fatal: .*nope" err &&
	test "$(readlink "$CUR")" = current-4-link
'

SOCK=$TRASH_DIRECTORY/daemon.sock
test_expect_success GIT 'through the daemon: the item added and rooted by it' '
	test_start_daemon "$SOCK" CIX_CONF_FILE=/dev/null &&
	(cd "$REPO" && git checkout -q other) && write_pulltest 3.0 && commit_repo v3 >c6 &&
	CIX_DAEMON_SOCKET=$SOCK cix pull --url="$REPO" --branch=other 2>err &&
	grep -q "generation 5: " err && test_cmp c6 "$(gen 5)/commit" &&
	CIX_DAEMON_SOCKET=$SOCK cix gc 2>err &&
	CIX_DAEMON_SOCKET=$SOCK cix gc --list-roots >roots &&
	grep -q "current-5-link" roots &&
	for n in 1 2 4 5; do cix store --check-validity "$(gen $n)" || return 1; done &&
	pulled package -A pulltest >a && grep -q "^pulltest	3.0	" a
'

test_expect_success GIT 'a commit whose Makefile names a VERSION: its source tarball in the item' '
	for n in 1 2 4 5; do ! ls "$(gen $n)/share/cix" | grep -q "tar.gz" || return 1; done &&
	printf "# cix\nVERSION  := 9.9.1\nCC ?= gcc\n" >"$REPO/Makefile" &&
	commit_repo makefile >c7 &&
	cix pull --url="$REPO" 2>err && grep -q "generation 6: " err &&
	tarball=$(gen 6)/share/cix/cix-9.9.1.tar.gz && test -f "$tarball" &&
	tar tzf "$tarball" >list &&
	grep -q "^cix-9.9.1/Makefile$" list &&
	grep -q "^cix-9.9.1/distro/gnu/packages/pulltest.scm$" list &&
	(cd "$REPO" && git ls-files) | sed "s|^|cix-9.9.1/|" | sort >want &&
	grep -v "/$" list | sort >got && test_cmp want got
'

# A cix package for --build-cix that the tests can build: the programs are
# scripts saying their version, the modules copies of this tree's, put in
# place by mkpkg -c from a tree made here ($1: the version; $2: what of
# the tree to leave out; $3: the tree the builder copies, if not that one).
write_fake_cix () {
	rm -rf fake && mkdir -p fake/bin fake/share/cix fake/lib/cix/scheme &&
	printf "#!/bin/sh\necho cix %s\n" "$1" >fake/bin/cix &&
	printf "#!/bin/sh\necho cix-daemon %s\n" "$1" >fake/bin/cix-daemon &&
	chmod +x fake/bin/cix fake/bin/cix-daemon &&
	cp -R "$CIX_SRC_DIR/scheme/modules" fake/share/cix/scheme &&
	cp -R "$CIX_SRC_DIR/distro" fake/share/cix/distro &&
	cp -R "$CIX_SRC_DIR/builder" fake/share/cix/builder &&
	cp -R "$CIX_BUILD_DIR/scheme/go" fake/lib/cix/scheme/go &&
	if [ -n "${2-}" ]; then rm -r "fake/$2"; fi &&
	copied=${3:-"(input \"tree\")"} &&
	cat >"$REPO/distro/gnu/packages/package-management.scm" <<EOF
(define-module (gnu packages package-management)
  #:use-module (guix packages)
  #:use-module (guix build-system trivial))
(define-public cix
  (package
    (name "cix") (version "$1") (source #f)
    (build-system trivial-build-system)
    (inputs \`(("mkpkg" ,(local-file "$MKPKG" "mkpkg"))
              ("tree" ,(local-file "$TRASH_DIRECTORY/fake" "fake-cix" #:recursive? #t))))
    (arguments '(#:implicit-inputs? #f
                 #:builder ((input "mkpkg") "-c" $copied)))
    (synopsis "s") (description "d") (home-page "h") (license #f)))
EOF
}

test_expect_success GIT,STATIC '--build-cix: the commit'"'"'s cix built; its programs in the generation' '
	write_fake_cix 9.9.1 && commit_repo fake-cix >c8 &&
	cix pull --url="$REPO" --build-cix 2>err &&
	grep -q "building the cix of commit $(cut -c1-12 c8)" err &&
	grep -q "generation 7: $CIX_STORE_DIR/.*-profile " err &&
	grep -q "its cix is $CUR/bin/cix: put that directory first in PATH" err &&
	test "$("$CUR/bin/cix")" = "cix 9.9.1" &&
	test "$("$CUR/bin/cix-daemon")" = "cix-daemon 9.9.1" &&
	test_cmp c8 "$CUR/commit" && test -f "$CUR/share/cix/cix-9.9.1.tar.gz" &&
	pkg=$(readlink -f "$CUR/bin/cix") && pkg=${pkg%/bin/cix} &&
	case $pkg in "$CIX_STORE_DIR"/*-cix-9.9.1) ;; *) false ;; esac &&
	pulled package -A >from-pull && test_cmp from-source from-pull &&
	# Its builder/ is a symlink in the generation: added as the directory.
	test -h "$CUR/share/cix/builder" &&
	cix build -d hello >want.drv &&
	pulled build -d hello >got.drv && test_cmp want.drv got.drv &&
	cix pull -l >list && grep -q "^  commit $(cat c8)$" list &&
	cix gc 2>/dev/null && cix store --check-validity "$pkg" "$(gen 7)" &&
	cix pull --url="$REPO" --build-cix 2>err && grep -q "already at commit" err &&
	test "$(readlink "$CUR")" = current-7-link
'

test_expect_success GIT,STATIC '--build-cix refuses a cix that does not build or lacks its programs' '
	before=$(readlink "$CUR") &&
	write_fake_cix 9.9.2 "" "\"/no/such/tree\"" && commit_repo no-build >c9 &&
	test_expect_code 1 cix pull --url="$REPO" --build-cix 2>err &&
	grep "^cix pull: commit $(cut -c1-12 c9) is broken (the current generation stays): its cix package did not build" err &&
	test "$(readlink "$CUR")" = "$before" &&
	write_fake_cix 9.9.3 bin/cix-daemon && commit_repo no-daemon >c10 &&
	test_expect_code 1 cix pull --url="$REPO" --build-cix 2>err &&
	grep "is broken (the current generation stays): its cix package .*-cix-9.9.3. has no bin/cix-daemon" err &&
	test "$(readlink "$CUR")" = "$before" && test_path_is_missing "$CUR-8-link"
'

test_expect_success GIT,STATIC '--roll-back leaves the built cix: the generation before has no programs' '
	cix pull --roll-back 2>err && grep -q "from generation 7 to 6" err &&
	test_path_is_missing "$CUR/bin/cix" &&
	cix pull -S 7 && test "$("$CUR/bin/cix")" = "cix 9.9.1"
'

test_expect_success GIT,STATIC 'once the generation has programs, a plain pull builds them again' '
	write_fake_cix 9.9.4 && commit_repo fake-cix-4 >c11 &&
	cix pull --url="$REPO" 2>err && grep -q "building the cix of commit $(cut -c1-12 c11)" err &&
	grep -q "generation 8: " err && test "$("$CUR/bin/cix")" = "cix 9.9.4" &&
	test_cmp c11 "$CUR/commit"
'

test_done
