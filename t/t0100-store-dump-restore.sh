#!/bin/sh
# t0100-store-dump-restore.sh - cix store --dump/--restore against nix-store
# SPDX-License-Identifier: GPL-3.0-or-later

test_description='cix store --dump and --restore: byte-identical NARs, hostile input refused'
. "$(dirname "$0")/test-lib.sh"

# NAR tokens: u64 N (little-endian, N < 2^62), str S (length, bytes, zero padding).
u64 () {
	u64_n=$1 u64_i=0
	while [ $u64_i -lt 8 ]; do
		printf "\\$(printf %o $((u64_n % 256)))"
		u64_n=$((u64_n / 256)) u64_i=$((u64_i + 1))
	done
}
str () {
	str_len=${#1}
	u64 "$str_len"
	printf %s "$1"
	str_pad=$(( (8 - str_len % 8) % 8 ))
	while [ $str_pad -gt 0 ]; do printf '\0'; str_pad=$((str_pad - 1)); done
}
toks () { for tok; do str "$tok"; done; }
file_node () { toks "(" type regular contents "$1" ")"; }
link_node () { toks "(" type symlink target "$1" ")"; }

# restore_refused NAR: cix store --restore fails with status 1 and one line
# on stderr, and leaves no target.
restore_refused () {
	test_expect_code 1 cix store --restore target <"$1" 2>err &&
	cat err &&
	test_line_count = 1 err &&
	test_path_is_missing target
}

test_expect_success 'set up trees' '
	mkdir trees &&
	printf "hello\n" >trees/file &&
	printf "#!/bin/sh\necho hi\n" >trees/exec && chmod 755 trees/exec &&
	: >trees/empty &&
	ln -s file trees/symlink &&
	ln -s /nonexistent/target trees/dangling &&
	mkdir -p trees/odd/nested/deeper/still &&
	printf x >"trees/odd/with space" &&
	printf y >"trees/odd/ünïcödé" &&
	printf z >trees/odd/-leading-dash &&
	printf B >trees/odd/B &&
	printf a >trees/odd/a &&
	printf _ >trees/odd/_ &&
	printf . >trees/odd/.hidden &&
	mkdir trees/odd/emptydir &&
	printf deep >trees/odd/nested/deeper/still/leaf &&
	chmod +x trees/odd/nested/deeper/still/leaf &&
	ln -s ../.. trees/odd/nested/up &&
	dd if=/dev/urandom of=trees/odd/big bs=1024 count=700 2>/dev/null
'

for t in file exec empty symlink dangling odd; do
	test_expect_success NIX "dump of $t equals nix-store --dump" "
		cix store --dump trees/$t >$t.cix.nar &&
		nix-store --dump trees/$t >$t.nix.nar &&
		test_cmp $t.nix.nar $t.cix.nar
	"
	test_expect_success NIX "restore of nix's NAR of $t dumps back the same" "
		cix store --restore r-$t <$t.nix.nar &&
		nix-store --dump r-$t >$t.again.nar &&
		test_cmp $t.nix.nar $t.again.nar
	"
	test_expect_success "dump, restore, dump of $t round-trips" "
		cix store --dump trees/$t >$t.1.nar &&
		cix store --restore rt-$t <$t.1.nar &&
		cix store --dump rt-$t >$t.2.nar &&
		test_cmp $t.1.nar $t.2.nar
	"
done

test_expect_success 'restore keeps the executable bit and symlink targets' '
	test -x rt-exec &&
	! test -x rt-file &&
	test -x rt-odd/nested/deeper/still/leaf &&
	test -L rt-dangling &&
	test "$(readlink rt-dangling)" = /nonexistent/target &&
	test "$(readlink rt-odd/nested/up)" = ../.. &&
	cmp trees/odd/big rt-odd/big
'

test_expect_success NIX 'nix-store --restore accepts our NAR' '
	nix-store --restore n-odd <odd.1.nar &&
	cix store --dump n-odd >odd.n.nar &&
	test_cmp odd.1.nar odd.n.nar
'

test_expect_success 'dump of a missing path fails with one line' '
	test_expect_code 1 cix store --dump nothing-here >out 2>err &&
	test_line_count = 1 err
'

test_expect_success 'dump of a FIFO fails with one line' '
	mkfifo fifo &&
	test_expect_code 1 cix store --dump fifo >out 2>err &&
	cat err &&
	test_line_count = 1 err &&
	grep FIFO err
'

test_expect_success 'dump of a socket fails with one line' '
	python3 -c "import socket; socket.socket(socket.AF_UNIX).bind(\"sock\")" &&
	test -S sock &&
	test_expect_code 1 cix store --dump sock >out 2>err &&
	cat err &&
	test_line_count = 1 err &&
	grep socket err
'

test_expect_success 'dump of a directory holding a FIFO fails' '
	mkdir withfifo && mkfifo withfifo/f &&
	test_expect_code 1 cix store --dump withfifo >out 2>err &&
	test_line_count = 1 err
'

test_expect_success 'restore onto an existing file, directory or dangling symlink fails' '
	: >exists-file && mkdir exists-dir && ln -s nowhere exists-link &&
	for t in exists-file exists-dir exists-link; do
		test_expect_code 1 cix store --restore $t <file.1.nar 2>err &&
		cat err && test_line_count = 1 err && grep exists err || return 1
	done &&
	test -f exists-file && test ! -s exists-file &&
	test -d exists-dir && test -z "$(ls exists-dir)" &&
	test "$(readlink exists-link)" = nowhere && test_path_is_missing nowhere
'

test_expect_success 'restore to . or .. is refused' '
	test_expect_code 1 cix store --restore . <file.1.nar 2>err &&
	test_expect_code 1 cix store --restore trees/.. <file.1.nar 2>err
'

test_expect_success 'hostile: bad magic' '
	{ str nix-archive-2; file_node x; } >bad.nar &&
	restore_refused bad.nar
'

test_expect_success 'hostile: CVE-2024-45593 symlink then directory of the same name' '
	mkdir outside &&
	{
		str nix-archive-1; toks "(" type directory
		toks entry "(" name a node; link_node "$PWD/outside"; toks ")"
		toks entry "(" name a node "(" type directory
		toks entry "(" name pwned node; file_node x; toks ")"
		toks ")" ")" ")"
	} >cve.nar &&
	restore_refused cve.nar &&
	grep duplicate err &&
	test -z "$(ls -A outside)"
'

test_expect_success 'hostile: entry names . .. a/b are refused' '
	for n in . .. a/b ""; do
		{
			str nix-archive-1; toks "(" type directory
			toks entry "(" name "$n" node; file_node x; toks ")" ")"
		} >name.nar &&
		restore_refused name.nar || return 1
	done
'

test_expect_success 'hostile: unsorted entries' '
	{
		str nix-archive-1; toks "(" type directory
		toks entry "(" name a node; file_node x; toks ")"
		toks entry "(" name B node; file_node y; toks ")" ")"
	} >unsorted.nar &&
	restore_refused unsorted.nar &&
	grep sorted err
'

test_expect_success 'hostile: too deep' '
	{
		str nix-archive-1; toks "(" type directory
		i=0; while [ $i -lt 70 ]; do toks entry "(" name d node "(" type directory; i=$((i + 1)); done
	} >deep.nar &&
	restore_refused deep.nar
'

test_expect_success 'hostile: huge lengths' '
	{ str nix-archive-1; toks "(" type regular contents; printf "\377\377\377\377\377\377\377\377"; } >huge.nar &&
	restore_refused huge.nar &&
	{ str nix-archive-1; toks "(" type directory entry "(" name; u64 4294967296; } >bigname.nar &&
	restore_refused bigname.nar
'

test_expect_success 'hostile: empty symlink target' '
	{ str nix-archive-1; link_node ""; } >emptylink.nar &&
	restore_refused emptylink.nar
'

test_expect_success 'hostile: every truncation of a NAR is refused' '
	size=$(wc -c <odd.1.nar) &&
	for n in 0 1 8 15 16 17 100 1000 5000 $((size / 2)) $((size - 9)) $((size - 8)) $((size - 1)); do
		head -c $n odd.1.nar >trunc.nar &&
		restore_refused trunc.nar || return 1
	done
'

test_expect_success 'trailing data after the NAR is refused and leaves no target' '
	{ cat file.1.nar; printf x; } >trailing.nar &&
	restore_refused trailing.nar &&
	grep "trailing data" err &&
	{ cat odd.1.nar; printf x; } >trailing.nar &&
	test_expect_code 1 cix store --restore target/ <trailing.nar 2>err &&
	grep "trailing data" err &&
	test_path_is_missing target
'

test_expect_success 'usage errors exit 2' '
	test_expect_code 2 cix store 2>err &&
	test_expect_code 2 cix store --dump 2>err &&
	test_expect_code 2 cix store --dump a b 2>err &&
	test_expect_code 2 cix store --restore 2>err &&
	test_expect_code 2 cix store --dump --restore x 2>err &&
	test_expect_code 2 cix store --frobnicate 2>err &&
	cix store --help >out && grep -e --dump out && grep -e --restore out &&
	cix store --version >out && grep "cix store" out
'

test_expect_success 'a FIFO named with a newline: the error stays on one line' '
	mkdir ctl &&
	mkfifo "ctl/a
b" &&
	test_expect_code 1 cix store --dump ctl >out 2>err &&
	test_line_count = 1 err &&
	grep -F "ctl/a\\x0ab" err &&
	test_expect_code 1 cix hash -r ctl 2>err &&
	test_line_count = 1 err
'

test_done
