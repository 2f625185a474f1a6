#!/bin/sh
# t2010-store-realise.sh - cix store --realise of derivations written by Nix
# SPDX-License-Identifier: GPL-3.0-or-later
test_description='realising derivations: same outputs, hashes and references as Nix'
. "$(dirname "$0")/test-lib.sh"

test_private_store
# Builders here are /bin/sh scripts: let the sandbox see the host's programs.
test_sandbox_host_paths
test_nix_oracle
# Nix builds in a chroot here (its real store differs from the logical one).
NIX_CONFIG="$NIX_CONFIG
extra-sandbox-paths = /bin /lib /lib64 /usr"

# mk.nix: derivation NAME needing DEPS; its builder checks that they are
# there and says "building NAME" (the log is the order builds start in).
cat >mk.nix <<-\EOF
name: deps: derivation { name = name; system = "x86_64-linux";
  builder = "/bin/sh"; inherit deps;
  args = [ "-c" "for d in $deps; do test -e $d || exit 1; done; echo building ${name}; echo ${name} > $out" ]; }
EOF
# instantiated NAME: the derivation of NAME.nix, in NAME.drv, imported with its closure.
instantiated () {
	nix-instantiate --store "$N" "$1.nix" >"$1.drv" 2>/dev/null &&
	nixs --export $(nixs -qR $(cat "$1.drv")) | cix store --import >/dev/null
}

test_expect_success NIX 'derivations written by nix-instantiate' '
	# The fixed-output hashes come from the oracle, for what the builders make.
	printf "hello\n" >hello && mkdir rx && echo hi >rx/x &&
	flat=$(nix-hash --type sha256 --flat --base32 hello) &&
	rec=$(nix-hash --type sha256 --base32 rx) &&
	cat >d.nix <<-\EOF &&
	let sh = "/bin/sh"; sys = "x86_64-linux"; in rec {
	  a = derivation { name = "a"; system = sys; builder = sh; args = [ "-c" "echo hello > $out" ]; };
	  b = derivation { name = "b"; system = sys; builder = sh; outputs = [ "out" "doc" ]; inherit a;
	    args = [ "-c" "read x < $a; /bin/mkdir $out $doc; echo $x $a > $out/f; echo $out > $doc/g; /bin/ln -s f $out/l" ]; };
	  c = derivation { name = "c"; system = sys; builder = sh; b = b.doc; inherit a;
	    args = [ "-c" "echo $b > $out; echo $out >> $out" ]; };
	  flat = derivation { name = "flat"; system = sys; builder = sh; args = [ "-c" "echo hello > $out" ];
	    outputHashAlgo = "sha256"; outputHash = "@FLAT@"; };
	  rec_ = derivation { name = "rec"; system = sys; builder = sh; args = [ "-c" "/bin/mkdir $out; echo hi > $out/x" ];
	    outputHashMode = "recursive"; outputHashAlgo = "sha256";
	    outputHash = "@REC@"; };
	  cycle = derivation { name = "cycle"; system = sys; builder = sh; outputs = [ "out" "doc" ];
	    args = [ "-c" "echo $doc > $out; echo $out > $doc" ]; };
	  fails = derivation { name = "fails"; system = sys; builder = sh; args = [ "-c" "echo oops; exit 3" ]; };
	  none = derivation { name = "none"; system = sys; builder = sh; args = [ "-c" "true" ]; };
	  bad = derivation { name = "bad"; system = sys; builder = sh; args = [ "-c" "echo hullo > $out" ];
	    outputHashAlgo = "sha256"; outputHash = "@FLAT@"; };
	}
	EOF
	sed -i "s/@FLAT@/$flat/g; s/@REC@/$rec/g" d.nix &&
	echo "$flat" >flat.hash &&
	for x in a b c flat rec_ cycle fails none bad; do
		nix-instantiate --store "$N" d.nix -A $x 2>/dev/null >$x.drv || return 1
	done &&
	nixs --export $(nixs -qR $(cat *.drv)) >drvs.export &&
	cix store --import <drvs.export >/dev/null
'

test_expect_success NIX 'cix store --realise builds what Nix builds' '
	cix store --realise $(cat c.drv) $(cat flat.drv) $(cat rec_.drv) >cix.out 2>build.log &&
	nixs --realise $(cat c.drv) $(cat flat.drv) $(cat rec_.drv) >nix.out 2>nix.log &&
	test_cmp nix.out cix.out &&
	for d in a b c flat rec_; do
		for p in $(nixs -q --outputs $(cat $d.drv)); do
			for q in --hash --size --references --deriver; do
				cix store -q $q $p >cq && nixs -q $q $p >nq &&
				test_cmp nq cq || { echo "differs: $q $p"; return 1; }
			done
		done
	done &&
	cix store --verify --check-contents
'

test_expect_success NIX 'selected outputs with DRV!OUT, and a second realise builds nothing' '
	cix store -r "$(cat b.drv)!doc" >out &&
	test "$(cat out)" = "$(nixs -q --outputs $(cat b.drv) | grep -- -doc\$)" &&
	cix store -r $(cat b.drv) >out2 2>log2 &&
	test_line_count = 2 out2 && test_line_count = 0 log2
'

test_expect_success NIX 'build logs are kept, compressed, and read back' '
	d=$(cat a.drv) && base=${d##*/} &&
	f="log/drvs/$(echo $base | cut -c1-2)/$(echo $base | cut -c3-).bz2" &&
	test -f "$f" && test_path_is_missing "${f%.bz2}" &&
	test "$(head -c 3 "$f")" = BZh &&
	test_expect_code 1 cix store -r $(cat fails.drv) 2>/dev/null;
	cix store --read-log $(cat fails.drv) >log.out &&
	grep oops log.out &&
	cix store -l "$(nixs -q --outputs $(cat a.drv))" >log.a &&
	test_expect_code 1 cix store -l $(cat none.drv) 2>err &&
	grep "not available" err
'

test_expect_success NIX 'a cycle between outputs is refused and nothing stays' '
	test_expect_code 1 cix store -r $(cat cycle.drv) 2>err &&
	grep "cycle detected" err &&
	for p in $(nixs -q --outputs $(cat cycle.drv)); do
		test_path_is_missing "$p" || return 1
	done
'

test_expect_success NIX 'a failing builder: exit code reported, output removed, -K keeps the directory' '
	test_expect_code 1 cix store -r $(cat fails.drv) 2>err &&
	grep "failed with exit code 3" err &&
	grep oops err &&
	test_path_is_missing "$(nixs -q --outputs $(cat fails.drv))" &&
	test "$(ls state/builds | wc -l)" = 0 &&
	test_expect_code 1 cix store -r -K $(cat fails.drv) 2>err &&
	test "$(ls state/builds | wc -l)" = 1 &&
	test_expect_code 1 cix store -r $(cat none.drv) 2>err &&
	grep "failed to produce output path" err
'

test_expect_success NIX 'a fixed-output hash mismatch names both hashes, registers nothing at the wanted path' '
	test_expect_code 1 cix store -r $(cat bad.drv) 2>err &&
	grep "hash mismatch in fixed-output derivation .$(cat bad.drv).:" err &&
	grep "specified: sha256-" err && grep "got:    sha256-" err &&
	test_expect_code 1 cix store --check-validity $(nixs -q --outputs $(cat bad.drv)) 2>/dev/null
'

test_expect_success NIX 'parallel jobs, and two processes asking for one build' '
	cat >par.nix <<-\EOF &&
	let mk = i: deps: derivation { name = "p${toString i}"; system = "x86_64-linux";
	      builder = "/bin/sh"; inherit deps;
	      args = [ "-c" "echo building ${toString i}; echo ${toString i} $deps > $out" ]; };
	    leaves = builtins.genList (i: mk i []) 6;
	in { top = mk 100 leaves;
	     slow = derivation { name = "slow"; system = "x86_64-linux"; builder = "/bin/sh";
	       args = [ "-c" "echo building slow; /bin/sleep 97.5311 & /bin/sleep 1; echo done > $out" ]; }; }
	EOF
	nix-instantiate --store "$N" par.nix -A top >top.drv 2>/dev/null &&
	nix-instantiate --store "$N" par.nix -A slow >slow.drv 2>/dev/null &&
	nixs --export $(nixs -qR $(cat top.drv slow.drv)) | cix store --import >/dev/null &&
	cix store -r -j 3 $(cat top.drv) >top.out 2>top.log &&
	test_line_count = 7 top.log &&
	nixs -r -j 3 $(cat top.drv) >top.nix 2>/dev/null &&
	test_cmp top.nix top.out &&
	test "$(cix store -q --hash $(cat top.out))" = "$(nixs -q --hash $(cat top.out))" &&
	test "$(cix store -q --references $(cat top.out) | wc -l)" = 6 &&
	{ cix store -r $(cat slow.drv) >s1.out 2>s1.log & } &&
	cix store -r $(cat slow.drv) >s2.out 2>s2.log &&
	wait &&
	test_cmp s1.out s2.out &&
	test "$(cat s1.log s2.log | grep -c "building slow")" = 1 &&
	# What the builder left running was killed with it.
	for i in 1 2 3 4 5 6 7 8 9 10; do pgrep -f "sleep 97.5311" >/dev/null || break; sleep 0.2; done &&
	! pgrep -f "sleep 97.5311" >/dev/null
'

test_expect_success NIX 'what the longest chain of builds waits for starts first' '
	# top needs four leaves and a chain c3 <- c2 <- c1 <- c0: one job at a
	# time, c0, c1 and c2 come before every leaf, whatever the hashes.
	cat >chain.nix <<-\EOF &&
	let mk = import ./mk.nix;
	    chain = i: mk "c${toString i}" (if i == 0 then [] else [ (chain (i - 1)) ]);
	    leaves = builtins.genList (i: mk "l${toString i}" []) 4;
	in mk "top" ([ (chain 3) ] ++ leaves)
	EOF
	instantiated chain &&
	cix store -r -j 1 $(cat chain.drv) >chain.out 2>chain.log &&
	test_line_count = 9 chain.log &&
	head -n 3 chain.log >first &&
	printf "building c%s\n" 0 1 2 >expect &&
	test_cmp expect first &&
	test "$(tail -n 1 chain.log)" = "building top"
'

test_expect_success NIX 'a long chain and many leaves (the ready set spans words): chain first, inputs before users' '
	# w-c69 <- ... <- w-c0 and 100 leaves w-l0..w-l99, each needing the one
	# before it in twos (w-l2k+1 <- w-l2k): one job, so the log is the order
	# builds start in; w-c0..w-c67 have longer chains than any leaf (w-c68
	# ties with w-l0). Names of their own: the chain test built c0..c3.
	cat >wide.nix <<-\EOF &&
	let mk = import ./mk.nix;
	    chain = i: mk "w-c${toString i}" (if i == 0 then [] else [ (chain (i - 1)) ]);
	    leaf = i: mk "w-l${toString i}" (if i - (i / 2) * 2 == 1 then [ (leaf (i - 1)) ] else []);
	in mk "w-top" ([ (chain 69) ] ++ builtins.genList leaf 100)
	EOF
	instantiated wide &&
	cix store -r -j 1 $(cat wide.drv) >wide.out 2>wide.log &&
	test_line_count = 171 wide.log &&
	head -n 68 wide.log >first &&
	for i in $(seq 0 67); do echo "building w-c$i"; done >expect &&
	test_cmp expect first &&
	test "$(tail -n 1 wide.log)" = "building w-top" &&
	test "$(sort -u wide.log | wc -l)" = 171 &&
	for i in $(seq 1 2 99); do
		a=$(grep -n "^building w-l$((i - 1))\$" wide.log | cut -d: -f1) &&
		b=$(grep -n "^building w-l$i\$" wide.log | cut -d: -f1) &&
		test "$a" -lt "$b" || return 1
	done
'

test_expect_success NIX 'a failed build stops the rest; with --keep-going only what needs it' '
	# top needs l0, l1 and m2 <- m1 <- bad: bad (the longest chain) fails first.
	cat >kg.nix <<-\EOF &&
	let mk = import ./mk.nix;
	    bad = derivation { name = "kg-bad"; system = "x86_64-linux"; builder = "/bin/sh";
	      args = [ "-c" "echo building kg-bad; exit 7" ]; };
	in mk "kg-top" [ (mk "kg-m2" [ (mk "kg-m1" [ bad ]) ]) (mk "kg-l0" []) (mk "kg-l1" []) ]
	EOF
	instantiated kg &&
	leaves=$(nixs -qR $(cat kg.drv) | grep "kg-l[01].drv$") &&
	test_expect_code 1 cix store -r -j 1 $(cat kg.drv) >kg.out 2>kg.log &&
	grep "failed with exit code 7" kg.log &&
	test "$(grep -c "^building" kg.log)" = 1 &&
	for d in $leaves; do test_path_is_missing "$(nixs -q --outputs $d)" || return 1; done &&
	test_expect_code 1 cix store -r -j 1 --keep-going $(cat kg.drv) >kg.out 2>kg.log &&
	grep "failed with exit code 7" kg.log &&
	grep "^building kg-l0$" kg.log && grep "^building kg-l1$" kg.log &&
	! grep "^building kg-m\|^building kg-top" kg.log &&
	for d in $leaves; do cix store --check-validity "$(nixs -q --outputs $d)" || return 1; done &&
	test ! -s kg.out
'

test_expect_success NIX 'an outside file cannot be linked into an output' '
	echo secret >canary && chmod 600 canary &&
	cat >hl.nix <<-EOF &&
	derivation { name = "hl"; system = "x86_64-linux"; builder = "/bin/sh";
	  args = [ "-c" "/bin/mkdir \$out; /bin/ln $PWD/canary \$out/stolen" ]; }
	EOF
	nix-instantiate --store "$N" hl.nix >hl.drv 2>/dev/null &&
	nixs --export $(nixs -qR $(cat hl.drv)) | cix store --import >/dev/null &&
	test_expect_code 1 cix store -r $(cat hl.drv) 2>err &&
	grep "failed with exit code" err &&
	test "$(stat -c %a canary)" = 600 &&
	test "$(cat canary)" = secret &&
	test_path_is_missing "$(nixs -q --outputs $(cat hl.drv))"
'

test_expect_success NIX 'hard links between files of an output are kept, as Nix' '
	cat >hli.nix <<-\EOF &&
	derivation { name = "hli"; system = "x86_64-linux"; builder = "/bin/sh";
	  args = [ "-c" "/bin/mkdir -p $out/d; echo x > $out/a; /bin/ln $out/a $out/d/b; /bin/ln $out/a $out/c" ]; }
	EOF
	nix-instantiate --store "$N" hli.nix >hli.drv 2>/dev/null &&
	nixs --export $(nixs -qR $(cat hli.drv)) | cix store --import >/dev/null &&
	o=$(cix store -r $(cat hli.drv)) &&
	test "$(stat -c %h "$o/a")" = 3 &&
	nixs -r $(cat hli.drv) >/dev/null 2>&1 &&
	test "$(cix store -q --hash "$o")" = "$(nixs -q --hash "$o")" &&
	cix store --verify-path "$o"
'

test_expect_success NIX 'the sandbox: no host files, loopback only, limits enforced' '
	cat >sb.nix <<-EOF &&
	let d = name: script: derivation { inherit name; system = "x86_64-linux"; builder = "/bin/sh";
	      args = [ "-c" script ]; }; in {
	  peek = d "peek" "/bin/cat $PWD/canary > \$out";
	  net = d "net" "/bin/cat /proc/net/dev > \$out";
	  slow = d "slow" "/bin/sleep 30; echo > \$out";
	  quiet = d "quiet" "echo start; /bin/sleep 30; echo > \$out";
	  flood = d "flood" "while :; do echo 0123456789; done";
	}
	EOF
	for x in peek net slow quiet flood; do
		nix-instantiate --store "$N" sb.nix -A $x >sb-$x.drv 2>/dev/null || return 1
	done &&
	nixs --export $(nixs -qR $(cat sb-*.drv)) | cix store --import >/dev/null &&
	test_expect_code 1 cix store -r $(cat sb-peek.drv) 2>err &&
	grep "No such file" err &&
	out=$(cix store -r $(cat sb-net.drv)) &&
	grep "lo:" "$out" && test "$(grep -c : "$out")" = 1 &&
	test_expect_code 1 cix store -r --timeout 1 $(cat sb-slow.drv) 2>err &&
	grep "timed out after 1 seconds" err &&
	test_expect_code 1 cix store -r --max-silent-time 1 $(cat sb-quiet.drv) 2>err &&
	grep "silence" err &&
	test_expect_code 1 cix store -r --max-build-log-size 5000 $(cat sb-flood.drv) 2>err &&
	grep "more than 5000 bytes of log" err &&
	test "$(cix store -l $(cat sb-flood.drv) | wc -c)" = 5000
'

test_expect_success NIX 'kill -9 during a build: nothing registered, the next build works' '
	cat >k.nix <<-\EOF &&
	derivation { name = "killed"; system = "x86_64-linux"; builder = "/bin/sh";
	  args = [ "-c" "/bin/mkdir $out; echo partial > $out/a; /bin/sleep 2; echo done > $out/b" ]; }
	EOF
	nix-instantiate --store "$N" k.nix >k.drv 2>/dev/null &&
	nixs --export $(nixs -qR $(cat k.drv)) | cix store --import >/dev/null &&
	o=$(nixs -q --outputs $(cat k.drv)) &&
	{ cix store -r $(cat k.drv) >/dev/null 2>&1 & } &&
	sleep 0.5 && kill -9 $! ; wait
	test_expect_code 1 cix store --check-validity "$o" 2>/dev/null &&
	cix store -r $(cat k.drv) >k.out &&
	test "$(cat "$o/b")" = done &&
	cix store --verify-path "$o"
'

test_expect_success NIX 'only some outputs valid: a failed build leaves them as they are (doc/security.md item 13)' '
	# The build fails the second time by writing more log than allowed.
	cat >part.nix <<-\EOF &&
	derivation { name = "part"; system = "x86_64-linux"; builder = "/bin/sh"; outputs = [ "out" "doc" ];
	  args = [ "-c" "i=0; while [ $i -lt 100 ]; do echo 0123456789; i=$((i + 1)); done;
	    echo out > $out; echo $out > $doc" ]; }
	EOF
	nix-instantiate --store "$N" part.nix >part.drv 2>/dev/null &&
	nixs --export $(nixs -qR $(cat part.drv)) | cix store --import >/dev/null &&
	cix store -r $(cat part.drv) >outs 2>/dev/null &&
	out=$(sed -n 1p outs) doc=$(sed -n 2p outs) &&
	case "$out" in *-doc) t=$out; out=$doc; doc=$t ;; esac &&
	before=$(cix store -q --hash "$out") &&
	cix store --delete "$doc" &&
	test_expect_code 1 cix store -r --max-build-log-size 100 $(cat part.drv) 2>err &&
	grep "more than 100 bytes of log" err &&
	cix store --check-validity "$out" &&
	cix store --verify-path "$out" &&
	test "$(cat "$out")" = out &&
	test_path_is_missing "$doc" &&
	cix store -r $(cat part.drv) >/dev/null 2>&1 &&
	test "$(cix store -q --hash "$out")" = "$before" &&
	test "$(cat "$doc")" = "$out" &&
	cix store -q --references "$doc" | grep -x "$out" &&
	cix store --verify --check-contents
'

test_expect_success NIX '--check: a deterministic build passes, a random one exits 104' '
	cat >chk.nix <<-\EOF &&
	let d = name: script: derivation { inherit name; system = "x86_64-linux"; builder = "/bin/sh";
	      args = [ "-c" script ]; }; in {
	  same = d "same" "echo same > $out";
	  random = d "random" "/bin/od -An -N8 -tx8 /dev/urandom > $out";
	}
	EOF
	nix-instantiate --store "$N" chk.nix -A same >same.drv 2>/dev/null &&
	nix-instantiate --store "$N" chk.nix -A random >random.drv 2>/dev/null &&
	nixs --export $(nixs -qR $(cat same.drv random.drv)) | cix store --import >/dev/null &&
	test_expect_code 1 cix store -r --check $(cat same.drv) 2>err &&
	grep "checking is not possible" err &&
	cix store -r $(cat same.drv random.drv) >outs &&
	before=$(cat $(sed -n 2p outs)) &&
	cix store -r --check $(cat same.drv) &&
	test_expect_code 104 cix store -r --check $(cat random.drv) 2>err &&
	grep "may not be deterministic" err &&
	test "$(cat $(sed -n 2p outs))" = "$before" &&
	cix store --verify-path $(cat outs)
'

test_expect_success NIX '--verify --repair: a modified output is built again from its deriver' '
	out=$(cix store -r $(cat same.drv)) &&
	chmod u+w $out && echo tampered >$out && chmod u-w $out &&
	test_expect_code 1 cix store --verify --check-contents 2>err &&
	grep "was modified" err &&
	cix store --verify --check-contents --repair 2>err &&
	grep "repaired" err &&
	test "$(cat $out)" = same &&
	cix store --verify --check-contents
'

test_expect_success 'bad arguments' '
	test_expect_code 1 cix store -r /etc/passwd 2>err && test_line_count = 1 err &&
	test_expect_code 1 cix store -r "$CIX_STORE_DIR/00000000000000000000000000000000-x.drv" 2>err &&
	grep "not valid" err &&
	test_expect_code 2 cix store -r -j x "$CIX_STORE_DIR/00000000000000000000000000000000-x.drv" 2>err &&
	test_expect_code 2 cix store -r --timeout -1 "$CIX_STORE_DIR/00000000000000000000000000000000-x.drv" 2>err &&
	test_expect_code 2 cix store -r --max-build-log-size 99999999999999999999999 x.drv 2>err
'

test_done
