# lib-bootstrap.sh - the bootstrap binaries and source mirror, for tests that build packages
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Source after test-lib.sh, with real_home set before it (test-lib moves
# HOME into the trash directory). bootstrap_make makes the bootstrap once
# and keeps it in ${CIX_BOOTSTRAP_CACHE:-~/.cache/cix}/bootstrap-KEY (the
# layout of t4000, under the same lock), keyed by make-bootstrap's hash;
# it sets BOOT. mirror_fill SOURCE-PACKAGE... fills $TRASH_DIRECTORY/mirror.
# packages_setup SOURCE-PACKAGE... does what a package test needs first.

MB=$CIX_SRC_DIR/scripts/make-bootstrap
FM=$CIX_SRC_DIR/scripts/fill-mirror
BOOT_CACHE=${CIX_BOOTSTRAP_CACHE:-$real_home/.cache/cix}
BOOT=$BOOT_CACHE/bootstrap-$(sha256sum <"$MB" | cut -c1-16)
XDG_CACHE_HOME=${XDG_CACHE_HOME:-$real_home/.cache}
export XDG_CACHE_HOME

bootstrap_make () {
	mkdir -p "$BOOT_CACHE" &&
	(
		flock 9 &&
		if [ ! -f "$BOOT/done" ]; then
			rm -rf "$BOOT.tmp" &&
			"$MB" --extra -c "$BOOT_CACHE/bootstrap-debs" -o "$BOOT.tmp/a" >"$BOOT.log" 2>&1 &&
			sha256sum <"$BOOT.tmp/a/bootstrap-tools-gnu.tar.xz" >"$BOOT.tmp/a/sha256" &&
			rm -rf "$BOOT" && mv "$BOOT.tmp/a" "$BOOT" && rm -rf "$BOOT.tmp" &&
			mv "$BOOT.log" "$BOOT/make-bootstrap.log" &&
			touch "$BOOT/done"
		fi
	) 9>"$BOOT_CACHE/bootstrap.lock"
}

# bootstrap_prereq: BOOTSTRAP when the bootstrap is made (or made now; not
# under the sanitizers, where only evaluation is checked).
bootstrap_prereq () {
	if test -f "$BOOT/done" || { case $CIX_BUILD_DIR in *-san) false ;; *) bootstrap_make 2>/dev/null ;; esac; }
	then
		test_set_prereq BOOTSTRAP
	fi
}

mirror_fill () {
	"$FM" -d "$TRASH_DIRECTORY/mirror" "$@" >"$TRASH_DIRECTORY/fill.out" 2>"$TRASH_DIRECTORY/fill.err"
}

# packages_setup SOURCE-PACKAGE...: a store of the trash directory whose
# downloads come from its mirror only; prerequisite BOOTSTRAP when the
# bootstrap is made, PACKAGES when the mirror holds the sources too. Not
# under the sanitizers: minutes of building that t4030 covers there.
packages_setup () {
	test_private_store
	CIX_CAS_DIRS=$TRASH_DIRECTORY/mirror
	CIX_MIRRORS_FILE=/dev/null
	export CIX_CAS_DIRS CIX_MIRRORS_FILE
	case $CIX_BUILD_DIR in
	*-san) say "skip: package builds are not repeated under the sanitizers" ;;
	*)
		if ! bootstrap_make 2>/dev/null; then
			say "skip: no bootstrap"
		elif test_set_prereq BOOTSTRAP && mirror_fill "$@"; then
			test_set_prereq PACKAGES
		else
			say "skip: no sources ($(tail -1 "$TRASH_DIRECTORY/fill.err" 2>/dev/null))"
		fi ;;
	esac
}

# elf_in_store FILE [REGEXP]: FILE's loader (matching REGEXP; a store path
# by default) and every entry of its RUNPATH are in the store. Leaves the
# files interp and runpath in the current directory.
elf_in_store () {
	readelf -l "$1" | sed -n "s/.*interpreter: \(.*\)]/\1/p" >interp &&
	grep -q "${2:-^$CIX_STORE_DIR/}" interp &&
	readelf -d "$1" | sed -n "s/.*runpath: \[\(.*\)\]/\1/p" | tr : "\n" >runpath &&
	test -s runpath && ! grep -v "^$CIX_STORE_DIR/" runpath
}

# cross_make TRIPLET: scripts/make-cross-tools' tarball for TRIPLET, made
# once and kept in $BOOT_CACHE/cross-KEY (keyed by the script's hash, under
# the bootstrap's lock); sets CROSS to its directory.
MCT=$CIX_SRC_DIR/scripts/make-cross-tools
cross_make () {
	CROSS=$BOOT_CACHE/cross-$(sha256sum <"$MCT" | cut -c1-16)
	mkdir -p "$BOOT_CACHE" &&
	(
		flock 9 &&
		if [ ! -f "$CROSS/$1.done" ]; then
			mkdir -p "$CROSS" &&
			"$MCT" -c "$BOOT_CACHE/bootstrap-debs" -o "$CROSS" "$1" >"$CROSS/$1.log" 2>&1 &&
			touch "$CROSS/$1.done"
		fi
	) 9>"$BOOT_CACHE/bootstrap.lock"
}
