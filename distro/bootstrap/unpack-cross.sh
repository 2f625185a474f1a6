# unpack-cross.sh - the builder of cix's cross tool chain derivations
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Run in the build sandbox by the bootstrap's bash (-e), with the bootstrap
# tools' bin on PATH. Environment:
#   out       the tool chain: TRIPLET-gcc, -cpp, binutils, the target's headers
#   lib       the target's run-time libraries (its loader, libc...), alone, so
#             that what is cross-built refers to them and not to the compilers
#   tarball   cross-tools-TRIPLET.tar.xz (scripts/make-cross-tools)
#   bootstrap_tools  the unpacked bootstrap (its loader and libraries run
#             the cross compilers, which are x86_64 programs)
#   triplet   e.g. aarch64-linux-gnu
#
# It unpacks the tarball into $out, moves the target's shared libraries and
# loader to $lib/lib (leaving symlinks, for the linker), sets the
# interpreter and RUNPATH of every x86_64 program and library of the tool
# chain to the bootstrap's, and writes $out/bin/TRIPLET-gcc (and -cc, -cpp)
# wrappers: --sysroot=$out and, when linking, the target loader and RUNPATHs
# in $lib and in the store directories given with -L or CROSS_LIBRARY_PATH.
# Everything is deterministic.

: "${out:?}" "${lib:?}" "${tarball:?}" "${bootstrap_tools:?}" "${triplet:?}"
boot=$bootstrap_tools
export PATH=$boot/bin
ld=$boot/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2
store=${out%/*}
tlib=$out/usr/$triplet/lib

mkdir -p "$out" "$lib/lib"
xz -dc "$tarball" | tar -x -C "$out"

# The target's run-time files: the loader and the lib*.so.N libraries.
n=0
for f in "$tlib"/ld-linux-* "$tlib"/lib*.so.*; do
	[ -f "$f" ] && [ ! -L "$f" ] || continue
	mv "$f" "$lib/lib/"
	ln -s "$lib/lib/${f##*/}" "$f"
	n=$((n + 1))
done
for f in "$tlib"/lib*.so.*; do
	# Version links (libfoo.so.1 -> libfoo.so.1.2): the same in $lib.
	[ -L "$f" ] && [ ! -e "$lib/lib/${f##*/}" ] || continue
	t=$(readlink "$f")
	case $t in /*) continue ;; esac
	ln -s "$t" "$lib/lib/${f##*/}"
done
loader=$(cd "$lib/lib" && ls ld-linux-* | head -1)
[ -n "$loader" ] || { echo "unpack-cross: no target loader in the tarball" >&2; exit 1; }
echo "unpack-cross: $n target libraries in $lib/lib, loader $loader"

# The x86_64 programs and libraries of the tool chain.
rpath="$out/usr/lib/x86_64-linux-gnu:$boot/lib/x86_64-linux-gnu:$boot/usr/lib/x86_64-linux-gnu"
n=0
while IFS= read -r -d '' f; do
	patchelf --print-needed "$f" >/dev/null 2>&1 || continue
	[ "$(od -An -tx1 -j18 -N2 "$f" | tr -d ' \n')" = 3e00 ] || continue   # EM_X86_64
	if patchelf --print-interpreter "$f" >/dev/null 2>&1; then
		patchelf --set-interpreter "$ld" "$f"
	fi
	patchelf --set-rpath "$rpath" "$f"
	n=$((n + 1))
done < <(find "$out/usr/bin" "$out/usr/lib" "$out/usr/$triplet/bin" -type f -print0 | sort -z)
echo "unpack-cross: $n x86_64 ELF files given the bootstrap's loader and libraries"

mkdir -p "$out/bin"
cat >"$out/bin/$triplet-gcc" <<'EOF'
#!@boot@/bin/bash
# TRIPLET-gcc - Debian's cross gcc 12 with its sysroot, the target loader and RUNPATHs
out=@out@
store=${NIX_STORE:-@store@}
args=("$@")
link=1 shared= static= inputs=0
rpath=("@lib@/lib")
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
# The target's own inputs (a cross compiler reads no LIBRARY_PATH, and
# CPATH would mix in the build machine's headers): CROSS_CPATH and
# CROSS_LIBRARY_PATH, set by gnu-build for a cross build.
pre=()
IFS=: read -r -a cp <<<"${CROSS_CPATH-}"
for d in "${cp[@]}"; do
	[ -n "$d" ] && pre+=("-isystem" "$d")
done
IFS=: read -r -a lp <<<"${CROSS_LIBRARY_PATH-}"
for d in "${lp[@]}"; do
	[ -n "$d" ] || continue
	pre+=("-L$d")
	add_rpath "$d"
done
extra=()
if [ -n "$link" ] && [ "$inputs" -gt 0 ] && [ -z "$static" ]; then
	for d in "${rpath[@]}"; do
		extra+=("-Wl,-rpath,$d")
	done
	[ -n "$shared" ] || extra+=("-Wl,-dynamic-linker=@lib@/lib/@loader@")
fi
exec "$out/usr/bin/@triplet@-gcc-12" --sysroot="$out" "${pre[@]}" "$@" "${extra[@]}"
EOF
cat >"$out/bin/$triplet-cpp" <<'EOF'
#!@boot@/bin/bash
# TRIPLET-cpp - Debian's cross C preprocessor with its sysroot
exec @out@/usr/bin/@triplet@-cpp-12 --sysroot=@out@ "$@"
EOF
sed -i -e "s|@out@|$out|g" -e "s|@store@|$store|g" -e "s|@lib@|$lib|g" \
	-e "s|@boot@|$boot|g" -e "s|@triplet@|$triplet|g" -e "s|@loader@|$loader|g" \
	-e "s|TRIPLET|$triplet|g" "$out/bin/$triplet-gcc" "$out/bin/$triplet-cpp"
cp "$out/bin/$triplet-gcc" "$out/bin/$triplet-cc"
chmod 0755 "$out/bin/$triplet-gcc" "$out/bin/$triplet-cc" "$out/bin/$triplet-cpp"
# The binutils, by the names configure looks for.
for p in "$out/usr/bin/$triplet"-*; do
	b=${p##*/}
	case $b in *-gcc-12|*-cpp-12|*-gcc-*-12) continue ;; esac
	[ -e "$out/bin/$b" ] || ln -s "../usr/bin/$b" "$out/bin/$b"
done

# Sanity: the compiler and the assembler start, and a program links.
"$out/bin/$triplet-gcc" --version >/dev/null
"$out/bin/$triplet-as" --version >/dev/null
printf 'int main(void) { return 0; }\n' >"${TMPDIR:-/tmp}/t.c"
"$out/bin/$triplet-gcc" -o "${TMPDIR:-/tmp}/t" "${TMPDIR:-/tmp}/t.c"
"$out/bin/$triplet-readelf" -l "${TMPDIR:-/tmp}/t" | grep -q "interpreter: $lib/lib/$loader"
echo "unpack-cross: $out is ready"
