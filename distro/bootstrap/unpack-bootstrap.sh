# unpack-bootstrap.sh - the builder of cix's bootstrap-tools derivation
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Run in the build sandbox as `$busybox/bin/busybox sh -e unpack-bootstrap.sh`,
# with nothing else there: no /bin/sh, no /usr, PATH=/path-not-set. POSIX sh
# for busybox ash; every tool is called through busybox by its full path.
#
# Environment:
#   out      the output: the unpacked bootstrap tools
#   tarball  store path of bootstrap-tools-gnu.tar.xz (scripts/make-bootstrap)
#   busybox  store path of the directory holding bin/busybox (static)
#   wrapper  the template of the compiler wrappers (gcc-wrapper.in)
#   extra    (optional) store path of bootstrap-tools-extra.tar.xz, g++ and
#            Python, unpacked on top of the tarball; then bin/g++ and bin/c++
#            wrappers are written too
#   multiarch    Debian's multiarch directory of the seeds (x86_64-linux-gnu)
#   tool_prefix  the prefix of their compiler drivers (x86_64-linux-gnu)
#   loader       the name of their loader (ld-linux-x86-64.so.2)
#
# It unpacks the tarball into $out, sets the program interpreter of every
# dynamically linked program (listed in share/cix-bootstrap/interp-files) to
# $out's own ld.so, and writes $out/bin/gcc, cc and cpp: bash wrappers with
# $out baked in (see below). Everything is deterministic.

bb=$busybox/bin/busybox
: "${out:?}" "${tarball:?}" "${busybox:?}" "${wrapper:?}"
: "${multiarch:?}" "${tool_prefix:?}" "${loader:?}"
tmp=${TMPDIR:-/build}/unpack-bootstrap
libdir=$out/lib/$multiarch
ld=$libdir/$loader
store=${out%/*}

$bb mkdir -p "$out" "$tmp"
$bb xz -dc "$tarball" | $bb tar -x -C "$out"
lists=$out/share/cix-bootstrap/interp-files
if [ -n "${extra:-}" ]; then
	$bb xz -dc "$extra" | $bb tar -x -C "$out"
	lists="$lists $out/share/cix-bootstrap/interp-files-extra"
fi

# patchelf is itself dynamic: run a copy of it, and of the libraries it needs,
# through the loader, never the files it rewrites (doc/bootstrap.md, pitfall 8).
$bb cp "$out/usr/bin/patchelf" "$libdir/libc.so.6" "$libdir/libm.so.6" \
	"$libdir/libgcc_s.so.1" "$out/usr/lib/$multiarch/libstdc++.so.6" "$ld" "$tmp/"
n=0
while IFS= read -r f; do
	[ -n "$f" ] || continue
	"$tmp/$loader" --library-path "$tmp" "$tmp/patchelf" \
		--set-interpreter "$ld" "$out/$f"
	n=$((n + 1))
done <<EOF_LISTS
$($bb cat $lists)
EOF_LISTS
echo "unpack-bootstrap: interpreter set in $n programs"
$bb rm -rf "$tmp"

# The compiler wrappers, from the template gcc-wrapper.in ($wrapper): the
# bootstrap's gcc with its sysroot, loader and RUNPATHs.
# wrap NAME DRIVER WHAT: write $out/bin/NAME.
wrap () {
	$bb sed -e "s|@bash@|$out/bin/bash|" -e "s|@name@|$1|" -e "s|@what@|$3|" \
		-e "s|@driver@|$out/usr/bin/$2|" -e "s|@libc_lib@|$libdir|" -e "s|@loader@|$ld|" \
		-e "s|@store@|$store|" -e "s|@always@|--sysroot=$out|" "$wrapper" >"$out/bin/$1"
	$bb chmod 0755 "$out/bin/$1"
}
wrap gcc "$tool_prefix-gcc-12" "the bootstrap's gcc 12"
$bb cp "$out/bin/gcc" "$out/bin/cc"
if [ -n "${extra:-}" ]; then
	wrap g++ "$tool_prefix-g++-12" "the bootstrap's g++ 12"
	$bb cp "$out/bin/g++" "$out/bin/c++"
fi
$bb cat >"$out/bin/cpp" <<EOF
#!$out/bin/bash
# cpp - the bootstrap's C preprocessor with its sysroot
exec $out/usr/bin/$tool_prefix-cpp-12 --sysroot=$out "\$@"
EOF
$bb chmod 0755 "$out/bin/cpp"

# Sanity: the shell, the compiler and a tool or two start.
"$out/bin/bash" -c 'exit 0'
"$out/bin/gcc" --version >/dev/null
"$out/bin/make" --version >/dev/null
if [ -n "${extra:-}" ]; then
	"$out/bin/g++" --version >/dev/null
	"$out/bin/python3" -c 'import argparse, subprocess, tempfile'
fi
echo "unpack-bootstrap: $out is ready"
