#!/bin/sh
# t0110-export-format.sh - export streams against nix-store --export/--import
# SPDX-License-Identifier: GPL-3.0-or-later

test_description='export stream writer and parser: byte-identical to Nix, hostile input refused'
. "$(dirname "$0")/test-lib.sh"

# bench/export-tool drives lib/export.c and lib/import.c until cix store
# --export/--import exist.
PATH=$CIX_BUILD_DIR/bench:$PATH
SD=/cix/store
S="local?store=$SD&real=$TRASH_DIRECTORY/real&state=$TRASH_DIRECTORY/state&log=$TRASH_DIRECTORY/log"
S2="local?store=$SD&real=$TRASH_DIRECTORY/real2&state=$TRASH_DIRECTORY/state2&log=$TRASH_DIRECTORY/log2"
nixs () { nix-store --store "$S" "$@"; }

# write_ours PATH...: our export of the Nix store's PATHs, with Nix's metadata.
write_ours () {
	first_=1
	for p_; do
		[ $first_ = 0 ] || { set --; first_=0; }
		drv_=$(nixs -q --deriver "$p_") || return 1
		[ "$drv_" != unknown-deriver ] || drv_=
		refs_=$(nixs -q --references "$p_") || return 1
		set -- "$@" "real/${p_##*/}" "$p_" "$drv_" \
			$(printf '%s\n' $refs_ | grep -c .) $refs_
	done
	export-tool write "$@"
}

# nix_meta PATH...: what export-tool read should print, from Nix's queries.
nix_meta () {
	for p_; do
		echo "path $p_" &&
		echo "hash $(nixs -q --hash "$p_")" &&
		echo "size $(nixs -q --size "$p_")" &&
		echo "deriver $(nixs -q --deriver "$p_")" &&
		nixs -q --references "$p_" | sort | sed "s/^/ref /" || return 1
	done
	echo "trailing 0"
}

test_expect_success NIX 'set up a private Nix store' '
	printf "hello\n" >hello.txt &&
	mkdir -p tree/sub &&
	printf "#!/bin/sh\n" >tree/run && chmod +x tree/run &&
	ln -s run tree/link && printf x >tree/sub/B && printf y >tree/sub/a &&
	nixs --add hello.txt >hello.path &&
	nixs --add tree >tree.path &&
	h=$(cat hello.path) t=$(cat tree.path) &&
	nix-instantiate --store "$S" --eval --read-write-mode -E \
		"builtins.toFile \"ref.txt\" \"see \${builtins.storePath \"$h\"} and \${builtins.storePath \"$t\"}\"" |
		tr -d "\"" >ref.path &&
	grep "^$SD/.*-ref.txt$" ref.path &&
	test "$(nixs -q --references $(cat ref.path) | wc -l)" = 2
'

# A built output has a deriver; this one also refers to itself.
test_expect_success NIX 'build a path with a deriver and a self-reference' '
	r=$(cat ref.path) &&
	cat >built.nix <<-EOF &&
	derivation {
	  name = "built"; system = builtins.currentSystem; builder = "/bin/sh";
	  PATH = "/bin:/usr/bin";
	  ref = builtins.storePath "$r";
	  args = [ "-c" "mkdir \$out && echo \$out >\$out/self && echo \$ref >\$out/ref" ];
	}
	EOF
	if NIX_CONFIG="$NIX_CONFIG
sandbox = false
extra-sandbox-paths = /bin /lib /lib64 /usr" nix-build --store "$S" --no-out-link built.nix >built.path 2>build.log &&
	   test -s built.path
	then
		nixs -q --references $(cat built.path) >refs &&
		grep -e -built\$ refs && grep -e -ref.txt\$ refs &&
		nixs -q --deriver $(cat built.path) | grep "^$SD/.*-built.drv$"
	else
		cat build.log; rm -f built.path; say "cannot build here: skipping built paths"
	fi
'
test -f "$TRASH_DIRECTORY/built.path" && test_set_prereq BUILT

for p in hello tree ref; do
	test_expect_success NIX "export of $p equals nix-store --export" '
		p=$(cat '$p'.path) &&
		nixs --export $p >'$p'.nix.exp &&
		write_ours $p >'$p'.cix.exp &&
		test_cmp '$p'.nix.exp '$p'.cix.exp
	'
done

test_expect_success NIX,BUILT 'export of the built path (deriver, self-reference)' '
	p=$(cat built.path) &&
	nixs --export $p >built.nix.exp &&
	write_ours $p >built.cix.exp &&
	test_cmp built.nix.exp built.cix.exp &&
	drv=$(nixs -q --deriver $p) &&
	nixs --export $drv >drv.nix.exp &&
	write_ours $drv >drv.cix.exp &&
	test_cmp drv.nix.exp drv.cix.exp
'

test_expect_success NIX 'export of a closure equals nix-store --export' '
	top=$(cat built.path 2>/dev/null || cat ref.path) &&
	nixs -qR $top >closure &&
	nixs --export $(cat closure) >closure.nix.exp &&
	write_ours $(cat closure) >closure.cix.exp &&
	test_cmp closure.nix.exp closure.cix.exp
'

test_expect_success NIX 'the writer sorts and deduplicates references' '
	p=$(cat ref.path) h=$(cat hello.path) t=$(cat tree.path) &&
	export-tool write real/${p##*/} $p "" 4 $t $h $t $h >dup.exp &&
	test_cmp ref.nix.exp dup.exp
'

test_expect_success NIX 'Nix imports what we export' '
	nix-store --store "$S2" --import <closure.cix.exp >imported &&
	test_cmp closure imported &&
	for p in $(cat closure); do
		test "$(nix-store --store "$S2" -q --hash $p)" = "$(nixs -q --hash $p)" &&
		test "$(nix-store --store "$S2" -q --deriver $p)" = "$(nixs -q --deriver $p)" || return 1
	done
'

for p in hello tree ref closure; do
	test_expect_success NIX "parse Nix's export of $p: metadata and NAR hashes" '
		nix_meta $(cat '$p'.path 2>/dev/null || cat closure) >expect &&
		export-tool read -s $SD <'$p'.nix.exp >actual &&
		test_cmp expect actual
	'
done

test_expect_success NIX 'restore while parsing: each tree has its NAR hash' '
	mkdir out &&
	export-tool read -s $SD -r out <closure.nix.exp >actual &&
	for p in $(cat closure); do
		test "sha256:$(cix hash -r out/${p##*/})" = "$(nixs -q --hash $p)" || return 1
	done &&
	ls -A out >got && sed "s|.*/||" closure | sort >want && test_cmp want got
'

test_expect_success NIX 'an existing target is refused, nothing left behind' '
	test_expect_code 1 export-tool read -s $SD -r out <hello.nix.exp >/dev/null 2>err &&
	test_line_count = 1 err && cat err &&
	ls -A out >got && test_cmp want got
'

# prefixes FILE STEP: every STEP-th proper prefix of FILE fails cleanly, in
# both modes, and leaves no temporary tree.
prefixes () {
	size_=$(wc -c <"$1") n_=0
	while [ $n_ -lt $size_ ]; do
		rm -rf pre && mkdir pre &&
		head -c $n_ "$1" >prefix &&
		test_expect_code 1 export-tool read -s $SD <prefix >/dev/null 2>err &&
		test_line_count = 1 err &&
		test_expect_code 1 export-tool read -s $SD -r pre <prefix >/dev/null 2>err &&
		test_line_count = 1 err &&
		! ls -A pre | grep -q tmp || { echo "prefix $n_"; cat err; return 1; }
		n_=$((n_ + $2))
	done
}

test_expect_success NIX 'every truncation of a one-path stream fails cleanly' '
	prefixes hello.nix.exp 1
'

test_expect_success NIX 'truncations of a closure fail cleanly' '
	prefixes closure.nix.exp 7
'

test_expect_success NIX 'trailing data is left in the input' '
	{ cat hello.nix.exp && printf "more data" ; } >trail.exp &&
	export-tool read -s $SD <trail.exp >actual &&
	tail -n 1 actual >last && echo "trailing 9" >expect && test_cmp expect last
'

# ---- Hostile streams, crafted token by token ----

# craft TOKEN...: u64:N (decimal, 0x hex or max), str:TEXT (\0 is a NUL),
# pad:TEXT (a string with non-zero padding), raw:TEXT, file:PATH (raw bytes).
cat >craft.pl <<'EOF'
binmode STDOUT;
for (@ARGV) {
	my ($k, $v) = split /:/, $_, 2;
	$v =~ s/\\0/\0/g;
	if ($k eq "u64") {
		$v = $v eq "max" ? 18446744073709551615 : $v =~ /^0x/ ? hex($v) : $v;
		print pack("Q<", $v);
	} elsif ($k eq "str" || $k eq "pad") {
		my $p = (8 - length($v) % 8) % 8;
		print pack("Q<", length $v), $v, ($k eq "pad" ? "\1" : "\0") x $p;
	} elsif ($k eq "raw") {
		print $v;
	} elsif ($k eq "file") {
		open my $f, "<", $v or die; binmode $f; local $/; print <$f>;
	} else { die "bad token $_" }
}
EOF

H=ffffffffffffffffffffffffffffffff
P=$SD/$H-foo
R1=$SD/00000000000000000000000000000000-a
R2=$SD/11111111111111111111111111111111-b
D=$SD/22222222222222222222222222222222-foo.drv
M=u64:0x4558494e

test_expect_success 'a crafted stream parses' '
	printf "hello\n" >h && cix store --dump h >h.nar &&
	perl craft.pl u64:1 file:h.nar $M str:$P u64:2 str:$R1 str:$R2 str:$D u64:0 \
		u64:1 file:h.nar $M str:$R1 u64:1 str:$R1 str: u64:1 str:sig u64:0 >good.exp &&
	export-tool read -s $SD <good.exp >actual &&
	cat >expect <<-EOF &&
	path $P
	hash sha256:$(cix hash -r h)
	size $(wc -c <h.nar)
	deriver $D
	ref $R1
	ref $R2
	path $R1
	hash sha256:$(cix hash -r h)
	size $(wc -c <h.nar)
	deriver unknown-deriver
	ref $R1
	sig 3
	trailing 0
	EOF
	test_cmp expect actual
'

# refused WHAT TOKEN...: the crafted stream fails with one line naming WHAT,
# validating and restoring, and leaves no temporary tree behind.
refused () {
	what_=$1 && shift &&
	perl craft.pl "$@" >bad.exp &&
	test_expect_code 1 export-tool read -s $SD <bad.exp >/dev/null 2>err &&
	cat err && test_line_count = 1 err && grep -e "$what_" err &&
	rm -rf pre && mkdir pre &&
	test_expect_code 1 export-tool read -s $SD -r pre <bad.exp >/dev/null 2>err &&
	test_line_count = 1 err && grep -e "$what_" err &&
	{ ! ls -A pre | grep tmp; }
}

ENTRY="u64:1 file:h.nar $M str:$P u64:0 str:"
HEAD="u64:1 file:h.nar $M"
big=9223372036854775808
while read -r what tokens; do
	test_expect_success "refused: $tokens" "refused '$what' $tokens"
done <<EOF
truncated
truncated u64:1
truncated $ENTRY
truncated $ENTRY u64:0
bad.marker raw:garbage!
bad.marker u64:2
bad.marker u64:$big
bad.marker u64:max
bad.marker $ENTRY u64:0 u64:7
NAR u64:1 raw:nix-archive-1xxxxxxxx
NAR u64:1 str:nix-archive-1 u64:$big
bad.magic u64:1 file:h.nar u64:0x4558494f
bad.magic u64:1 file:h.nar u64:0x14558494e
over.the.limit $HEAD u64:$big
over.the.limit $HEAD u64:max
over.the.limit $HEAD str:$SD/${H}-$(printf %0212d 0)
not.in.the.store $HEAD str:/nix/store/$H-foo
invalid.hash $HEAD str:$SD/../etc/$H-foo
illegal.character $HEAD str:$SD/$H-a/../b
illegal.character $HEAD str:$SD/$H-a/b
too.short $HEAD str:$SD/$H
NUL $HEAD str:$P\\\\0x
padding $HEAD pad:$P
not.in.the.store $HEAD str:
over.the.limit $HEAD str:$P u64:65537
over.the.limit $HEAD str:$P u64:max
truncated $HEAD str:$P u64:65536
not.in.the.store $HEAD str:$P u64:1 str:/nix/store/$H-foo
duplicate $HEAD str:$P u64:2 str:$R1 str:$R1
not.sorted $HEAD str:$P u64:2 str:$R2 str:$R1
not.a..drv $HEAD str:$P u64:0 str:$SD/$H-foo
not.a..drv $HEAD str:$P u64:0 str:$SD/$H-.drv.x
not.in.the.store $HEAD str:$P u64:0 str:/nix/store/$H-foo.drv
bad.signature.marker $ENTRY u64:2
bad.signature.marker $ENTRY u64:max
over.the.limit $ENTRY u64:1 u64:65537
truncated $ENTRY u64:1 u64:8 raw:sig
EOF

test_expect_success 'the writer refuses metadata that would not parse' '
	test_expect_code 1 export-tool write h /nix/store/$H-foo "" 1 $R1 >wout 2>err &&
	test_line_count = 1 err && test ! -s wout && grep "not in the store" err &&
	test_expect_code 1 export-tool write h $P "" 1 $SD/$H-x/y >wout 2>err &&
	test_line_count = 1 err && test ! -s wout &&
	test_expect_code 1 export-tool write h $P $SD/$H-foo 0 >wout 2>err &&
	test_line_count = 1 err && test ! -s wout && grep "not a .drv" err &&
	test_expect_code 1 export-tool write h $SD/x "" 0 >wout 2>err &&
	test_line_count = 1 err && test ! -s wout &&
	test_expect_code 1 export-tool write missing $P "" 0 >/dev/null 2>err &&
	test_line_count = 1 err
'

test_done
