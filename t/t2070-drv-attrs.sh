#!/bin/sh
# t2070-drv-attrs.sh - derivation attributes Nix 2.8 honours, against Nix as the oracle
# SPDX-License-Identifier: GPL-3.0-or-later
test_description='allowedReferences and co., passAsFile, placeholders, exportReferencesGraph, structured attrs, impureEnvVars'
. "$(dirname "$0")/test-lib.sh"

# Each derivation is instantiated by Nix, built by cix and by Nix (a store
# of its own on the same logical directory): the same success or failure,
# the same outputs.
test_private_store
test_sandbox_host_paths
test_nix_oracle
NIX_CONFIG="$NIX_CONFIG
extra-sandbox-paths = /bin /lib /lib64 /usr"
unset MYVAR

# both NAME: build NAME.drv with cix and with Nix; both succeed with the
# same outputs (contents and references), or both fail (errors in
# cix.err and nix.err).
both () {
	d=$(cat $1.drv)
	if cix store -r "$d" >cix.out 2>cix.err; then
		nixs -r "$d" >nix.out 2>nix.err || { echo "Nix failed:"; cat nix.err; return 1; }
		for p in $(cat nix.out); do
			for q in --hash --references; do
				cix store -q $q $p >cq && nixs -q $q $p >nq &&
				test_cmp nq cq || { echo "differs: $q $p"; return 1; }
			done
		done
	else
		cat cix.err
		if nixs -r "$d" >nix.out 2>nix.err; then
			echo "Nix succeeded"; return 1
		fi
		return 2
	fi
}
# fails NAME: both fail.
fails () {
	both "$1"; test $? = 2
}

test_expect_success NIX 'derivations written by nix-instantiate' '
	printf "hello\n" >hello &&
	flat=$(nix-hash --type sha256 --flat --base32 hello) &&
	cat >d.nix <<-\EOF &&
	let
	  sys = "x86_64-linux";
	  mk = a: derivation ({ system = sys; builder = "/bin/sh"; } // a);
	  mkb = a: derivation ({ system = sys; builder = "/bin/bash"; } // a);
	in rec {
	  dep = mk { name = "dep"; args = [ "-c" "echo dep > $out" ]; };
	  mid = mk { name = "mid"; inherit dep; args = [ "-c" "echo $dep > $out" ]; };
	  top = mk { name = "top"; inherit mid; args = [ "-c" "echo $mid > $out" ]; };
	  refok = mk { name = "refok"; inherit dep; allowedReferences = [ dep ]; args = [ "-c" "echo $dep > $out" ]; };
	  refbad = mk { name = "refbad"; inherit dep; allowedReferences = [ ]; args = [ "-c" "echo $dep > $out" ]; };
	  disref = mk { name = "disref"; inherit dep; disallowedReferences = [ dep ]; args = [ "-c" "echo $dep > $out" ]; };
	  reqok = mk { name = "reqok"; inherit mid; allowedRequisites = [ mid dep ]; args = [ "-c" "echo $mid $out > $out" ]; };
	  reqbad = mk { name = "reqbad"; inherit mid; allowedRequisites = [ mid ]; args = [ "-c" "echo $mid > $out" ]; };
	  disreq = mk { name = "disreq"; inherit mid; disallowedRequisites = [ dep ]; args = [ "-c" "echo $mid > $out" ]; };
	  selfok = mk { name = "selfok"; outputs = [ "out" "dev" ]; allowedReferences = [ "out" "dev" ];
	    args = [ "-c" "echo $out $dev > $out; echo $dev > $dev" ]; };
	  selfbad = mk { name = "selfbad"; allowedReferences = [ ]; args = [ "-c" "echo $out > $out" ]; };
	  illegal = mk { name = "illegal"; allowedReferences = [ "bogus" ]; args = [ "-c" "echo > $out" ]; };
	  paf = mk { name = "paf"; passAsFile = [ "big" "none" ]; big = "contents ${placeholder "out"}";
	    args = [ "-c" "test -z \"$big\" && test -z \"$nonePath\" && /bin/cat $bigPath > $out && echo >> $out && echo $bigPath >> $out" ]; };
	  ph = mk { name = "ph"; outputs = [ "out" "dev" ]; p = "x${placeholder "dev"}y";
	    args = [ "-c" "test $p = x\${dev}y && echo ok > ${placeholder "out"} && echo ${placeholder "out"} > $dev" ]; };
	  erg = mk { name = "erg"; exportReferencesGraph = [ "graph" top "g2" "${dep}" ];
	    args = [ "-c" "/bin/cat graph g2 > $out" ]; };
	  ergbad = mk { name = "ergbad"; exportReferencesGraph = [ "graph" ]; args = [ "-c" "echo > $out" ]; };
	  sa = mkb { name = "sa"; __structuredAttrs = true;
	    foo = "it'\''s"; n = 42; t = true; f = false; z = null; l = [ 1 "a" true ]; o = { x = "y"; k = 3; };
	    nested = { a = [ 1 ]; }; ph = placeholder "out"; fl = 1.5; "not-sh" = "x";
	    exportReferencesGraph = { g = top; h = [ dep ]; };
	    args = [ "-c" "source .attrs.sh; test -z \"$out\" && /bin/mkdir \${outputs[out]} && /bin/cp .attrs.json .attrs.sh \${outputs[out]}" ]; };
	  sachk = mkb { name = "sachk"; __structuredAttrs = true; inherit dep;
	    outputChecks.out.disallowedReferences = [ dep ];
	    args = [ "-c" "source .attrs.sh; echo $dep > \${outputs[out]}" ]; };
	  sareq = mkb { name = "sareq"; __structuredAttrs = true; inherit mid;
	    outputChecks.out.allowedRequisites = [ mid dep ];
	    args = [ "-c" "source .attrs.sh; echo $mid > \${outputs[out]}" ]; };
	  sareqok = mkb { name = "sareqok"; __structuredAttrs = true; inherit mid;
	    outputChecks.out.allowedRequisites = [ mid dep "out" ];
	    args = [ "-c" "source .attrs.sh; echo $mid > \${outputs[out]}" ]; };
	  impure = mk { name = "impure"; impureEnvVars = [ "MYVAR" ];
	    args = [ "-c" "test \"$MYVAR\" = set && echo hello > $out" ];
	    outputHashAlgo = "sha256"; outputHash = "@FLAT@"; };
	  pure = mk { name = "pure"; impureEnvVars = [ "MYVAR" ];
	    args = [ "-c" "test -z \"$MYVAR\" && echo hello > $out" ]; };
	  bad = mk { name = "bad"; args = [ "-c" "echo hullo > $out" ];
	    outputHashAlgo = "sha256"; outputHash = "@FLAT@"; };
	  eof = mk { name = "eof"; args = [ "-c" "echo bye; exec >&- 2>&-; /bin/sleep 1000; echo > $out" ]; };
	}
	EOF
	sed -i "s/@FLAT@/$flat/g" d.nix &&
	for x in dep mid top refok refbad disref reqok reqbad disreq selfok selfbad illegal paf ph erg ergbad \
		 sa sachk sareq sareqok impure pure bad eof; do
		nix-instantiate --store "$N" d.nix -A $x 2>/dev/null >$x.drv || return 1
	done &&
	nixs --export $(nixs -qR $(cat *.drv)) >drvs.export &&
	cix store --import <drvs.export >/dev/null
'

test_expect_success NIX 'allowedReferences and disallowedReferences' '
	both refok &&
	fails refbad && grep "is not allowed to refer to the following paths" cix.err &&
	grep "$(cat dep.out 2>/dev/null || nixs -q --outputs $(cat dep.drv))" cix.err &&
	fails disref && grep "is not allowed to refer" cix.err &&
	test_must_fail cix store --check-validity $(nixs -q --outputs $(cat disref.drv)) 2>/dev/null
'

test_expect_success NIX 'allowedRequisites and disallowedRequisites' '
	both reqok &&
	fails reqbad && grep "$(nixs -q --outputs $(cat dep.drv))" cix.err &&
	fails disreq && grep "is not allowed to refer" cix.err
'

test_expect_success NIX 'output names as specifiers, self-references, illegal specifiers' '
	both selfok &&
	fails selfbad &&
	fails illegal && grep "illegal reference specifier .bogus." cix.err
'

test_expect_success NIX 'passAsFile' '
	both paf &&
	grep "^contents $(nixs -q --outputs $(cat paf.drv))\$" $(cat cix.out)
'

test_expect_success NIX 'hash placeholders in the environment and the arguments' '
	both ph
'

test_expect_success NIX 'exportReferencesGraph' '
	both erg &&
	grep "$(nixs -q --outputs $(cat dep.drv))" $(cat cix.out) &&
	fails ergbad && grep "odd number of tokens" cix.err
'

test_expect_success NIX '__structuredAttrs: .attrs.json, .attrs.sh, outputChecks' '
	both sa &&
	both sareqok &&
	fails sachk && grep "is not allowed to refer" cix.err &&
	fails sareq
'

test_expect_success NIX 'impureEnvVars, for fixed-output derivations only, from the process that builds' '
	fails impure &&
	# A daemon builds with its own environment, not that of its client (as Nix).
	test_start_daemon "$TRASH_DIRECTORY/plain.sock" CIX_CONF_FILE=/dev/null &&
	test_start_daemon "$TRASH_DIRECTORY/myvar.sock" CIX_CONF_FILE=/dev/null MYVAR=set &&
	test_must_fail env MYVAR=set CIX_DAEMON_SOCKET="$TRASH_DIRECTORY/plain.sock" \
		cix store -r $(cat impure.drv) 2>err &&
	env CIX_DAEMON_SOCKET="$TRASH_DIRECTORY/myvar.sock" cix store -r $(cat impure.drv) &&
	MYVAR=set && export MYVAR &&
	both impure &&
	both pure &&
	unset MYVAR
'

test_expect_success NIX 'a fixed-output hash mismatch registers the path of what was built' '
	fails bad &&
	grep "hash mismatch in fixed-output derivation .$(cat bad.drv).:" cix.err &&
	grep "specified: sha256-" cix.err && grep "got:    sha256-" cix.err &&
	printf "hullo\n" >hullo &&
	got=$(nix-hash --type sha256 --flat --base32 hullo) &&
	p=$(nix-store --store "$N" --print-fixed-path sha256 $got bad) &&
	cix store --check-validity $p &&
	test "$(cix store -q --deriver $p)" = "$(cat bad.drv)" &&
	nixs --check-validity $p &&
	test_cmp hullo $p
'

test_expect_success NIX 'a builder that closes its output is ended, not waited for' '
	test_expect_code 1 cix store -r --timeout 60 $(cat eof.drv) 2>cix.err &&
	cat cix.err &&
	! grep "timed out" cix.err &&
	grep "signal 9" cix.err &&
	test_must_fail nixs -r --timeout 60 $(cat eof.drv) 2>nix.err &&
	cat nix.err && grep "signal 9" nix.err
'

test_done
