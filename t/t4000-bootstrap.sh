#!/bin/sh
# t4000-bootstrap.sh - the bootstrap tools: made, unpacked in the store, used
# SPDX-License-Identifier: GPL-3.0-or-later
test_description='bootstrap tools from pinned .debs: reproducible, unpacked by a derivation, compile programs that use only the store'
real_home=${HOME:-/root}
. "$(dirname "$0")/test-lib.sh"

MB=$CIX_SRC_DIR/scripts/make-bootstrap
UNPACK=$CIX_SRC_DIR/distro/bootstrap/unpack-bootstrap.sh
WRAPPER=$CIX_SRC_DIR/distro/bootstrap/gcc-wrapper.in
# make-bootstrap takes a minute or two: its results are kept between runs,
# keyed by the script's own hash (the pins are in it).
CACHE=${CIX_BOOTSTRAP_CACHE:-$real_home/.cache/cix}
key=$(sha256sum <"$MB" | cut -c1-16)
BOOT=$CACHE/bootstrap-$key
DEBS=$CACHE/bootstrap-debs

if [ -f "$BOOT/done" ]; then
	test_set_prereq BOOTSTRAP
elif mkdir -p "$CACHE" 2>/dev/null &&
     "$MB" --extra --fetch-only -c "$DEBS" >"$TRASH_DIRECTORY/fetch.log" 2>&1; then
	test_set_prereq BOOTSTRAP
else
	say "skip: no pinned .debs ($(tail -1 "$TRASH_DIRECTORY/fetch.log" 2>/dev/null))"
fi
for t in readelf strings sha256sum; do
	command -v $t >/dev/null 2>&1 || test_unset_prereq BOOTSTRAP
done
if unshare -rm true 2>/dev/null; then
	test_set_prereq UNSHARE
fi

# Nothing of the host in the sandbox: the bootstrap brings everything.
test_private_store
N="local?store=$CIX_STORE_DIR&real=$TRASH_DIRECTORY/nixreal&state=$TRASH_DIRECTORY/nixstate&log=$TRASH_DIRECTORY/nixlog"
nixs () { nix-store --store "$N" "$@"; }

test_expect_success BOOTSTRAP 'make-bootstrap gives the same bytes twice' '
	mkdir -p "$CACHE" &&
	(
		flock 9 &&
		if [ ! -f "$BOOT/done" ]; then
			rm -rf "$BOOT.tmp" &&
			CIX_STORE_DIR=/cix/store "$MB" --extra -c "$DEBS" -o "$BOOT.tmp/a" >"$BOOT.log" 2>&1 &&
			"$MB" --extra -c "$DEBS" -o "$BOOT.tmp/b" >/dev/null 2>&1 &&
			cmp "$BOOT.tmp/a/bootstrap-tools-gnu.tar.xz" "$BOOT.tmp/b/bootstrap-tools-gnu.tar.xz" &&
			cmp "$BOOT.tmp/a/bootstrap-tools-extra.tar.xz" "$BOOT.tmp/b/bootstrap-tools-extra.tar.xz" &&
			cmp "$BOOT.tmp/a/busybox/bin/busybox" "$BOOT.tmp/b/busybox/bin/busybox" &&
			sha256sum <"$BOOT.tmp/a/bootstrap-tools-gnu.tar.xz" >"$BOOT.tmp/a/sha256" &&
			rm -rf "$BOOT" && mv "$BOOT.tmp/a" "$BOOT" && rm -rf "$BOOT.tmp" &&
			mv "$BOOT.log" "$BOOT/make-bootstrap.log" &&
			touch "$BOOT/done"
		fi
	) 9>"$CACHE/bootstrap.lock" &&
	sha256sum <"$BOOT/bootstrap-tools-gnu.tar.xz" >now &&
	test_cmp "$BOOT/sha256" now &&
	ls "$BOOT/busybox" >top && echo bin >expect && test_cmp expect top &&
	ls "$BOOT/busybox/bin" >bin && echo busybox >expect && test_cmp expect bin
'

test_expect_success BOOTSTRAP 'the tarball has no absolute symlink and lists the programs to patch' '
	xz -dc "$BOOT/bootstrap-tools-gnu.tar.xz" | tar -tvf - >list &&
	! grep -e "-> /" list &&
	! grep -e " \./bin/gcc\$" -e " \./bin/cc\$" list &&
	grep " \./usr/lib/gcc/x86_64-linux-gnu/12/as -> ../../../../bin/x86_64-linux-gnu-as\$" list &&
	! grep " \./usr/lib/gcc/x86_64-linux-gnu/12/lto1\$" list &&
	! grep " \./usr/lib/x86_64-linux-gnu/libc\.a\$" list &&
	grep " \./usr/lib/x86_64-linux-gnu/libc_nonshared\.a\$" list &&
	xz -dc "$BOOT/bootstrap-tools-gnu.tar.xz" | tar -xOf - ./share/cix-bootstrap/interp-files >interp &&
	grep -x usr/bin/make interp && grep -x bin/bash interp &&
	! grep -x bin/busybox interp
'

test_expect_success BOOTSTRAP,NIX 'the hashes and store paths make-bootstrap prints' '
	mkdir -p o && cp "$BOOT/bootstrap-tools-gnu.tar.xz" o/ && cp -a "$BOOT/busybox" o/ &&
	grep "sha256 (flat)  $(cix hash "$BOOT/bootstrap-tools-gnu.tar.xz")  base16 $(cix hash -f base16 "$BOOT/bootstrap-tools-gnu.tar.xz")\$" \
		"$BOOT/make-bootstrap.log" &&
	grep "sha256 (recursive)  $(cix hash -r "$BOOT/busybox")  base16 " "$BOOT/make-bootstrap.log" &&
	# The store paths for the logical store directory of the log, from Nix.
	sd=$(sed -n "s|^  store path  *\(.*\)/[^/]*-bootstrap-tools-gnu.tar.xz\$|\1|p" "$BOOT/make-bootstrap.log") &&
	test -n "$sd" &&
	NL="local?store=$sd&real=$TRASH_DIRECTORY/nlreal&state=$TRASH_DIRECTORY/nlstate&log=$TRASH_DIRECTORY/nllog" &&
	t=$(nix-store --store "$NL" --add-fixed sha256 o/bootstrap-tools-gnu.tar.xz) &&
	b=$(nix-store --store "$NL" --add o/busybox) &&
	grep "store path     $t\$" "$BOOT/make-bootstrap.log" &&
	grep "store path          $b\$" "$BOOT/make-bootstrap.log"
'

cat >boot.nix <<\EOF
{ tarball, busybox, script, wrapper }:
let sys = "x86_64-linux"; in rec {
  boot = derivation {
    name = "bootstrap-tools"; system = sys;
    builder = "${builtins.storePath busybox}/bin/busybox";
    args = [ "sh" "-e" (builtins.storePath script) ];
    tarball = builtins.storePath tarball;
    busybox = builtins.storePath busybox;
    wrapper = builtins.storePath wrapper;
    multiarch = "x86_64-linux-gnu"; tool_prefix = "x86_64-linux-gnu";
    loader = "ld-linux-x86-64.so.2";
  };
  hello = derivation {
    name = "hello-boot"; system = sys;
    builder = "${boot}/bin/bash";
    PATH = "${boot}/bin";
    greet = ''
      #include <stdio.h>
      void greet(const char *who) { printf("hello from %s\n", who); }
    '';
    main = ''
      void greet(const char *);
      int main(void) { greet("the bootstrap"); return 0; }
    '';
    args = [ "-e" "-c" ''
      mkdir -p $out/bin $out/lib
      printf "%s" "$greet" >greet.c && printf "%s" "$main" >main.c
      gcc -O2 -fPIC -shared -o $out/lib/libgreet.so greet.c
      gcc -O2 -o $out/bin/hello main.c -L$out/lib -lgreet
      LIBRARY_PATH=$out/lib gcc -O2 -o $out/bin/hello2 main.c -lgreet
      gcc -c -o main.o main.c && gcc -o $out/bin/hello3 main.o -L $out/lib -lgreet
      $out/bin/hello >run.out
      $out/bin/hello2 >>run.out && $out/bin/hello3 >>run.out
      cat run.out
      test "$(grep -c "^hello from the bootstrap$" run.out)" = 3
      cpp -P <<<"#include <stdio.h>" | grep -q printf
    '' ];
  };
}
EOF

test_expect_success BOOTSTRAP,NIX 'inputs added to cix and Nix give the same store paths' '
	tb=$(cix store --add-fixed sha256 "$BOOT/bootstrap-tools-gnu.tar.xz") &&
	bb=$(cix store --add "$BOOT/busybox") &&
	us=$(cix store --add "$UNPACK") &&
	wr=$(cix store --add "$WRAPPER") &&
	test "$tb" = "$(nixs --add-fixed sha256 "$BOOT/bootstrap-tools-gnu.tar.xz")" &&
	test "$bb" = "$(nixs --add "$BOOT/busybox")" &&
	test "$us" = "$(nixs --add "$UNPACK")" &&
	test "$wr" = "$(nixs --add "$WRAPPER")" &&
	for x in boot hello; do
		nix-instantiate --store "$N" boot.nix -A $x --argstr tarball "$tb" \
			--argstr busybox "$bb" --argstr script "$us" --argstr wrapper "$wr" \
			>$x.drv 2>inst.err ||
			{ cat inst.err; return 1; }
	done &&
	nixs --export $(cat boot.drv hello.drv) >drvs.export &&
	cix store --import <drvs.export >/dev/null
'

test_expect_success BOOTSTRAP,NIX 'the unpack derivation: interpreters, wrappers, nothing of the host' '
	boot=$(cix store -r $(cat boot.drv) 2>boot.log) || { tail boot.log; return 1; } &&
	echo "$boot" >boot.out &&
	case $boot in "$CIX_STORE_DIR"/*-bootstrap-tools) ;; *) false ;; esac &&
	grep "interpreter set in" boot.log &&
	readelf -l "$boot/usr/bin/make" >make.l &&
	grep "Requesting program interpreter: $boot/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2]" make.l &&
	head -1 "$boot/bin/gcc" >shebang && echo "#!$boot/bin/bash" >expect && test_cmp expect shebang &&
	cmp "$boot/bin/gcc" "$boot/bin/cc" &&
	test -x "$boot/bin/cpp" &&
	"$boot/bin/bash" -c "echo \$BASH_VERSION" >bv && grep "^5\.2" bv &&
	cix store -q --hash "$boot" >boot.hash &&
	cix store -q --references "$boot" >refs && echo "$boot" >expect && test_cmp expect refs
'

test_expect_success BOOTSTRAP,NIX 'a program compiled by the bootstrap in the sandbox uses only the store' '
	boot=$(cat boot.out) &&
	out=$(cix store -r $(cat hello.drv) 2>hello.log) || { tail -20 hello.log; return 1; } &&
	echo "$out" >hello.out &&
	for p in hello hello2 hello3; do
		readelf -l "$out/bin/$p" >l &&
		grep "Requesting program interpreter: $boot/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2]" l &&
		readelf -d "$out/bin/$p" >d &&
		grep "(RUNPATH) *Library runpath: \[$boot/lib/x86_64-linux-gnu:$out/lib\]" d &&
		strings -a "$out/bin/$p" | grep -e /usr/ -e /lib/ -e /lib64/ -e /etc/ >paths || :
		! grep -v "^$CIX_STORE_DIR/" paths || return 1
	done &&
	"$out/bin/hello" >run && echo "hello from the bootstrap" >expect && test_cmp expect run &&
	LD_TRACE_LOADED_OBJECTS=1 "$out/bin/hello" >ldd &&
	grep "libgreet.so => $out/lib/libgreet.so" ldd &&
	grep "libc.so.6 => $boot/lib/x86_64-linux-gnu/libc.so.6" ldd &&
	! grep -e "=> /lib" -e "=> /usr" ldd &&
	cix store -q --references "$out" >refs && grep -x "$boot" refs
'

test_expect_success BOOTSTRAP,NIX,UNSHARE 'the program cannot start where the store is missing' '
	cp "$(cat hello.out)/bin/hello" h &&
	test_must_fail unshare -rm sh -c "mount -t tmpfs none \"$CIX_STORE_DIR\" && exec ./h" 2>err &&
	! grep "hello from" err
'

test_expect_success BOOTSTRAP,NIX 'realised again in a fresh store, the bootstrap is the same' '
	cix store -r --check $(cat boot.drv) >/dev/null 2>check.log &&
	chmod -R u+w store && mv store store.1 && mv state state.1 &&
	cix store --add-fixed sha256 "$BOOT/bootstrap-tools-gnu.tar.xz" >/dev/null &&
	cix store --add "$BOOT/busybox" "$UNPACK" "$WRAPPER" >/dev/null &&
	cix store --import <drvs.export >/dev/null &&
	test "$(cix store -r $(cat boot.drv) 2>/dev/null)" = "$(cat boot.out)" &&
	cix store -q --hash "$(cat boot.out)" >hash2 &&
	test_cmp boot.hash hash2 &&
	chmod -R u+w store.1 && rm -rf store.1 state.1
'

test_expect_success 'cleanup: the store may be removed' '
	chmod -R u+w store 2>/dev/null || :
'

test_done
