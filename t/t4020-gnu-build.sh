#!/bin/sh
test_description='gnu-build, the gnu-build-system builder, run outside any sandbox with the host tools'
. "$(dirname "$0")/test-lib.sh"

GNU_BUILD=$CIX_BUILD_DIR/builder/gnu-build
S=$TRASH_DIRECTORY/store
TOP=$TRASH_DIRECTORY/top
LIBCDIR=$(dirname "$(gcc -print-file-name=libc.so.6 2>/dev/null)")
LIBCDIR=$(cd "$LIBCDIR" 2>/dev/null && pwd -P)
INPUTS="$S/bash $S/coreutils $S/make $S/tar $S/gcc $S/binutils $S/greetlib"
STAMP=1200000000

# host_tool NAME: the host's NAME as a file (builtins too: echo, test, ...).
host_tool () {
	for d_ in /usr/bin /bin /usr/sbin /sbin; do
		if [ -x "$d_/$1" ]; then echo "$d_/$1"; return 0; fi
	done
	echo "no host tool $1" >&2
	return 1
}

# link_tools INPUT TOOL...: INPUT/bin/TOOL -> the host's TOOL.
link_tools () {
	in_=$1; shift
	mkdir -p "$in_/bin"
	for t_ in "$@"; do
		ln -s "$(host_tool "$t_")" "$in_/bin/$t_" || return 1
	done
}

make_inputs () {
	link_tools "$S/bash" bash sh &&
	link_tools "$S/coreutils" cat cp mkdir rm chmod echo test env ls mv ln tr sed \
		grep dirname basename printf true false install touch head stat pwd expr &&
	link_tools "$S/make" make &&
	link_tools "$S/tar" tar gzip &&
	link_tools "$S/gcc" gcc cc as ld ar &&
	link_tools "$S/binutils" strip objcopy &&
	mkdir -p "$S/greetlib/include" "$S/greetlib/lib/pkgconfig" "$S/greetlib/share/aclocal" \
		"$S/greetlib/src" &&
	printf 'void greet(void);\n' >"$S/greetlib/include/greet.h" &&
	printf '#include <stdio.h>\nvoid greet(void) { puts("Hello from greet"); }\n' \
		>"$S/greetlib/src/greet.c" &&
	gcc -c -o "$S/greetlib/src/greet.o" "$S/greetlib/src/greet.c" &&
	ar rcs "$S/greetlib/lib/libgreet.a" "$S/greetlib/src/greet.o"
}

# The test project: an autotools-free configure writing a Makefile with
# SHELL = /bin/sh, a C program, check and install targets, scripts.
make_project () {
	p_=$TRASH_DIRECTORY/proj-1.0
	mkdir -p "$p_/tests"
	cat >"$p_/configure" <<-\EOF
	#!/bin/sh
	srcdir=$(dirname "$0")
	prefix=/usr/local
	: >configure.args
	for a in "$@"; do
		printf '%s\n' "$a" >>configure.args
		case $a in --prefix=*) prefix=${a#--prefix=};; esac
	done
	echo "configure: CONFIG_SHELL=$CONFIG_SHELL SHELL=$SHELL"
	sed -e "s|@prefix@|$prefix|" -e "s|@srcdir@|$srcdir|" "$srcdir/Makefile.in" >Makefile
	EOF
	cat >"$p_/Makefile.in" <<\EOF
SHELL = /bin/sh
prefix = @prefix@
srcdir = @srcdir@
VPATH = @srcdir@
CC = gcc
CFLAGS = -g -O1

all: hello good bad libfoo.so
	@echo "make: SHELL=$(SHELL) GREETING=$(GREETING)"

hello: hello.c
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $(srcdir)/hello.c -lgreet
libfoo.so: foo.c
	$(CC) $(CFLAGS) -shared -fPIC -o $@ $(srcdir)/foo.c
good: main.c libfoo.so
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $(srcdir)/main.c -L. -lfoo -Wl,-rpath,'$$ORIGIN/../lib'
bad: main.c libfoo.so
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $(srcdir)/main.c -L. -lfoo -Wl,-rpath,/nonexistent

check: hello
	./hello
	$(srcdir)/tests/run.sh
	@echo CHECK-RAN
	test "$(FAILCHECK)" != 1

install: all
	mkdir -p $(prefix)/bin $(prefix)/lib $(prefix)/share
	cp hello good $(prefix)/bin/
	cp libfoo.so $(prefix)/lib/
	cp $(srcdir)/greet.sh $(prefix)/bin/greet
	cp $(srcdir)/envgreet.sh $(prefix)/bin/envgreet
	cp $(srcdir)/storegreet.sh $(prefix)/bin/storegreet
	cp $(srcdir)/weird.sh $(prefix)/bin/weird
	chmod 755 $(prefix)/bin/greet $(prefix)/bin/envgreet $(prefix)/bin/storegreet $(prefix)/bin/weird
	cp $(srcdir)/greet.sh $(prefix)/share/notexec.sh
	chmod 644 $(prefix)/share/notexec.sh
	if test "$(BAD)" = 1; then cp bad $(prefix)/bin/; fi
EOF

	printf '#include <greet.h>\nint main(void) { greet(); return 0; }\n' >"$p_/hello.c" &&
	printf 'int foo(void) { return 42; }\n' >"$p_/foo.c" &&
	printf 'int foo(void);\nint main(void) { return foo() != 42; }\n' >"$p_/main.c" &&
	printf '#!/bin/sh\necho greet-script\n' >"$p_/greet.sh" &&
	printf '#!/usr/bin/env sh\necho env-script\n' >"$p_/envgreet.sh" &&
	printf '#!%s/elsewhere/bin/sh -e\necho store-script\n' "$S" >"$p_/storegreet.sh" &&
	printf '#!/usr/bin/no-such-interpreter-here\n' >"$p_/weird.sh" &&
	printf '#!/usr/bin/env bash\necho run-sh-ran\n' >"$p_/tests/run.sh" &&
	chmod 755 "$p_/configure" "$p_/tests/run.sh" &&
	find "$p_" -exec touch -h -d @$STAMP {} + &&
	tar -C "$TRASH_DIRECTORY" -czf "$S/proj-1.0.tar.gz" proj-1.0
}

# run_build VAR=VALUE...: gnu-build in a clean environment, log in build.log.
run_build () {
	chmod -R u+w "$TOP" "$S/out" "$S/debug" 2>/dev/null
	rm -rf "$TOP" "$S/out" "$S/debug" && mkdir "$TOP" &&
	env -i out="$S/out" NIX_BUILD_TOP="$TOP" NIX_STORE="$S" TMPDIR="$TOP" \
		HOME=/homeless-shelter NIX_BUILD_CORES=2 PATH=/path-not-set \
		name=proj-1.0 system=x86_64-linux buildInputs="$INPUTS" \
		src="$S/proj-1.0.tar.gz" \
		makeFlags="LDFLAGS=-Wl,-rpath,$LIBCDIR
GREETING=hi there" \
		"$@" "$GNU_BUILD" >build.log 2>&1
	ret_=$?
	sed 's/^/build: /' build.log
	return $ret_
}

test -x "$GNU_BUILD" && test_set_prereq BUILDER

started_phases () { sed -n "s/^starting phase \`\(.*\)'\$/\1/p" build.log; }

test_expect_success 'gnu-build was built' '
	test -x "$GNU_BUILD" || { echo "missing $GNU_BUILD: build it first"; false; }
'

test_expect_success BUILDER 'setup: inputs and the test project' '
	make_inputs && make_project
'

test_expect_success BUILDER 'a full build with the default phases' '
	run_build configureFlags="--with-greeting=hello world
--enable-foo" &&
	cat >expect <<-\EOF &&
	set-paths
	unpack
	patch-source-shebangs
	configure
	patch-generated-file-shebangs
	build
	check
	install
	patch-shebangs
	strip
	shrink-runpath
	validate-runpath
	EOF
	started_phases >actual &&
	test_cmp expect actual &&
	grep "^gnu-build: phases: set-paths unpack patch-source-shebangs configure" build.log &&
	grep "^phase \`validate-runpath'"'"' succeeded after [0-9.]* seconds$" build.log &&
	"$S/out/bin/hello" >out &&
	echo "Hello from greet" >expect &&
	test_cmp expect out
'

test_expect_success BUILDER 'set-paths: search paths from the inputs that exist' '
	grep "^gnu-build: PATH=$S/bash/bin:$S/coreutils/bin:$S/make/bin:$S/tar/bin:$S/gcc/bin:$S/binutils/bin$" build.log &&
	grep "^gnu-build: CPATH=$S/greetlib/include$" build.log &&
	grep "^gnu-build: LIBRARY_PATH=$S/greetlib/lib$" build.log &&
	grep "^gnu-build: PKG_CONFIG_PATH=$S/greetlib/lib/pkgconfig$" build.log &&
	grep "^gnu-build: ACLOCAL_PATH=$S/greetlib/share/aclocal$" build.log
'

test_expect_success BUILDER 'configure got --prefix and the configureFlags, bash as its shell' '
	printf "%s\n" "--prefix=$S/out" "--with-greeting=hello world" --enable-foo >expect &&
	test_cmp expect "$TOP/proj-1.0/configure.args" &&
	grep "^configure: CONFIG_SHELL=$S/bash/bin/bash SHELL=$S/bash/bin/bash$" build.log
'

test_expect_success BUILDER 'make got -j from NIX_BUILD_CORES, makeFlags and SHELL' '
	grep "^gnu-build: running: make -j2 LDFLAGS=-Wl,-rpath,$LIBCDIR '"'"'GREETING=hi there'"'"' SHELL=$S/bash/bin/bash$" build.log &&
	grep "^make: SHELL=$S/bash/bin/bash GREETING=hi there$" build.log &&
	grep "^gnu-build: running: make -j2 check LDFLAGS" build.log &&
	grep "^gnu-build: running: make install LDFLAGS" build.log &&
	grep "^CHECK-RAN$" build.log &&
	grep "^run-sh-ran$" build.log
'

test_expect_success BUILDER 'source shebangs patched, mtimes kept' '
	echo "#!$S/bash/bin/sh" >expect &&
	head -n 1 "$TOP/proj-1.0/configure" >actual &&
	test_cmp expect actual &&
	echo "#!$S/bash/bin/bash" >expect &&
	head -n 1 "$TOP/proj-1.0/tests/run.sh" >actual &&
	test_cmp expect actual &&
	test "$(stat -c %Y "$TOP/proj-1.0/configure")" = $STAMP &&
	test "$(stat -c %Y "$TOP/proj-1.0/tests/run.sh")" = $STAMP &&
	test "$(stat -c %a "$TOP/proj-1.0/tests/run.sh")" = 755
'

test_expect_success BUILDER 'the Makefile SHELL was patched' '
	grep "^SHELL = $S/bash/bin/bash$" "$TOP/proj-1.0/Makefile" &&
	! grep "/bin/sh$" "$TOP/proj-1.0/Makefile" &&
	grep "^patch-makefile-SHELL\|^gnu-build: patch-makefile-SHELL: ./Makefile$" build.log
'

test_expect_success BUILDER 'installed shebangs point into the inputs, store ones kept' '
	echo "#!$S/bash/bin/sh" >expect &&
	head -n 1 "$S/out/bin/greet" >actual &&
	test_cmp expect actual &&
	head -n 1 "$S/out/bin/envgreet" >actual &&
	test_cmp expect actual &&
	echo "#!$S/elsewhere/bin/sh -e" >expect &&
	head -n 1 "$S/out/bin/storegreet" >actual &&
	test_cmp expect actual &&
	echo "#!/bin/sh" >expect &&
	head -n 1 "$S/out/share/notexec.sh" >actual &&
	test_cmp expect actual &&
	echo "#!/usr/bin/no-such-interpreter-here" >expect &&
	head -n 1 "$S/out/bin/weird" >actual &&
	test_cmp expect actual &&
	grep "no-such-interpreter-here.*not found in PATH; not patched" build.log &&
	test "$("$S/out/bin/greet")" = greet-script &&
	test "$("$S/out/bin/envgreet")" = env-script
'

test_expect_success BUILDER 'binaries stripped without a debug output' '
	readelf -S "$TOP/proj-1.0/hello" | grep -q "\.debug_info" &&
	readelf -S "$TOP/proj-1.0/hello" | grep -q "\.symtab" &&
	! readelf -S "$S/out/bin/hello" | grep "\.debug_info\|\.symtab" &&
	! readelf -S "$S/out/lib/libfoo.so" | grep "\.debug_info\|\.symtab" &&
	"$S/out/bin/good"
'

test_expect_success BUILDER 'a debug output gets the .debug files and the debug links' '
	run_build outputs="out debug" debug="$S/debug" &&
	dbg="$S/debug/lib/debug$S/out/bin/hello.debug" &&
	test_path_is_file "$dbg" &&
	readelf -S "$dbg" | grep -q "\.debug_info" &&
	! readelf -S "$S/out/bin/hello" | grep "\.debug_info" &&
	readelf -S "$S/out/bin/hello" | grep -q "\.gnu_debuglink" &&
	readelf -p .gnu_debuglink "$S/out/bin/hello" | grep -q "hello\.debug" &&
	test_path_is_file "$S/debug/lib/debug$S/out/lib/libfoo.so.debug" &&
	"$S/out/bin/hello"
'

test_expect_success BUILDER 'the debug files are found by build ID too, as GDB looks them up' '
	id=$(readelf -n "$S/out/bin/hello" | sed -n "s/^ *Build ID: //p") &&
	test -n "$id" &&
	link="$S/debug/lib/debug/.build-id/$(echo "$id" | cut -c1-2)/$(echo "$id" | cut -c3-).debug" &&
	test -L "$link" &&
	case $(readlink "$link") in ../../*) ;; *) false ;; esac &&
	test "$(cd "${link%/*}" && cd "$(dirname "$(readlink "$link")")" && pwd -P)/hello.debug" = \
		"$(cd "$S/debug/lib/debug$S/out/bin" && pwd -P)/hello.debug" &&
	cmp "$link" "$S/debug/lib/debug$S/out/bin/hello.debug"
'

test_expect_success BUILDER 'stripBinaries off keeps the symbols' '
	run_build stripBinaries= &&
	readelf -S "$S/out/bin/hello" | grep -q "\.symtab" &&
	grep "stripBinaries is off" build.log
'

test_expect_success BUILDER 'tests=0 skips the check phase' '
	run_build tests=0 &&
	! grep "CHECK-RAN" build.log &&
	grep "^starting phase \`check'"'"'$" build.log &&
	grep "tests disabled" build.log
'

test_expect_success BUILDER 'a failing make check fails the build, naming the phase' '
	test_expect_code 1 run_build makeFlags="FAILCHECK=1
LDFLAGS=-Wl,-rpath,$LIBCDIR" &&
	grep "^gnu-build: phase '"'"'check'"'"' failed: '"'"'make'"'"' exited with status 2$" build.log &&
	! grep "^starting phase \`install" build.log
'

test_expect_success BUILDER 'validate-runpath fails on a NEEDED library missing from RUNPATH' '
	test_expect_code 1 run_build makeFlags="BAD=1
LDFLAGS=-Wl,-rpath,$LIBCDIR" &&
	grep "^gnu-build: phase '"'"'validate-runpath'"'"' failed: '"'"'$S/out/bin/bad'"'"' needs '"'"'libfoo.so'"'"', not found in its RUNPATH$" build.log &&
	! grep "bin/good'"'"' needs" build.log
'

test_expect_success BUILDER 'validate-runpath fails on libc without a RUNPATH to it, unless off' '
	test_expect_code 1 run_build makeFlags= &&
	grep "^gnu-build: phase '"'"'validate-runpath'"'"' failed: .*needs '"'"'libc.so.6'"'"'" build.log &&
	run_build makeFlags= validateRunpath=0 &&
	grep "validateRunpath is off" build.log
'

test_expect_success BUILDER 'shrink-runpath drops the store directories no NEEDED library is in' '
	mkdir -p "$S/unused/lib" &&
	run_build makeFlags="LDFLAGS=-Wl,-rpath,$LIBCDIR:$S/unused/lib" &&
	grep "^gnu-build: RUNPATH of '"'"'$S/out/bin/hello'"'"': 1 of 2 entries kept$" build.log &&
	readelf -d "$S/out/bin/hello" >d &&
	grep "(RUNPATH) *Library runpath: \[$LIBCDIR\]" d &&
	"$S/out/bin/hello" &&
	readelf -d "$S/out/bin/good" >d &&
	grep "(RUNPATH) *Library runpath: \[$LIBCDIR:\$ORIGIN/../lib\]" d &&
	"$S/out/bin/good"
'

test_expect_success BUILDER '${NAME} in the flags is the build'"'"'s variable NAME' '
	run_build configureFlags="--with-out=\${out}/x
--literal=\$out" &&
	printf "%s\n" "--prefix=$S/out" "--with-out=$S/out/x" "--literal=\$out" >expect &&
	test_cmp expect "$TOP/proj-1.0/configure.args" &&
	test_expect_code 1 run_build makeFlags="X=\${no_such_variable}" &&
	grep "^gnu-build: .\${no_such_variable}. names no variable of the build$" build.log &&
	test_expect_code 1 run_build makeFlags="X=\${bad name}" &&
	grep "^gnu-build: bad variable reference" build.log &&
	! grep "^starting phase" build.log
'

test_expect_success BUILDER 'phase_NAME snippets replace a phase and add new ones' '
	run_build phases="set-paths unpack my-phase configure build" \
		phase_my_phase="echo \"snippet in \$(pwd) out=\$out\"; echo hi >snippet-ran" \
		phase_build="echo replaced-build; test -f Makefile" &&
	printf "%s\n" set-paths unpack my-phase configure build >expect &&
	started_phases >actual &&
	test_cmp expect actual &&
	grep "^snippet in $TOP/proj-1.0 out=$S/out$" build.log &&
	test_path_is_file "$TOP/proj-1.0/snippet-ran" &&
	grep "^replaced-build$" build.log &&
	test_path_is_missing "$TOP/proj-1.0/hello"
'

test_expect_success BUILDER 'a failing snippet fails its phase' '
	test_expect_code 1 run_build phases="set-paths unpack mine" phase_mine="false; echo not-here" &&
	! grep "^not-here" build.log &&
	grep "^gnu-build: phase '"'"'mine'"'"' failed: .*bash'"'"' exited with status 1$" build.log
'

test_expect_success BUILDER 'an unknown phase name fails cleanly, before any phase' '
	test_expect_code 1 run_build phases="set-paths frobnicate" &&
	grep "^gnu-build: unknown phase '"'"'frobnicate'"'"'" build.log &&
	! grep "^starting phase" build.log &&
	test_expect_code 1 run_build phases="set-paths ../x" &&
	grep "^gnu-build: invalid phase name" build.log &&
	test_expect_code 1 run_build tests=maybe &&
	grep "invalid value .maybe. for tests" build.log
'

test_expect_success BUILDER 'outOfSource configures from ../build' '
	run_build outOfSource=1 &&
	test_path_is_file "$TOP/build/Makefile" &&
	test_path_is_file "$TOP/build/hello" &&
	test_path_is_missing "$TOP/proj-1.0/Makefile" &&
	grep "running: $S/bash/bin/bash ../proj-1.0/configure --prefix=$S/out" build.log &&
	"$S/out/bin/hello"
'

test_expect_success BUILDER 'a source directory is copied with its mtimes, made writable' '
	hash=00000000000000000000000000000000 &&
	rm -rf "$S/$hash-proj-1.0" &&
	cp -a proj-1.0 "$S/$hash-proj-1.0" &&
	chmod -R a-w "$S/$hash-proj-1.0" &&
	run_build src="$S/$hash-proj-1.0" &&
	chmod -R u+w "$S/$hash-proj-1.0" &&
	test "$(stat -c %Y "$TOP/proj-1.0/hello.c")" = $STAMP &&
	test "$(stat -c %Y "$TOP/proj-1.0/Makefile.in")" = $STAMP &&
	test "$(stat -c %Y "$TOP/proj-1.0/configure")" = $STAMP &&
	test -w "$TOP/proj-1.0/hello.c" &&
	"$S/out/bin/hello"
'

test_expect_success BUILDER 'a tarball with two top directories is refused' '
	mkdir -p two/a two/b &&
	tar -C two -czf "$S/two.tar.gz" a b &&
	test_expect_code 1 run_build src="$S/two.tar.gz" &&
	grep "^gnu-build: phase '"'"'unpack'"'"' failed: .*made 2 top directories, not one$" build.log
'

test_expect_success BUILDER 'a symlink in the tree is never written through' '
	mkdir -p evil/proj &&
	printf "#!/bin/sh\necho victim\n" >victim.sh &&
	chmod 755 victim.sh &&
	printf "SHELL = /bin/sh\n" >victim.mk &&
	ln -s "$TRASH_DIRECTORY/victim.sh" evil/proj/link.sh &&
	ln -s "$TRASH_DIRECTORY/victim.mk" evil/proj/Makefile &&
	tar -C evil -czf "$S/evil.tar.gz" proj &&
	run_build src="$S/evil.tar.gz" phases="set-paths unpack patch-source-shebangs patch-generated-file-shebangs" &&
	echo "#!/bin/sh" >expect &&
	head -n 1 victim.sh >actual &&
	test_cmp expect actual &&
	echo "SHELL = /bin/sh" >expect &&
	test_cmp expect victim.mk
'

test_expect_success BUILDER 'a tree deeper than the walk bound is refused' '
	d=deep/top && i=0 &&
	while [ $i -lt 130 ]; do d=$d/d; i=$((i + 1)); done &&
	mkdir -p "$d" &&
	tar -C deep -czf "$S/deep.tar.gz" top &&
	test_expect_code 1 run_build src="$S/deep.tar.gz" phases="set-paths unpack" &&
	grep "^gnu-build: phase '"'"'unpack'"'"' failed: .*deeper than 128$" build.log
'

test_expect_success BUILDER 'gnu-build --version and stray arguments' '
	"$GNU_BUILD" --version | grep "^gnu-build" &&
	test_expect_code 2 "$GNU_BUILD" extra 2>err &&
	grep usage err
'

# GNU hello 2.10 from Debian's archive (its orig tarball is upstream's
# hello-2.10.tar.gz, sha256 as published), fetched with a private apt
# configuration and kept in the build directory; or from $CIX_HELLO_TARBALL.
HELLO_SHA256=31e066137a962676e89f69d1b65382de95a7ef7d914b8cb956f41ea72e0f516b
HELLO_CACHE=$CIX_BUILD_DIR/cache/hello-2.10.tar.gz
hello_ok () { [ -f "$1" ] && [ "$(sha256sum <"$1" | cut -d" " -f1)" = $HELLO_SHA256 ]; }
fetch_hello () {
	for f_ in "${CIX_HELLO_TARBALL:-}" "$HELLO_CACHE"; do
		if [ -n "$f_" ] && hello_ok "$f_"; then
			cp "$f_" "$S/hello-2.10.tar.gz"
			return
		fi
	done
	command -v apt-get >/dev/null || return 1
	a_=$TRASH_DIRECTORY/apt
	mkdir -p "$a_/lists/partial" "$a_/cache/archives/partial" "$a_/dl" || return 1
	cat >"$a_/src.sources" <<-\EOF
	Types: deb-src
	URIs: http://deb.debian.org/debian
	Suites: bookworm
	Components: main
	Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
	EOF
	set -- -o Dir::Etc::SourceList="$a_/src.sources" -o Dir::Etc::SourceParts=/dev/null \
		-o Dir::State::Lists="$a_/lists" -o Dir::Cache="$a_/cache"
	timeout 120 apt-get "$@" update >"$a_/log" 2>&1 &&
	(cd "$a_/dl" && timeout 120 apt-get "$@" source --download-only hello=2.10-3) \
		>>"$a_/log" 2>&1 &&
	hello_ok "$a_/dl/hello_2.10.orig.tar.gz" &&
	cp "$a_/dl/hello_2.10.orig.tar.gz" "$S/hello-2.10.tar.gz" &&
	mkdir -p "${HELLO_CACHE%/*}" &&
	cp "$a_/dl/hello_2.10.orig.tar.gz" "$HELLO_CACHE.tmp" &&
	mv "$HELLO_CACHE.tmp" "$HELLO_CACHE"
}
if test_have_prereq BUILDER && [ -n "${CIX_TEST_HELLO-1}" ] && fetch_hello; then
	test_set_prereq HELLO
else
	say "no hello-2.10 tarball (set CIX_HELLO_TARBALL or allow apt-get source)"
fi

test_expect_success BUILDER,HELLO 'GNU hello 2.10 builds, passes make check, and runs' '
	chmod -R u+w "$TOP" "$S/out" "$S/debug" 2>/dev/null
	rm -rf "$TOP" "$S/out" "$S/debug" && mkdir "$TOP" &&
	start=$(date +%s) &&
	env -i out="$S/out" debug="$S/debug" outputs="out debug" NIX_BUILD_TOP="$TOP" \
		NIX_STORE="$S" TMPDIR="$TOP" HOME=/homeless-shelter NIX_BUILD_CORES=2 \
		PATH=/path-not-set buildInputs=/usr src="$S/hello-2.10.tar.gz" \
		configureFlags="LDFLAGS=-Wl,-rpath=$LIBCDIR" \
		"$GNU_BUILD" >hello.log 2>&1 ||
	{ tail -40 hello.log; false; } &&
	say "hello built in $(($(date +%s) - start)) s" &&
	grep "^# PASS: *4$" hello.log &&
	grep "^# FAIL: *0$" hello.log &&
	test "$("$S/out/bin/hello")" = "Hello, world!" &&
	test_path_is_file "$S/debug/lib/debug$S/out/bin/hello.debug" &&
	grep "^gnu-build: patch-makefile-SHELL: ./po/Makefile$" hello.log
'

test_done
