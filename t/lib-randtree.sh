# lib-randtree.sh - reproducible random file trees for the NAR tests
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Source it after test-lib.sh. make_random_tree DIR SEED [SIZE] creates DIR
# (which must not exist) holding a tree that depends only on SEED and SIZE:
# odd names (spaces, tab, newline, UTF-8 and invalid UTF-8, leading dash,
# case pairs, 255 bytes), files of sizes around 0..3, 8-byte and buffer
# boundaries and one of a few MiB, executables, symlinks (relative,
# absolute, dangling, to directories, targets up to 4095 bytes), empty and
# 40-level-deep directories, then SIZE (default 100) random nodes. The
# generator is t/randtree.pl (perl is always there: prove needs it).

make_random_tree () {
	perl "$CIX_SRC_DIR/t/randtree.pl" "$@"
}

# make_deep_tree DIR DEPTH: DIR/d/d/.../d (DEPTH directories below DIR)
# holding a file; DIR itself is depth 0.
make_deep_tree () {
	perl -e '
		my ($p, $n) = @ARGV;
		mkdir $p or die "mkdir $p: $!\n";
		for (1 .. $n) { $p .= "/d"; mkdir $p or die "mkdir $p: $!\n"; }
		open(my $f, ">", "$p/leaf") or die "$p/leaf: $!\n";
		print $f "leaf\n"; close $f or die;
	' "$1" "$2"
}
