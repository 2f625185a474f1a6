#!/bin/sh
# cix-smoke.sh BUILD-DIR - the check phase of the cix package: the cix just
# built (in BUILD-DIR of this source tree) hashes a file, adds it to a store
# of its own, and builds a derivation in its sandbox.
# SPDX-License-Identifier: GPL-3.0-or-later
set -eu
src=$PWD
cix=$src/$1/cix
# Not below $TMPDIR: in a build that is /build, which a store in a sandbox
# may not be under (the sandbox has its own /build).
T=$(mktemp -d /tmp/cix-smoke.XXXXXX)
export CIX_STORE_DIR="$T/store" CIX_STATE_DIR="$T/state" CIX_LOG_DIR="$T/log"
export CIX_DATA_DIR="$src" CIX_SCHEME_PATH="$src/scheme/modules:$src/distro"
export CIX_SCHEME_COMPILED_PATH="$src/$1/scheme/go" HOME="$T"
unset CIX_DAEMON_SOCKET

"$cix" --version
printf 'hello\n' >"$T/file"
test "$("$cix" hash -f base16 "$T/file")" = "$(sha256sum <"$T/file" | cut -d' ' -f1)"
echo "cix-smoke: hash ok"

p=$("$cix" store --add "$T/file")
case $p in "$T/store/"*-file) ;; *) echo "cix-smoke: bad store path $p" >&2; exit 1 ;; esac
cmp "$p" "$T/file"
echo "cix-smoke: store add ok ($p)"

# A builder of its own: a static program that writes its output, run in
# the sandbox of the store just made.
cat >"$T/b.c" <<'END'
#include <stdio.h>
#include <stdlib.h>
int main(void)
{
	const char *out = getenv("out");
	FILE *f = out ? fopen(out, "w") : NULL;
	if (!f)
		return 1;
	fputs("built in the sandbox\n", f);
	return fclose(f) != 0;
}
END
gcc -static -O2 -o "$T/builder" "$T/b.c"
cat >"$T/smoke.scm" <<END
(use-modules (guix packages) (guix build-system trivial))
(package (name "smoke") (version "1") (source #f)
  (build-system trivial-build-system)
  (inputs (quasiquote (("b" (unquote (local-file "$T/builder"))))))
  (arguments '(#:implicit-inputs? #f #:builder ((input "b")))))
END
out=$("$cix" build -f "$T/smoke.scm")
grep -qx "built in the sandbox" "$out"
echo "cix-smoke: sandboxed build ok ($out)"
chmod -R u+w "$T" 2>/dev/null || :
rm -rf "$T"
