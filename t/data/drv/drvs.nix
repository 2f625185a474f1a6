# drvs.nix - derivations for t0200-derivation.sh, instantiated by Nix (the oracle)
# SPDX-License-Identifier: GPL-3.0-or-later
let
  mk = attrs: builtins.derivation ({ system = "x86_64-linux"; builder = "/bin/sh"; } // attrs);
  hello = builtins.toFile "hello.txt" "hello\n";
in rec {
  single = mk { name = "single"; args = [ "-c" "echo hi > $out" ]; };
  multi = mk { name = "hello-test"; outputs = [ "out" "doc" "dev" ];
    args = [ "-c" "echo out > $out; echo doc > $doc; echo dev > $dev" ]; };
  flat = mk { name = "fixed"; args = [ "-c" "echo hello > $out" ];
    outputHashAlgo = "sha256"; outputHash = builtins.hashString "sha256" "hello\n"; };
  flat-sha1 = mk { name = "fixed-sha1"; args = [ "-c" "echo hello > $out" ];
    outputHashAlgo = "sha1"; outputHash = builtins.hashString "sha1" "hello\n"; };
  recursive = mk { name = "rec"; args = [ "-c" "echo hello > $out" ];
    outputHashMode = "recursive"; outputHashAlgo = "sha256";
    outputHash = "1c37d01af40be2e80691de3cc3df44377a699afbb17c68f080964b2fd071fc13"; };
  recursive-sha512 = mk { name = "rec512"; args = [ "-c" "echo hello > $out" ];
    outputHashMode = "recursive"; outputHashAlgo = "sha512";
    outputHash = builtins.hashString "sha512" "x"; };
  dep = mk { name = "dep";
    args = [ "-c" "cat ${single} ${multi.doc} ${multi} ${flat} ${recursive} ${hello} > $out" ]; };
  chain1 = mk { name = "chain1"; args = [ "-c" "echo ${dep} > $out" ]; };
  chain2 = mk { name = "chain2"; args = [ "-c" "echo ${chain1} ${multi.dev} > $out" ]; };
  chain3 = mk { name = "chain3"; args = [ "-c" "echo ${chain2} ${flat-sha1} ${recursive-sha512} > $out" ]; };
  quoting = mk { name = "quoting";
    args = [ "-c" "printf '%s\\n' \"a\\\"b\" > $out" "" "tab\there" "cr\rlf\n" "back\\slash" ];
    weird = "quote\" backslash\\ newline\n tab\t cr\r end";
    "key with spaces" = "v";
    empty = ""; };
  controls = mk { name = "controls"; x = builtins.readFile ./controls.txt; };
  # Two derivations of one fixed output: one hash modulo, their outputs merged.
  flat-twin = mk { name = "fixed"; args = [ "-c" "printf 'hello\\n' > $out" ];
    outputHashAlgo = "sha256"; outputHash = builtins.hashString "sha256" "hello\n"; };
  twins = mk { name = "twins"; args = [ "-c" "cat ${flat} ${flat-twin} ${single} > $out" ]; };
}
