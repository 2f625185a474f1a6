#!/bin/sh
# t2060-sandbox-bin-sh.sh - __cixBinSh: a file of the inputs at /bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
test_description='a derivation that names a file of its inputs in __cixBinSh finds it at /bin/sh in its sandbox; without it there is no /bin/sh; a path that is not a file of its inputs is refused before the build'
. "$(dirname "$0")/test-lib.sh"

test_private_store
test_nix_oracle

# probe: run as the builder, it executes /bin/sh; run as /bin/sh, it
# writes $out. Static, so that it needs nothing else in the sandbox.
cat >probe.c <<\EOF
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "as-sh")) {
		FILE *f = fopen(getenv("out"), "w");
		return !f || fprintf(f, "ran as %s\n", argv[0]) < 0 || fclose(f);
	}
	execl("/bin/sh", "/bin/sh", "as-sh", (char *)0);
	return 3;
}
EOF
if gcc -static -O -o probe probe.c 2>/dev/null; then
	mkdir -p p/bin && cp probe p/bin/probe && test_set_prereq STATIC
fi

cat >sh.nix <<\EOF
{ probe, other, sh ? null }:
derivation ({
  name = "bin-sh"; system = "x86_64-linux";
  builder = "${builtins.storePath probe}/bin/probe";
} // (if sh == null then {} else if sh == "probe" then {
  __cixBinSh = "${builtins.storePath probe}/bin/probe";
} else if sh == "other" then {
  __cixBinSh = "${other}/bin/probe";
} else {
  __cixBinSh = sh;
}))
EOF

# drv [--argstr sh VALUE]: the derivation, written by Nix, imported into cix.
drv () {
	d_=$(nix-instantiate --store "$N" sh.nix --argstr probe "$P" --argstr other "$O" "$@" \
		2>inst.err) || { cat inst.err >&2; return 1; }
	nixs --export $(nixs -qR "$d_") | cix store --import >/dev/null && echo "$d_"
}

test_expect_success STATIC,NIX 'setup: the probe in the store, and a copy no derivation names' '
	P=$(cix store --add p) && test "$P" = "$(nixs --add p)" &&
	mkdir -p q/bin && cp probe q/bin/probe && echo other >q/mark &&
	O=$(cix store --add q) && test "$O" = "$(nixs --add q)" &&
	echo "$P" >P && echo "$O" >O
'
P=$(cat P 2>/dev/null) O=$(cat O 2>/dev/null)

test_expect_success STATIC,NIX 'named in __cixBinSh, the file is /bin/sh in the sandbox' '
	d=$(drv --argstr sh probe) &&
	out=$(cix store -r "$d") &&
	echo "ran as /bin/sh" >expect && test_cmp expect "$out"
'

test_expect_success STATIC,NIX 'without it, there is no /bin/sh' '
	d=$(drv) &&
	test_must_fail cix store -r "$d" 2>err &&
	grep "failed with exit code 3" err
'

test_expect_success STATIC,NIX 'a file of the store that is not an input is refused' '
	d=$(drv --argstr sh "$O/bin/probe") &&
	test_must_fail cix store -r "$d" 2>err &&
	grep "__cixBinSh .$O/bin/probe. is not a file of its inputs" err
'

test_expect_success STATIC,NIX 'so are a host file, a directory and a missing file' '
	for sh in /bin/sh "$P/bin" "$P/bin/nothing" "$P/../$(basename "$O")/bin/probe"; do
		d=$(drv --argstr sh "$sh") &&
		test_must_fail cix store -r "$d" 2>err &&
		grep -q "is not a file of its inputs" err || { echo "accepted: $sh"; return 1; }
	done
'

test_done
