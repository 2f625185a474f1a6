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
#
# It unpacks the tarball into $out, sets the program interpreter of every
# dynamically linked program (listed in share/cix-bootstrap/interp-files) to
# $out's own ld.so, and writes $out/bin/gcc, cc and cpp: bash wrappers with
# $out baked in (see below). Everything is deterministic.

bb=$busybox/bin/busybox
: "${out:?}" "${tarball:?}" "${busybox:?}"
tmp=${TMPDIR:-/build}/unpack-bootstrap
libdir=$out/lib/x86_64-linux-gnu
ld=$libdir/ld-linux-x86-64.so.2
store=${out%/*}

$bb mkdir -p "$out" "$tmp"
$bb xz -dc "$tarball" | $bb tar -x -C "$out"

# patchelf is itself dynamic: run a copy of it, and of the libraries it needs,
# through the loader, never the files it rewrites (bootstrap.md, pitfall 8).
$bb cp "$out/usr/bin/patchelf" "$libdir/libc.so.6" "$libdir/libm.so.6" \
	"$libdir/libgcc_s.so.1" "$out/usr/lib/x86_64-linux-gnu/libstdc++.so.6" "$ld" "$tmp/"
n=0
while IFS= read -r f; do
	[ -n "$f" ] || continue
	"$tmp/ld-linux-x86-64.so.2" --library-path "$tmp" "$tmp/patchelf" \
		--set-interpreter "$ld" "$out/$f"
	n=$((n + 1))
done <"$out/share/cix-bootstrap/interp-files"
echo "unpack-bootstrap: interpreter set in $n programs"
$bb rm -rf "$tmp"

# The compiler wrappers. When linking, they add the dynamic loader (not for
# -shared or -static) and a RUNPATH entry for the bootstrap's libc directory
# and for each -LDIR and LIBRARY_PATH directory below the store.
$bb cat >"$out/bin/gcc" <<'EOF'
#!@out@/bin/bash
# gcc - the bootstrap's gcc 12 with its sysroot, loader and RUNPATHs
out=@out@
store=${NIX_STORE:-@store@}
args=("$@")
link=1 shared= static= inputs=0
rpath=("$out/lib/x86_64-linux-gnu")
add_rpath () {
	case $1 in
	"$store"/*) ;;
	*) return ;;
	esac
	local d
	for d in "${rpath[@]}"; do
		[ "$d" = "$1" ] && return
	done
	rpath+=("$1")
}
n=${#args[@]}
for ((i = 0; i < n; i++)); do
	a=${args[i]}
	case $a in
	-c|-S|-E|-M|-MM|-fsyntax-only|-r) link= ;;
	-shared) shared=1 ;;
	-static|-static-pie) static=1 ;;
	-L) i=$((i + 1)); add_rpath "${args[i]-}" ;;
	-L*) add_rpath "${a#-L}" ;;
	-l) i=$((i + 1)); inputs=$((inputs + 1)) ;;
	-l*) inputs=$((inputs + 1)) ;;
	-o|-x|-I|-include|-imacros|-isystem|-idirafter|-iquote|-iprefix|-iwithprefix|\
	-iwithprefixbefore|-isysroot|-MF|-MT|-MQ|-Xlinker|-Xassembler|-Xpreprocessor|\
	-u|-T|-e|-aux-info|--param|-z|-wrapper|-specs|-dumpdir|-dumpbase) i=$((i + 1)) ;;
	-*) ;;
	*) inputs=$((inputs + 1)) ;;
	esac
done
extra=()
if [ -n "$link" ] && [ "$inputs" -gt 0 ] && [ -z "$static" ]; then
	IFS=: read -r -a lp <<<"${LIBRARY_PATH-}"
	for d in "${lp[@]}"; do
		[ -n "$d" ] && add_rpath "$d"
	done
	for d in "${rpath[@]}"; do
		extra+=("-Wl,-rpath,$d")
	done
	[ -n "$shared" ] ||
		extra+=("-Wl,-dynamic-linker=$out/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2")
fi
exec "$out/usr/bin/x86_64-linux-gnu-gcc-12" --sysroot="$out" "$@" "${extra[@]}"
EOF
$bb cat >"$out/bin/cpp" <<'EOF'
#!@out@/bin/bash
# cpp - the bootstrap's C preprocessor with its sysroot
exec @out@/usr/bin/x86_64-linux-gnu-cpp-12 --sysroot=@out@ "$@"
EOF
$bb sed -i -e "s|@out@|$out|g" -e "s|@store@|$store|g" "$out/bin/gcc" "$out/bin/cpp"
$bb cp "$out/bin/gcc" "$out/bin/cc"
$bb chmod 0755 "$out/bin/gcc" "$out/bin/cc" "$out/bin/cpp"

# Sanity: the shell, the compiler and a tool or two start.
"$out/bin/bash" -c 'exit 0'
"$out/bin/gcc" --version >/dev/null
"$out/bin/make" --version >/dev/null
echo "unpack-bootstrap: $out is ready"
