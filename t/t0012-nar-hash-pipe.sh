#!/bin/sh
# t0012-nar-hash-pipe.sh - NAR hashes on the hashing thread: exact, and errors are values
# SPDX-License-Identifier: GPL-3.0-or-later
test_description='the threaded NAR hash (cix hash -r, store adds) equals Nix and fails cleanly'
. "$(dirname "$0")/test-lib.sh"

test_private_store
NIXSTORE="local?store=$CIX_STORE_DIR&real=$TRASH_DIRECTORY/nixreal&state=$TRASH_DIRECTORY/nixstate&log=$TRASH_DIRECTORY/nixlog"

MIB=1048576
# bytes N FILE: N pseudo-random bytes (the same on every run).
bytes () { head -c "$1" /dev/zero | openssl enc -aes-128-ctr -K 00 -iv 00 2>/dev/null >"$2"; }

# Buffers of the hashing thread are 4 MiB: contents end on, just before
# and just after their edges, and small files fill the spaces between.
test_expect_success 'set up a tree crossing the buffer edges' '
	mkdir -p tree/empty tree/sub/deeper tree/small &&
	bytes $((4 * MIB - 1)) tree/a-4m-minus-1 &&
	bytes $((4 * MIB)) tree/b-4m &&
	bytes $((4 * MIB + 1)) tree/c-4m-plus-1 &&
	bytes $((9 * MIB + 3)) tree/sub/d-9m && chmod 755 tree/sub/d-9m &&
	: >tree/sub/empty-file &&
	i=0 && while [ $i -lt 300 ]; do
		bytes $((i * 37 % 5000)) tree/small/f$i || return 1
		i=$((i + 1))
	done &&
	chmod 755 tree/small/f7 tree/small/f99 &&
	ln -s b-4m tree/link-to-big &&
	ln -s /dev/zero tree/sub/link-to-zero &&
	ln -s ../../nowhere tree/sub/deeper/dangling &&
	test $(wc -c <tree/c-4m-plus-1) -eq $((4 * MIB + 1))
'

test_expect_success NIX 'cix hash -r equals nix-hash, symlinks not followed' '
	for algo in sha256 sha512 sha1; do
		nix-hash --type $algo --base32 tree >expect &&
		timeout 120 cix hash -r -H $algo tree >actual &&
		test_cmp expect actual || return 1
	done
'

# Below a few hundred KiB the hash stays on the calling thread; the
# switch to the thread happens in the middle of tree/small's files.
test_expect_success NIX 'parts of the tree, below and across the threshold' '
	for p in tree/small tree/sub tree/empty tree/small/f299 tree/link-to-big \
		 tree/sub/empty-file tree/sub/d-9m tree/sub/deeper; do
		nix-hash --type sha256 --base32 $p >expect &&
		cix hash -r $p >actual &&
		test_cmp expect actual || { echo "differs: $p"; return 1; }
	done
'

test_expect_success NIX 'cix hash -r equals the sha256 of nix-store --dump' '
	nix-store --dump tree | sha256sum | cut -d" " -f1 >expect &&
	cix hash -r -f base16 tree >actual &&
	test_cmp expect actual &&
	nix-store --dump tree/sub/d-9m | sha256sum | cut -d" " -f1 >expect &&
	cix hash -r -f base16 tree/sub/d-9m >actual &&
	test_cmp expect actual
'

test_expect_success NIX 'store --add (NAR hashed while restored) gives Nix'"'"'s path and hash' '
	timeout 120 cix store --add tree >cix.out &&
	nix-store --store "$NIXSTORE" --add tree >nix.out &&
	test_cmp nix.out cix.out &&
	nix-store --dump tree | sha256sum | cut -d" " -f1 >expect &&
	cix store -q --hash $(cat cix.out) >actual.hash &&
	grep -q "^sha256:" actual.hash &&
	cix hash -r -f base16 $(cat cix.out) >actual &&
	test_cmp expect actual &&
	timeout 120 cix store --verify --check-contents
'

test_expect_success NIX 'store --add-fixed --recursive sha512 of a large tree' '
	timeout 120 cix store --add-fixed --recursive sha512 tree >cix.out &&
	nix-store --store "$NIXSTORE" --add-fixed --recursive sha512 tree >nix.out &&
	test_cmp nix.out cix.out
'

# A FIFO sorts after the large files: the hashing thread has buffers
# queued when the walk fails. If it were opened it would block forever.
test_expect_success 'a FIFO after large files: an error, no hang' '
	cp -r tree bad && mkfifo bad/zz-fifo &&
	test_must_fail timeout 60 cix hash -r bad >out 2>err &&
	test_line_count = 0 out &&
	grep "zz-fifo" err && grep -i fifo err &&
	test_line_count = 1 err
'

test_expect_success 'store --add of the tree with the FIFO: an error, nothing added' '
	ls "$CIX_STORE_DIR" >before &&
	test_must_fail timeout 60 cix store --add bad >out 2>err &&
	grep "zz-fifo" err &&
	ls "$CIX_STORE_DIR" >after &&
	test_cmp before after
'

test_lazy_mount () { unshare -m true 2>/dev/null; }
if [ "$(id -u)" = 0 ] && test_lazy_mount; then
	test_set_prereq MOUNT
fi

# A file of /proc reads more than its size says: the walk must refuse it
# after the pipe has taken megabytes, and still join its thread.
test_expect_success MOUNT 'a file that grows while hashed: an error naming it' '
	cp -r tree grow && : >grow/zz-proc &&
	test_must_fail timeout 60 unshare -m sh -c "
		mount --bind /proc/version grow/zz-proc && exec cix hash -r grow" >out 2>err &&
	grep "zz-proc.*grew while being archived" err &&
	test_line_count = 0 out
'

test_expect_success 'a tree that vanishes: an error' '
	test_must_fail cix hash -r no-such-tree 2>err &&
	grep no-such-tree err
'

# Under make SANITIZE=..., the daemon's workers report to its log.
test_expect_success DAEMON 'the daemon logged no sanitizer report' '
	! grep -E "Sanitizer|runtime error" "$TRASH_DIRECTORY/daemon.log"
'

test_done
