#!/bin/sh
# t3171-daemon-nix-env.sh - Nix 2.8's nix-env through cix-daemon: builtin:buildenv
# SPDX-License-Identifier: GPL-3.0-or-later
test_description='nix-env -i, -e and --rollback through cix-daemon build user environments (builtin:buildenv) with the contents Nix builds itself: directories merged, priorities, collisions, propagated packages, the files Nix leaves out'
. "$(dirname "$0")/test-lib.sh"

T=$TRASH_DIRECTORY
test_private_store
test_sandbox_host_paths
SOCK=$T/sock
# The oracle: Nix's own store on the same logical store directory, so
# that both build the same derivations into the same store paths.
NIX_CONFIG="$NIX_CONFIG
sandbox = false
sandbox-paths = /bin /lib /lib64 /usr"
# cx / nx ARG...: nix-env on the profile cprof through cix-daemon, on nprof by Nix.
cx () {
	NIX_REMOTE="unix://$SOCK?store=$CIX_STORE_DIR" NIX_STORE_DIR=$CIX_STORE_DIR \
	NIX_STATE_DIR=$T/nixstate-c NIX_CONF_DIR=$T nix-env -f "$T/pkgs.nix" -p "$T/cprof" "$@"
}
nx () {
	nix-env --store "local?store=$CIX_STORE_DIR&real=$T/nixreal&state=$T/nixstate&log=$T/nixlog" \
		-f "$T/pkgs.nix" -p "$T/nprof" "$@"
}
# tree DIR: its names, types and link targets.
tree () { find "$1"/ -printf '%P %y %l\n' | sort; }
# same: both profiles are the same user environment, with the same contents.
same () {
	c_=$(readlink "$T/$(readlink "$T/cprof")") && n_=$(readlink "$T/$(readlink "$T/nprof")") &&
	test "$c_" = "$n_" &&
	tree "$c_" >c.tree && tree "$T/nixreal/${n_##*/}" >n.tree && test_cmp n.tree c.tree &&
	cx -q >c.q && nx -q >n.q && test_cmp n.q c.q
}
# both ARG...: nix-env ARG... on both profiles, successfully.
both () { cx "$@" && nx "$@" && same; }

cat >pkgs.nix <<\NIX
let
  mk = name: prio: script: (derivation {
    inherit name;
    system = builtins.currentSystem;
    builder = "/bin/sh";
    args = [ "-c" script ];
  }) // { meta = { priority = prio; }; };
  e = mk "e-1.0" 5 "/bin/mkdir -p $out/bin $out/share/e; echo e >$out/bin/e; echo e >$out/share/e/x";
in {
  a = mk "a-1.0" 5 "/bin/mkdir -p $out/bin $out/share/doc $out/share/info; echo a >$out/bin/a; echo a >$out/share/doc/a.txt; echo a >$out/share/info/dir; echo a >$out/share/info/a.info";
  b = mk "b-1.0" 5 "/bin/mkdir -p $out/bin $out/share/doc $out/share/info $out/nix-support; echo b >$out/bin/b; echo b >$out/share/doc/b.txt; echo b >$out/share/info/dir; echo b >$out/.hidden; echo b >$out/nix-support/x; /bin/ln -s /nowhere $out/bin/dangling";
  c = mk "c-1.0" 5 "/bin/mkdir -p $out/bin; echo c >$out/bin/a";
  c10 = mk "c10-1.0" 10 "/bin/mkdir -p $out/bin; echo c >$out/bin/a; echo c >$out/bin/c";
  c1 = mk "c1-1.0" 1 "/bin/mkdir -p $out/share; echo c >$out/share/doc";
  d = mk "d-1.0" 5 "/bin/mkdir -p $out/bin $out/nix-support; echo d >$out/bin/d; echo ${e} >$out/nix-support/propagated-user-env-packages";
}
NIX

test_expect_success NIX 'nix-env -i through cix-daemon: the user environment Nix makes' '
	test_start_daemon "$SOCK" &&
	both -iA a &&
	test "$(cat cprof/bin/a)" = a &&
	test -L cprof/manifest.nix
'

test_expect_success NIX 'a second package: directories merged, info/dir, dot files and nix-support left out' '
	both -iA b &&
	test -d cprof/share/doc && ! test -L cprof/share/doc &&
	test_path_is_missing cprof/share/info/dir &&
	test_path_is_missing cprof/.hidden && test_path_is_missing cprof/nix-support &&
	! test -L cprof/bin/dangling
'

test_expect_success NIX 'a collision at the same priority fails, as in Nix; the profile stays' '
	test_must_fail cx -iA c 2>err && grep -q "priority 5" err &&
	test_must_fail nx -iA c 2>/dev/null && same
'

test_expect_success NIX 'a lower priority loses the collision; a file against a directory fails' '
	both -iA c10 &&
	test "$(cat cprof/bin/a)" = a && test "$(cat cprof/bin/c)" = c &&
	test_must_fail cx -iA c1 2>err && grep -q "a directory and a file" err &&
	test_must_fail nx -iA c1 2>/dev/null && same
'

test_expect_success NIX 'propagated packages; -e; --rollback' '
	both -iA d && test "$(cat cprof/bin/e)" = e &&
	both -e b && test_path_is_missing cprof/bin/b &&
	both --rollback && test "$(cat cprof/bin/b)" = b
'

test_expect_success NIX 'hostile builtin:buildenv derivations: a one-line error each' '
	cat >bad.nix <<-\NIX &&
	{ d, m ? "/nowhere" }: derivation { name = "user-environment"; system = "builtin";
	  builder = "builtin:buildenv"; derivations = d; manifest = m; }
	NIX
	for d in "true x 1 /a" "true 5 99 /a" "true 5 -1" "true 99999999999 0" \
		 "true 5 1 /etc" "true 5 1 $CIX_STORE_DIR/../.."; do
		NIX_REMOTE="unix://$SOCK?store=$CIX_STORE_DIR" NIX_STORE_DIR=$CIX_STORE_DIR \
		NIX_STATE_DIR=$T/nixstate-c NIX_CONF_DIR=$T \
			nix-build --no-out-link bad.nix --argstr d "$d" >out 2>err &&
		return 1
		grep -q "bad priority\|bad number of outputs\|missing outputs\|is not an input" err ||
		{ cat err; return 1; }
	done
'

test_done
