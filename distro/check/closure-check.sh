# closure-check.sh - in the build sandbox: a package's programs and libraries
# load with nothing but the store, and its smoke command works
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Run by the bootstrap's busybox sh, in a sandbox holding only the closure
# of the package, the bootstrap and busybox (no /bin, /usr, /lib):
#   sh closure-check.sh BUSYBOX PACKAGE BOOTSTRAP-TOOLS COMMAND LOADER
# Every ELF file in PACKAGE's bin, sbin, libexec and lib (top level) has its
# libraries resolved by LOADER, the store's loader its programs name
# (ld.so --list): a library not found fails the check. Every script's #! interpreter must be an executable
# in the store. COMMAND (if not empty) runs in bash with PACKAGE's bin first
# in PATH; its output is kept in $out/smoke for the caller to compare.
set -e
bb=$1 pkg=$2 boot=$3 cmd=$4 ld=$5
store=${pkg%/*}
fail () { echo "closure-check: $*" >&2; exit 1; }
"$bb" mkdir -p "$out"
elf=0 scripts=0
for dir in bin sbin libexec lib; do
	[ -d "$pkg/$dir" ] || continue
	if [ "$dir" = lib ]; then depth=1; else depth=3; fi
	for f in $("$bb" find "$pkg/$dir" -maxdepth "$depth" -type f); do
		magic=$("$bb" head -c 4 "$f" | "$bb" od -An -c | "$bb" tr -d ' ')
		case $magic in
		177ELF)
			# A static program (glibc's own shell) loads nothing.
			if ! "$boot/bin/readelf" -lW "$f" 2>/dev/null | "$bb" grep -q '^ *DYNAMIC '; then
				elf=$((elf + 1))
				continue
			fi
			"$ld" --list "$f" >"$out/ld.tmp" 2>&1 ||
				{ "$bb" cat "$out/ld.tmp" >&2; fail "$f: the loader cannot load it"; }
			if "$bb" grep -q 'not found' "$out/ld.tmp"; then
				"$bb" cat "$out/ld.tmp" >&2
				fail "$f: a library is missing"
			fi
			elf=$((elf + 1)) ;;
		'#!'*)
			interp=$("$bb" head -n 1 "$f" | "$bb" sed 's/^#! *//; s/[ 	].*//')
			case $interp in
			"$store"/*) [ -x "$interp" ] || fail "$f: its interpreter $interp is missing" ;;
			*) fail "$f: its interpreter $interp is outside the store" ;;
			esac
			scripts=$((scripts + 1)) ;;
		esac
	done
done
"$bb" rm -f "$out/ld.tmp"
echo "$elf ELF files, $scripts scripts" >"$out/report"
# The command runs in the bootstrap's bash, not busybox's sh: busybox would
# run its own applets (sed, diff, tar...) in place of the package's.
if [ -n "$cmd" ]; then
	PATH=$pkg/bin:$pkg/sbin:$boot/bin
	export PATH
	"$boot/bin/bash" -c "$cmd" >"$out/smoke" 2>&1 ||
		{ "$bb" cat "$out/smoke" >&2; fail "'$cmd' failed"; }
fi
