#!/bin/sh
# t7000-download.sh - cix download: files from URLs into the store, with their hashes
# SPDX-License-Identifier: GPL-3.0-or-later
test_description='cix download over file, http, ftp and mirror:// URLs: the store path Nix gives the same file, the sha256 in each format, through cix-daemon too; 404s, unknown schemes and mirrors add nothing'
. "$(dirname "$0")/test-lib.sh"

PATH=$CIX_BUILD_DIR/bench:$PATH
test_private_store
unset http_proxy https_proxy ftp_proxy all_proxy no_proxy HTTP_PROXY HTTPS_PROXY ALL_PROXY NO_PROXY

server_pids=
trap 'for p in $server_pids; do kill "$p" 2>/dev/null; done' EXIT
# start_server PROGRAM NAME: PROGRAM (bench/httpd or ftpd) serves ./root; its port in NAME.port
start_server () {
	rm -f "$2.port"
	$1 -d "$TRASH_DIRECTORY/root" -p "$2.port" -l "$2.log" 2>"$2.err" &
	server_pids="$server_pids $!"
	for _ in $(seq 100); do test -s "$2.port" && return 0; sleep 0.1; done
	return 1
}

mkdir -p root/pub
printf 'hello\n' >root/hello-1.0.tar.gz
head -c 200000 /dev/urandom >root/pub/big.bin
start_server httpd http || exit 1
U=http://127.0.0.1:$(cat http.port)
start_server ftpd ftp || exit 1
F=ftp://127.0.0.1:$(cat ftp.port)
NIXSTORE="local?store=$CIX_STORE_DIR&real=$TRASH_DIRECTORY/nixreal&state=$TRASH_DIRECTORY/nixstate&log=$TRASH_DIRECTORY/nixlog"
stored () { ls "$CIX_STORE_DIR" 2>/dev/null | grep -v "^\." | sort; }

test_expect_success 'http: the store path and the nix-base32 sha256' '
	cix download "$U/hello-1.0.tar.gz" >out 2>err &&
	test_line_count = 2 out &&
	p=$(sed -n 1p out) &&
	test "$p" = "$(cix store --add-fixed sha256 root/hello-1.0.tar.gz)" &&
	case $p in */*-hello-1.0.tar.gz) ;; *) false ;; esac &&
	cmp "$p" root/hello-1.0.tar.gz &&
	test "$(sed -n 2p out)" = "$(cix hash root/hello-1.0.tar.gz)" &&
	cix store --check-validity "$p"
'

test_expect_success 'ftp and file URLs, several at once' '
	cix download "$F/pub/big.bin" "file://$TRASH_DIRECTORY/root/hello-1.0.tar.gz" >out &&
	test_line_count = 4 out &&
	cmp "$(sed -n 1p out)" root/pub/big.bin &&
	test "$(sed -n 2p out)" = "$(cix hash root/pub/big.bin)" &&
	cmp "$(sed -n 3p out)" root/hello-1.0.tar.gz
'

test_expect_success 'mirror:// through the mirror file' '
	echo "test $U/ http://127.0.0.1:1/" >mirrors &&
	CIX_MIRRORS_FILE=$TRASH_DIRECTORY/mirrors cix download mirror://test/pub/big.bin >out &&
	cmp "$(sed -n 1p out)" root/pub/big.bin
'

test_expect_success '-f: base16, base64, base32, nix-base32' '
	cix download -f base16 "$U/pub/big.bin" >out &&
	test "$(sed -n 2p out)" = "$(sha256sum <root/pub/big.bin | cut -d" " -f1)" &&
	cix download --format=hex "$U/pub/big.bin" >out &&
	test "$(sed -n 2p out)" = "$(sha256sum <root/pub/big.bin | cut -d" " -f1)" &&
	cix download -f base64 "$U/pub/big.bin" >out &&
	test "$(sed -n 2p out)" = "$(sha256sum <root/pub/big.bin | cut -d" " -f1 | xxd -r -p | base64)" &&
	cix download -f base32 "$U/pub/big.bin" >out &&
	test "$(sed -n 2p out)" = "$(cix hash -f base32 root/pub/big.bin)" &&
	cix download -f nix-base32 "$U/pub/big.bin" >out &&
	test "$(sed -n 2p out)" = "$(cix hash root/pub/big.bin)" &&
	test_expect_code 2 cix download -f octal "$U/pub/big.bin"
'

test_expect_success NIX 'the same path and hash as Nix 2.8 gives the file' '
	cix download "$U/pub/big.bin" >out &&
	test "$(sed -n 1p out)" = "$(nix-store --store "$NIXSTORE" --add-fixed sha256 root/pub/big.bin)" &&
	test "$(sed -n 2p out)" = "$(nix-hash --type sha256 --flat --base32 root/pub/big.bin)"
'

test_expect_success 'a 404, an unknown scheme or mirror, a URL naming no file: exit 1, nothing added' '
	stored >before &&
	test_expect_code 1 cix download "$U/nope.tar.gz" 2>err && grep -q "404" err &&
	test_line_count = 1 err &&
	test_expect_code 1 cix download "gopher://example.org/x.tar" 2>err &&
	grep -q "only file, http, https, ftp and mirror://" err &&
	test_expect_code 1 cix download "$U/" 2>err && grep -q "names no file" err &&
	echo >empty-mirrors &&
	test_expect_code 1 env CIX_MIRRORS_FILE=$TRASH_DIRECTORY/empty-mirrors cix download mirror://nosuch/x.tar 2>err &&
	stored >after && test_cmp before after &&
	test_expect_code 1 cix download "$U/nope.tar.gz" "$U/hello-1.0.tar.gz" >out 2>err &&
	test_line_count = 2 out && test_line_count = 1 err
'

test_expect_success 'no URL, bad options, --help, --version' '
	test_expect_code 2 cix download 2>err && grep -q "no URL" err &&
	test_expect_code 2 cix download --bogus x 2>err &&
	cix download --help >out && grep -q "Usage: cix download" out &&
	cix download --version >out && grep -q cix out
'

test_expect_success 'through cix-daemon' '
	test_start_daemon "$TRASH_DIRECTORY/d.sock" CIX_CONF_FILE=/dev/null &&
	printf "daemon\n" >root/d.txt &&
	CIX_DAEMON_SOCKET=$TRASH_DIRECTORY/d.sock cix download "$U/d.txt" >out &&
	cmp "$(sed -n 1p out)" root/d.txt &&
	grep -q "connection from uid" daemon.log &&
	cix store --check-validity "$(sed -n 1p out)"
'

test_done
