#!/bin/sh
# t0300-refscan.sh - the reference scanner on random trees, against grep
# SPDX-License-Identifier: GPL-3.0-or-later
test_description='reference scanning finds exactly the hash parts grep finds in the NAR'
. "$(dirname "$0")/test-lib.sh"
. "$CIX_SRC_DIR/t/lib-randtree.sh"

# build/bench/refscan --scan PATH HASH... is the library's scanner over the
# NAR of PATH, printing the hash parts found in the order given.
refscan () {
	"$CIX_BUILD_DIR/bench/refscan" --scan "$@"
}

# hash_parts SEED N: N random nix-base32 hash parts, one per line.
hash_parts () {
	perl -e '
		my ($seed, $n) = @ARGV;
		srand($seed);
		my @c = split //, "0123456789abcdfghijklmnpqrsvwxyz";
		for (1 .. $n) { print join("", map { $c[int rand 32] } 1 .. 32), "\n"; }
	' "$1" "$2"
}

# plant DIR SEED < HASHES: put some of the hash parts into DIR: in file
# contents (at the start, the end, inside a longer base-32 run, across 4 KiB
# and 64 KiB offsets), in entry names and in symlink targets.
plant () {
	perl -e '
		my ($dir, $seed) = @ARGV;
		srand($seed);
		my @h = <STDIN>; chomp @h;
		my @c = split //, "0123456789abcdfghijklmnpqrsvwxyz";
		sub run { join "", map { $c[int rand 32] } 1 .. $_[0] }
		sub put { open(my $f, ">", $_[0]) or die "$_[0]: $!\n"; print $f $_[1]; close $f or die; }
		mkdir "$dir/planted" or die "mkdir: $!\n";
		my $i = 0;
		put("$dir/planted/start", $h[$i++] . "-bash/bin/bash\n");
		put("$dir/planted/end", "#!/cix/store/" . $h[$i++]);
		put("$dir/planted/run", run(3) . $h[$i++] . run(5));
		put("$dir/planted/bin", join("", map { chr int rand 256 } 1 .. 4090) .
		    $h[$i++] . join("", map { chr int rand 256 } 1 .. 65536 - 4090 - 32 - 10) .
		    $h[$i++] . ("\0" x 100));
		put("$dir/planted/" . $h[$i++] . "-name", "");
		symlink("/cix/store/" . $h[$i++] . "-glibc/lib", "$dir/planted/link") or die;
		# truncated and altered copies of others: must not match
		put("$dir/planted/near", substr($h[$i], 1) . "\n" . substr($h[$i + 1], 0, 31) . "\n");
		$i += 2;
		my $x = $h[$i++]; substr($x, 16, 1) = "e";
		put("$dir/planted/altered", $x);
	' "$1" "$2"
}

test_expect_success 'refuses invalid hash parts and missing paths' '
	echo hello >f &&
	test_expect_code 1 refscan f 0123456789abcdfghijklmnpqrsvwxy 2>err &&
	grep "invalid hash part" err &&
	test_expect_code 1 refscan f 0123456789abcdfghijklmnpqrsvwxye &&
	test_expect_code 1 refscan f 0123456789ABCDFGHIJKLMNPQRSVWXYZ &&
	test_expect_code 1 refscan missing 0123456789abcdfghijklmnpqrsvwxyz 2>err &&
	test -s err
'

test_expect_success 'a hash part in contents, a name and a link target' '
	h1=$(hash_parts 1 1) && h2=$(hash_parts 2 1) && h3=$(hash_parts 3 1) &&
	h4=$(hash_parts 4 1) &&
	mkdir out &&
	echo "exec /cix/store/$h1-sh/bin/sh" >out/script &&
	ln -s "/cix/store/$h2-lib" out/link &&
	: >"out/$h3.txt" &&
	refscan out $h4 $h3 $h2 $h1 >actual &&
	printf "%s\n" $h3 $h2 $h1 >expect &&
	test_cmp expect actual
'

# Expected: the hash parts that grep finds in the NAR (a hash part holds no
# newline, so grep'\''s lines do not matter).
expected () {
	while read -r h; do
		if grep -aqF -- "$h" "$1"; then echo "$h"; fi
	done
}

for s in 1 2 3; do
	test_expect_success "seed $s: random tree, found set equals grep's" "
		make_random_tree tree$s $s 60 &&
		hash_parts $((s + 100)) 40 >hashes$s &&
		plant tree$s $s <hashes$s &&
		cix store --dump tree$s >tree$s.nar &&
		expected tree$s.nar <hashes$s >expect &&
		test \$(wc -l <expect) -ge 7 &&
		refscan tree$s \$(cat hashes$s) >actual &&
		test_cmp expect actual
	"
	test_expect_success NIX "seed $s: the same against nix-store --dump" "
		nix-store --dump tree$s >nix$s.nar &&
		expected nix$s.nar <hashes$s >expect &&
		refscan tree$s \$(cat hashes$s) >actual &&
		test_cmp expect actual
	"
done

test_done
