# lib-bootstrap.sh - the bootstrap binaries and source mirror, for tests that build packages
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Source after test-lib.sh, with real_home set before it (test-lib moves
# HOME into the trash directory). bootstrap_make makes the bootstrap once
# and keeps it in ${CIX_BOOTSTRAP_CACHE:-~/.cache/cix}/bootstrap-KEY (the
# layout of t4000, under the same lock), keyed by make-bootstrap's hash;
# it sets BOOT. mirror_fill SOURCE-PACKAGE... fills $TRASH_DIRECTORY/mirror.

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
			"$MB" -c "$BOOT_CACHE/bootstrap-debs" -o "$BOOT.tmp/a" >"$BOOT.log" 2>&1 &&
			sha256sum <"$BOOT.tmp/a/bootstrap-tools-gnu.tar.xz" >"$BOOT.tmp/a/sha256" &&
			rm -rf "$BOOT" && mv "$BOOT.tmp/a" "$BOOT" && rm -rf "$BOOT.tmp" &&
			mv "$BOOT.log" "$BOOT/make-bootstrap.log" &&
			touch "$BOOT/done"
		fi
	) 9>"$BOOT_CACHE/bootstrap.lock"
}

mirror_fill () {
	"$FM" -d "$TRASH_DIRECTORY/mirror" "$@" >"$TRASH_DIRECTORY/fill.out" 2>"$TRASH_DIRECTORY/fill.err"
}
