#!/bin/sh
# t0010-hash.sh - cix hash: flat and recursive hashes in every format
# SPDX-License-Identifier: GPL-3.0-or-later
test_description='cix hash against coreutils and nix-hash'
. "$(dirname "$0")/test-lib.sh"

algos='md5 sha1 sha256 sha512'
files='empty hello big binary'

# hex_to_bin: hexadecimal on stdin to raw bytes on stdout.
hex_to_bin () { perl -ne 'chomp; print pack("H*", $_)'; }

# rfc_base32 FILE: RFC 4648 base32 of FILE, lowercase and unpadded (Guix).
rfc_base32 () { base32 -w0 <"$1" | tr -d = | tr A-Z a-z; echo; }

test_expect_success 'setup' '
	: >empty &&
	printf "hello\n" >hello &&
	perl -e "print pack(q(N*), map { (\$_ * 2654435761) % 4294967296 } 1 .. 1310720)" >big &&
	test $(wc -c <big) -eq 5242880 &&
	perl -e "print map { chr } 0 .. 255, reverse 0 .. 255" >binary &&
	test $(wc -c <binary) -eq 512
'

test_expect_success 'doc/formats.md vector: sha256 of "hello\n" in nix-base32' '
	echo 00xyyr3fi8l6hb839bv3f7yb86yjv7xi1cgh1xnhipym4asvb4aq >expect &&
	cix hash hello >actual &&
	test_cmp expect actual &&
	cix hash -H sha256 -f nix-base32 hello >actual &&
	test_cmp expect actual
'

test_expect_success 'doc/formats.md vector: sha256 of "hello\n" in base16' '
	cix hash -f base16 hello >actual &&
	grep "^5891b5b5[0-9a-f]*f6be03\$" actual &&
	test $(tr -d "\n" <actual | wc -c) -eq 64
'

test_expect_success 'doc/formats.md vector: NAR hash of the file "hello\n"' '
	echo 1c37d01af40be2e80691de3cc3df44377a699afbb17c68f080964b2fd071fc13 >expect &&
	cix hash -r -f base16 hello >actual &&
	test_cmp expect actual
'

test_expect_success 'doc/formats.md vector: NAR hash of a small directory' '
	mkdir vec vec/sub &&
	printf "#!/bin/sh\n" >vec/run && chmod 755 vec/run &&
	ln -s run vec/link &&
	printf x >vec/sub/B && printf y >vec/sub/a &&
	echo ed677baddae4ef7b125338441fe1243ca7ef44035efdb023b50dcceeb9d501ab >expect &&
	cix hash -r -f base16 vec >actual &&
	test_cmp expect actual
'

for a in $algos; do
	for f in $files; do
		test_expect_success "$a of $f in base16 matches ${a}sum" "
			${a}sum $f | cut -d' ' -f1 >expect &&
			cix hash -H $a -f base16 $f >actual &&
			test_cmp expect actual &&
			cix hash --hash=$a --format=hex $f >actual &&
			test_cmp expect actual &&
			cix hash -H $a -f hexadecimal $f >actual &&
			test_cmp expect actual
		"
		test_expect_success "$a of $f in base64 matches base64(1)" "
			${a}sum $f | cut -d' ' -f1 | hex_to_bin >digest &&
			base64 -w0 digest >expect && echo >>expect &&
			cix hash -H $a -f base64 $f >actual &&
			test_cmp expect actual
		"
		test_expect_success "$a of $f in base32 matches base32(1)" "
			${a}sum $f | cut -d' ' -f1 | hex_to_bin >digest &&
			rfc_base32 digest >expect &&
			cix hash -H $a -f base32 $f >actual &&
			test_cmp expect actual &&
			! grep '[^a-z2-7]' actual
		"
		test_expect_success NIX "$a of $f matches nix-hash --flat" "
			nix-hash --flat --type $a --base32 $f >expect &&
			cix hash -H $a $f >actual &&
			test_cmp expect actual &&
			nix-hash --flat --type $a $f >expect &&
			cix hash -H $a -f base16 $f >actual &&
			test_cmp expect actual
		"
		test_expect_success NIX "$a of $f in base64 matches nix hash to-base64" "
			nix hash to-base64 --type $a \$(${a}sum $f | cut -d' ' -f1) >expect &&
			cix hash -H $a -f base64 $f >actual &&
			test_cmp expect actual
		"
		test_expect_success NIX "$a -r of $f matches nix-hash" "
			nix-hash --type $a --base32 $f >expect &&
			cix hash -r -H $a $f >actual &&
			test_cmp expect actual &&
			nix-hash --type $a $f >expect &&
			cix hash --recursive -H $a -f base16 $f >actual &&
			test_cmp expect actual
		"
	done
done

test_expect_success 'the default is sha256 in nix-base32' '
	cix hash -H sha256 -f nix-base32 big >expect &&
	cix hash big >actual &&
	test_cmp expect actual
'

test_expect_success '- reads standard input' '
	for a in $algos; do
		for f in $files; do
			cix hash -H $a -f base16 $f >expect &&
			cix hash -H $a -f base16 - <$f >actual &&
			test_cmp expect actual &&
			cat $f | cix hash -H $a -f base16 - >actual &&
			test_cmp expect actual || exit 1
		done
	done
'

test_expect_success 'several files print one line each, in order' '
	for f in hello big empty - binary hello; do
		if [ "$f" = - ]; then cix hash - <binary; else cix hash $f; fi
	done >expect &&
	cix hash hello big empty - binary hello <binary >actual &&
	test_line_count = 6 actual &&
	test_cmp expect actual
'

test_expect_success 'options may follow the files; -- ends options' '
	cix hash -f base16 hello >expect &&
	cix hash hello -f base16 >actual &&
	test_cmp expect actual &&
	cp hello ./-f &&
	cix hash -f base16 -- -f >actual &&
	test_cmp expect actual
'

test_expect_success NIX 'cix hash -r of a directory and of symlinks matches nix-hash' '
	mkdir -p dir/sub &&
	cp hello big binary dir/ && cp empty dir/sub/ &&
	ln -s hello dir/lnk &&
	ln -s sub dir/sub-lnk &&
	ln -s /nowhere dir/dangling &&
	for p in dir dir/ dir/sub ./dir/sub/. dir/lnk dir/sub-lnk dir/sub-lnk/ dir/dangling; do
		for a in $algos; do
			nix-hash --type $a --base32 "$p" >expect &&
			cix hash -r -H $a "$p" >actual &&
			test_cmp expect actual || { echo "differs: $a $p"; exit 1; }
		done
	done
'

test_expect_success NIX 'an empty directory, alone and inside a tree, matches nix-hash' '
	mkdir -p emptydir tree-with-empty/e &&
	for p in emptydir tree-with-empty; do
		nix-hash --type sha256 --base32 $p >expect &&
		cix hash -r $p >actual &&
		test_cmp expect actual || exit 1
	done
'

test_expect_success 'a missing file fails with one line and no output' '
	{ cix hash no-such-file >out 2>err; ret=$?; } &&
	test $ret -eq 1 &&
	test ! -s out &&
	test_line_count = 1 err &&
	grep "^cix hash: .*no-such-file" err &&
	{ cix hash -r no-such-file >out 2>err; ret=$?; } &&
	test $ret -eq 1 &&
	test ! -s out &&
	test_line_count = 1 err &&
	grep "no-such-file" err
'

test_expect_success 'a missing file among others: the others are still hashed' '
	cix hash hello empty >expect &&
	{ cix hash hello no-such-file empty >actual 2>err; ret=$?; } &&
	test $ret -eq 1 &&
	test_cmp expect actual &&
	test_line_count = 1 err
'

test_expect_success 'a flat hash of a directory fails cleanly' '
	mkdir -p adir &&
	{ cix hash adir >out 2>err; ret=$?; } &&
	test $ret -eq 1 &&
	test ! -s out &&
	test_line_count = 1 err
'

test_expect_success 'unknown format, unknown algorithm, no file: usage errors' '
	{ cix hash -f base58 hello >out 2>err; ret=$?; } &&
	test $ret -eq 2 && test ! -s out &&
	grep "base58" err && grep -- "--help" err &&
	{ cix hash --format=BASE16 hello >out 2>err; ret=$?; } &&
	test $ret -eq 2 && test ! -s out &&
	{ cix hash -H sha3 hello >out 2>err; ret=$?; } &&
	test $ret -eq 2 && test ! -s out &&
	grep "sha3" err && grep -- "--help" err &&
	{ cix hash --hash=SHA256 hello >out 2>err; ret=$?; } &&
	test $ret -eq 2 && test ! -s out &&
	{ cix hash >out 2>err; ret=$?; } &&
	test $ret -eq 2 && test ! -s out &&
	{ cix hash -r >out 2>err; ret=$?; } &&
	test $ret -eq 2 && test ! -s out
'

test_expect_success 'unknown options and a missing argument: one line and the hint' '
	for args in "--no-such-option hello" "-x hello" "hello -f" "hello --hash"; do
		{ cix hash $args >out 2>err; ret=$?; } &&
		test $ret -eq 2 && test ! -s out &&
		test_line_count = 2 err &&
		head -n 1 err | grep "^cix hash: " &&
		tail -n 1 err | grep -- "cix hash --help" || { echo "for: $args"; exit 1; }
	done
'

test_expect_success 'cix hash -r refuses a FIFO' '
	mkfifo fifo &&
	{ cix hash -r fifo >out 2>err; ret=$?; } &&
	test $ret -eq 1 &&
	test ! -s out &&
	test_line_count = 1 err &&
	grep "fifo" err && grep "FIFO" err
'

test_expect_success 'cix hash -r refuses a FIFO inside a tree' '
	mkdir -p withfifo/sub && cp hello withfifo/ &&
	mkfifo withfifo/sub/pipe &&
	{ cix hash -r withfifo >out 2>err; ret=$?; } &&
	test $ret -eq 1 &&
	test ! -s out &&
	test_line_count = 1 err &&
	grep "withfifo/sub/pipe" err && grep "FIFO" err
'

test_expect_success 'cix hash -r refuses a unix socket' '
	perl -MIO::Socket::UNIX -e "
		IO::Socket::UNIX->new(Type => SOCK_STREAM(), Local => q(sock), Listen => 1)
			or die qq(socket: \$!\n)" &&
	test -S sock &&
	{ cix hash -r sock >out 2>err; ret=$?; } &&
	test $ret -eq 1 &&
	test ! -s out &&
	test_line_count = 1 err &&
	grep "sock" err && grep "socket" err
'

test_expect_success 'cix hash -r refuses a device' '
	{ cix hash -r /dev/null >out 2>err; ret=$?; } &&
	test $ret -eq 1 &&
	test ! -s out &&
	test_line_count = 1 err &&
	grep "/dev/null" err && grep "device" err
'

test_expect_success 'a write error on stdout is reported' '
	test -w /dev/full || exit 0
	{ cix hash hello >/dev/full 2>err; ret=$?; } &&
	test $ret -eq 1 &&
	test_line_count = 1 err
'

test_done
