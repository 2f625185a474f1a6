#!/bin/sh
# t5102-gc-race.sh - cix gc deleting a tree while its directories are swapped for symlinks
# SPDX-License-Identifier: GPL-3.0-or-later
test_description='CVE-2025-46415: while cix gc deletes a dead store path, a loop keeps swapping its subdirectories for symlinks to a canary directory or to the canary'"'"'s parent; the canary survives, and a second collection removes what a failed one left'
. "$(dirname "$0")/test-lib.sh"

test_private_store
SD=$CIX_STORE_DIR

# The tree: big/sI/dJ/fK (8 x 8 x 40 files). outer/ and outer/canary/ hold
# what a path through a swapped sI or dJ would name: dJ/fK and fK.
make_tree () {
	perl -e '
		my ($dir, $tag) = @ARGV;
		mkdir $dir; mkdir "$dir/big";
		for my $s (0..7) { mkdir "$dir/big/s$s";
			for my $d (0..7) { mkdir "$dir/big/s$s/d$d";
				for my $f (0..39) { open(my $h, ">", "$dir/big/s$s/d$d/f$f") or die;
					print $h "$tag $s $d $f\n" } } }' "$@"
}
make_mirror () {
	perl -e '
		my ($dir) = @ARGV;
		for my $d (0..7) { mkdir "$dir/d$d";
			for my $f (0..39) { open(my $h, ">", "$dir/d$d/f$f") or die; print $h "keep\n" } }
		for my $f (0..39) { open(my $h, ">", "$dir/f$f") or die; print $h "keep\n" }' "$1"
}
# A broken delete could climb out of a directory moved aside through "..",
# as many levels as the tree is deep (4): the racer moves directories
# into $S, six guard levels below the trash directory.
S=$TRASH_DIRECTORY/g/g/g/g/g/g/stash
snapshot () {
	find outer g ! -path "*/stash/*" | sort &&
	cat $(find outer g -type f ! -path "*/stash/*" | sort) | cksum
}

# racer PATH: until ./stop exists (60 s at most), swap PATH/big/sI or PATH/big/sI/dJ for a
# symlink (absolute or relative, to outer/canary or to outer) and back.
# Writes ./started after its first swap, and at the end ./racer.out: the
# number of swaps and of symlinks that the deleter removed. Root only: the
# store's directories are read-only.
racer () {
	perl -e '
		my ($p, $trash, $stash) = @ARGV;
		my ($n, $sw, $met, $h) = (0, 0, 0);
		my @how = (["s", "$trash/outer/canary"], ["s", "../../../outer"],
			   ["d", "$trash/outer"], ["d", "../../../../outer/canary"]);
		my $t0 = time;
		until (-e "stop" || time - $t0 > 60) {
			$n++;
			my ($s, $d) = ($n % 8, int($n / 8) % 8);
			my ($level, $target) = @{$how[int($n / 64) % 4]};
			my $rel = $level eq "s" ? "big/s$s" : "big/s$s/d$d";
			rename("$p/$rel", "$stash/x") or next;
			symlink($target, "$p/$rel");
			select(undef, undef, undef, 0.0002);
			unlink("$p/$rel") or $met++;
			rename("$stash/x", "$p/$rel") or system("rm", "-rf", "$stash/x");
			open($h, ">", "started") and close($h) if !$sw++;
		}
		open($h, ">", "racer.out") and print $h "$sw $met\n";' "$1" "$TRASH_DIRECTORY" "$S"
}

test "$(id -u)" = 0 && test_set_prereq ROOT

test_expect_success 'setup: the canary, and its parent' '
	mkdir -p outer/canary "$S" &&
	for d in g g/g g/g/g g/g/g/g g/g/g/g/g g/g/g/g/g/g; do echo guard >$d/guard || return 1; done &&
	make_mirror outer && make_mirror outer/canary &&
	snapshot >outer.snap &&
	test $(find outer -type f | wc -l) = 720
'

for round in 1 2 3; do
	test_expect_success ROOT "round $round: gc deletes a dead path while it is raced" '
		make_tree tree$round $round &&
		p=$(cix store --add tree$round) && test -d "$p/big/s7/d7" &&
		cix gc --list-dead >dead && grep -qx "$p" dead &&
		rm -f stop started && { racer "$p" & } && test_wait_for started &&
		if cix gc >gc.out 2>&1; then rc=0; else rc=$?; fi &&
		touch stop && wait &&
		echo "round $round: gc exited $rc: $(tail -n 1 gc.out); racer: $(cat racer.out) (swaps, symlinks the deleter removed)" >>stats &&
		{ test $rc = 0 || { test $rc = 1 && test -s gc.out; }; } &&
		snapshot >now.snap && test_cmp outer.snap now.snap &&
		rm -rf "$S/x" &&
		cix gc 2>gc.out && test_path_is_missing "$p" &&
		test_must_fail cix store --check-validity "$p" 2>/dev/null &&
		snapshot >now.snap && test_cmp outer.snap now.snap
	'
done
test -f stats && sed "s/^/# /" stats

test_done
