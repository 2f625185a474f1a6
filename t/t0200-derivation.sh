#!/bin/sh
# t0200-derivation.sh - cix derivation show against nix show-derivation
# SPDX-License-Identifier: GPL-3.0-or-later

test_description='cix derivation show: ATerm parsing, JSON, .drv and output paths'
. "$(dirname "$0")/test-lib.sh"

DRVS="single multi flat flat-sha1 recursive recursive-sha512 dep chain1 chain2 chain3 quoting controls twins"

# Nix writes the .drv files into private stores: one whose logical store is
# /nix/store (files under nixroot/nix/store), one with another store dir.
NIXSTORE="local?root=$TRASH_DIRECTORY/nixroot"
XSTORE="local?store=/xstore/store&real=$TRASH_DIRECTORY/x/real&state=$TRASH_DIRECTORY/x/state&log=$TRASH_DIRECTORY/x/log"
REAL=nixroot/nix/store

# check.py KIND NIX.json CIX.json: compare the Nix fields and check cix's.
cat >check.py <<'EOF'
import json, sys
nix = json.load(open(sys.argv[1], encoding="latin-1"))
cix = json.load(open(sys.argv[2], encoding="latin-1"))
assert set(nix) == set(cix), (sorted(nix), sorted(cix))
for path, d in cix.items():
    extra = d.pop("cix")
    assert d == nix[path], (d, nix[path])
    assert extra["validOutputs"] is True, extra
    want = {o: v["path"] for o, v in nix[path]["outputs"].items()}
    assert extra["recomputedPaths"] == want, (extra, want)
    assert len(extra["hashModulo"]) == 64
EOF

test_expect_success NIX 'instantiate derivations with Nix' '
	cp "$CIX_SRC_DIR/t/data/drv/drvs.nix" . &&
	printf "a\001b\010c\014d\033e\177f\377g\303\251h" >controls.txt &&
	for a in $DRVS; do
		nix-instantiate --store "$NIXSTORE" drvs.nix -A $a >$a.path 2>/dev/null &&
		test -s $a.path || return 1
		nix-instantiate --store "$XSTORE" drvs.nix -A $a >$a.xpath 2>/dev/null &&
		test -s $a.xpath || return 1
	done &&
	grep "^/nix/store/.*-hello-test.drv$" multi.path &&
	grep "^/xstore/store/.*-chain3.drv$" chain3.xpath
'

for a in $DRVS; do
	test_expect_success NIX "show $a: Nix fields equal nix show-derivation, outputs check" '
		p=$(cat '$a'.path) &&
		nix --store "$NIXSTORE" show-derivation "$p" >expect.json &&
		cix derivation show "$REAL/${p##*/}" >actual.json &&
		python3 check.py expect.json actual.json
	'
	test_expect_success NIX "show --no-verify $a: byte-identical to Nix" '
		p=$(cat '$a'.path) &&
		nix --store "$NIXSTORE" show-derivation "$p" >expect &&
		cix derivation show --no-verify "$REAL/${p##*/}" >actual &&
		test_cmp expect actual
	'
	test_expect_success NIX "$a: parse then print gives the .drv byte for byte" '
		p=$(cat '$a'.path) &&
		cix derivation show --aterm "$REAL/${p##*/}" >actual &&
		test_cmp "$REAL/${p##*/}" actual
	'
	test_expect_success NIX "$a in a store with another store dir" '
		p=$(cat '$a'.xpath) &&
		nix --store "$XSTORE" show-derivation "$p" >expect.json &&
		cix derivation show "x/real/${p##*/}" >actual.json &&
		python3 check.py expect.json actual.json &&
		cix derivation show --store-dir=/xstore/store "x/real/${p##*/}" >actual2.json &&
		test_cmp actual.json actual2.json
	'
done

test_expect_success NIX 'several derivations at once, in any order' '
	set -- &&
	for a in chain3 single flat multi single; do set -- "$@" $(cat $a.path); done &&
	nix --store "$NIXSTORE" show-derivation "$@" >expect &&
	files= &&
	for p in "$@"; do files="$files $REAL/${p##*/}"; done &&
	cix derivation show --no-verify $files >actual &&
	test_cmp expect actual
'

test_expect_success NIX 'wrong --store-dir is refused' '
	p=$(cat single.path) &&
	test_must_fail cix derivation show --store-dir=/gnu/store "$REAL/${p##*/}" 2>err &&
	test_line_count = 1 err &&
	grep "not in the store" err
'

# Hostile files: each must fail with exit 1 and one line naming the file.
expect_bad () {
	f=$1 pattern=$2
	test_expect_code 1 cix derivation show "$f" >out 2>err || { cat err; return 1; }
	test_line_count = 1 err &&
	grep -F "$f" err &&
	grep -e "$pattern" err
}

test_expect_success NIX 'prepare hostile derivations' '
	mkdir bad &&
	p=$(cat multi.path) && good="$REAL/${p##*/}" &&
	cp "$good" bad/good.drv &&
	: >bad/empty.drv &&
	head -c 100 "$good" >bad/truncated.drv &&
	{ cat "$good"; echo; } >bad/newline.drv &&
	{ cat "$good"; echo "Derive("; } >bad/trailing.drv &&
	sed "s/^Derive(\\[/Derive((\\[/" "$good" >bad/paren.drv &&
	sed "s/hello-test\"/hello\\\\atest\"/" "$good" >bad/escape.drv &&
	sed "s/(\"doc\",/(\"dev\",/" "$good" >bad/dupout.drv &&
	sed "s/(\"name\",/(\"doc\",/" "$good" >bad/dupenv.drv &&
	sed "s/(\"builder\",/(\"zzz\",/" "$good" >bad/unsorted.drv &&
	sed "s|(\"doc\",\"/nix/store/|(\"doc\",\"/nix/store/../|" "$good" >bad/dotdot.drv &&
	printf "\\000\\377garbage" >bad/garbage.drv &&
	mkdir bad/dir.drv
'

test_expect_success NIX 'malformed derivations are refused' '
	expect_bad bad/empty.drv "expected" &&
	expect_bad bad/truncated.drv "unterminated string" &&
	expect_bad bad/newline.drv "trailing data" &&
	expect_bad bad/trailing.drv "trailing data" &&
	expect_bad bad/paren.drv "expected" &&
	expect_bad bad/escape.drv "invalid escape" &&
	expect_bad bad/dupout.drv "duplicate output" &&
	expect_bad bad/dupenv.drv "duplicate environment variable" &&
	expect_bad bad/unsorted.drv "out of order" &&
	expect_bad bad/dotdot.drv "invalid derivation: output path" &&
	expect_bad bad/garbage.drv "expected" &&
	expect_bad bad/dir.drv "cannot read" &&
	expect_bad bad/missing.drv "cannot read"
'

test_expect_success NIX 'a file name that does not match the content is reported' '
	cix derivation show bad/good.drv >out 2>err ;
	test $? = 1 &&
	grep "bad/good.drv: file name does not match its content" err &&
	p=$(cat multi.path) &&
	grep "\"$p\"" out
'

test_expect_success NIX 'tampered output paths are reported' '
	p=$(cat single.path) && f="$REAL/${p##*/}" &&
	o=$(sed "s/^Derive(\\[(\"out\",\"\\([^\"]*\\)\".*/\\1/" "$f") &&
	t=/nix/store/00000000000000000000000000000000-single &&
	sed "s|$o|$t|g" "$f" >bad/tampered.drv &&
	cix derivation show bad/tampered.drv >out.json 2>err ;
	test $? = 1 &&
	grep "output .out. has path .$t., should be .$o." err &&
	python3 -c "
import json, sys
d = list(json.load(open(\"out.json\")).values())[0]
assert d[\"cix\"][\"validOutputs\"] is False
assert d[\"cix\"][\"recomputedPaths\"][\"out\"] == \"$o\"
"
'

test_expect_success NIX 'input derivations are read next to the derivation and checked' '
	p=$(cat dep.path) && f=${p##*/} &&
	mkdir lonely && cp "$REAL/$f" lonely/ &&
	test_must_fail cix derivation show "lonely/$f" 2>err &&
	test_line_count = 1 err &&
	grep "cannot read" err &&
	cp -r "$REAL" copy && chmod -R u+w copy &&
	i=$(cat single.path) && i=${i##*/} &&
	sed "s/echo hi/echo ho/" "copy/$i" >tmp && mv tmp "copy/$i" &&
	test_must_fail cix derivation show "copy/$f" 2>err &&
	test_line_count = 1 err &&
	grep "its content hashes to" err &&
	cix derivation show --no-verify "copy/$f" >/dev/null
'

test_expect_success 'usage' '
	cix derivation --help >out && grep "Usage: cix derivation show" out &&
	cix derivation show --help >out && grep -e "--no-verify" out &&
	cix derivation --version &&
	cix derivation show; test $? = 2 &&
	cix derivation frob; test $? = 2 &&
	cix derivation; test $? = 2 &&
	cix derivation show --bogus x; test $? = 2 &&
	cix derivation show --store-dir=relative x; test $? = 2
'

test_done
