#!/bin/sh
# t2100-fetch.sh - downloads for fixed-output derivations and builtin:fetchurl
# SPDX-License-Identifier: GPL-3.0-or-later
test_description='fetch: http(s), ftp, file, redirects, mirrors, content-addressed mirrors, hash checks, xz unpack'
. "$(dirname "$0")/test-lib.sh"

PATH=$CIX_BUILD_DIR/bench:$PATH
# Loopback only, never through a proxy of the environment.
unset http_proxy https_proxy ftp_proxy all_proxy no_proxy HTTP_PROXY HTTPS_PROXY ALL_PROXY NO_PROXY

server_pids=
trap 'for p in $server_pids; do kill "$p" 2>/dev/null; done' EXIT

# start_server PROGRAM NAME [options]: PROGRAM (httpd or ftpd, test servers
# of bench/) serves ./root; its port lands in NAME.port
start_server () {
	prog_=$1 name_=$2
	shift 2
	rm -f "$name_.port"
	$prog_ -d "$TRASH_DIRECTORY/root" -p "$name_.port" -l "$name_.log" "$@" 2>"$name_.err" &
	pid_=$!
	server_pids="$server_pids $pid_"
	i_=0
	while [ ! -s "$name_.port" ] && [ $i_ -lt 100 ]; do
		kill -0 "$pid_" 2>/dev/null || return 1
		sleep 0.1
		i_=$((i_ + 1))
	done
	[ -s "$name_.port" ]
}
start_httpd () { start_server httpd "$@"; }
start_ftpd () { start_server ftpd "$@"; }

mkdir -p root/sub root/m2/dist cas
printf 'hello\n' >root/hello.txt
head -c 300000 /dev/urandom >root/big.bin
printf 'mirrored\n' >root/m2/dist/pkg.tar
mkdir -p tree/d && printf a >tree/a && printf b >tree/d/b && chmod 755 tree/d/b &&
ln -s a tree/l &&
cix store --dump tree >root/tree.nar || exit 1
start_httpd http || exit 1
P=$(cat http.port)
U=http://127.0.0.1:$P
start_ftpd ftp || exit 1
F=ftp://127.0.0.1:$(cat ftp.port)
# Fixed-output builds (builtin:fetchurl) have a network of their own, where
# the host's loopback is 10.0.2.2, and only when allowed.
CIX_FOD_HOST_LOOPBACK=yes
export CIX_FOD_HOST_LOOPBACK
UB=http://10.0.2.2:$P
FB=ftp://10.0.2.2:$(cat ftp.port)
flat () { printf 'sha256:%s' "$(cix hash "$1")"; }
rec () { printf 'sha256:%s' "$(cix hash -r "$1")"; }

test_expect_success 'download over http, flat hash checked, mode 0644' '
	fetch-tool --hash="$(flat root/hello.txt)" "$U/hello.txt" out &&
	cmp root/hello.txt out &&
	test "$(stat -c %a out)" = 644 &&
	fetch-tool --hash="$(flat root/big.bin)" "$U/big.bin" big &&
	cmp root/big.bin big
'

test_expect_success NIX 'expected hashes from nix-hash are accepted, flat and recursive' '
	h=$(nix-hash --type sha256 --flat --base32 root/big.bin) &&
	fetch-tool --hash="sha256:$h" "$U/big.bin" big-nix &&
	echo "sha256:$(nix-hash --type sha256 --flat root/big.bin)" >expect &&
	fetch-tool --parse-hash "" "sha256:$h" >actual &&
	test_cmp expect actual &&
	cp root/big.bin bx && chmod 755 bx &&
	fetch-tool -r -x --hash="sha256:$(nix-hash --type sha256 --base32 bx)" "$U/big.bin" big-nix-x &&
	cmp bx big-nix-x
'

test_expect_success 'recursive hash of an executable download' '
	cp root/hello.txt hx && chmod 755 hx &&
	fetch-tool -r -x --hash="$(rec hx)" "$U/hello.txt" outx &&
	test "$(stat -c %a outx)" = 755 &&
	cmp hx outx &&
	cp root/hello.txt hn && chmod 644 hn &&
	fetch-tool -r --hash="$(rec hn)" "$U/hello.txt" outn &&
	test_must_fail fetch-tool -r --hash="$(rec hn)" "$U/hello.txt" -x outn2 2>err &&
	test_path_is_missing outn2
'

test_expect_success 'mismatch: nothing left, one line naming both hashes' '
	want=$(flat root/big.bin) got=$(flat root/hello.txt) &&
	test_expect_code 1 fetch-tool --hash="$want" "$U/hello.txt" bad 2>err &&
	test_path_is_missing bad &&
	test_line_count = 1 err &&
	grep -F "hash mismatch for '\''$U/hello.txt'\'': expected $want, got $got" err
'

test_expect_success 'mismatch with keep-mismatch: the content is kept for its true hash' '
	test_expect_code 1 fetch-tool --keep-mismatch --hash="$(flat root/big.bin)" "$U/hello.txt" kept 2>err &&
	cmp root/hello.txt kept &&
	grep "hash mismatch" err &&
	test_expect_code 1 fetch-tool --keep-mismatch -r --hash="$(flat root/big.bin)" "$U/hello.txt" kept2 2>err &&
	cmp root/hello.txt kept2 &&
	test_expect_code 1 fetch-tool --keep-mismatch --builtin kept3 out=/x url="$U/tree.nar" unpack=1 \
		outputHash="$(cix hash -r root/hello.txt)" outputHashAlgo=sha256 outputHashMode=recursive 2>err &&
	test "$(cix hash -r kept3)" = "$(cix hash -r tree)" &&
	test_expect_code 1 fetch-tool --keep-mismatch "$U/missing" kept4 2>err &&
	test_path_is_missing kept4
'

test_expect_success 'hashes in base16, nix-base32, base64 and SRI forms' '
	h16=$(cix hash -f base16 root/hello.txt) &&
	h32=$(cix hash root/hello.txt) &&
	h64=$(cix hash -f base64 root/hello.txt) &&
	fetch-tool --parse-hash sha256 "$h16" >a &&
	fetch-tool --parse-hash "" "sha256:$h32" >b &&
	fetch-tool --parse-hash sha256 "$h64" >c &&
	fetch-tool --parse-hash "" "sha256-$h64" >d &&
	fetch-tool --parse-hash r:sha256 "$h32" >e &&
	echo "sha256:$h16" >expect &&
	test_cmp expect a && test_cmp expect b && test_cmp expect c &&
	test_cmp expect d && test_cmp expect e &&
	test_must_fail fetch-tool --parse-hash sha1 "sha256:$h32" 2>err &&
	test_must_fail fetch-tool --parse-hash sha256 "${h32}x" 2>err &&
	test_must_fail fetch-tool --parse-hash "" "$h32" 2>err &&
	test_must_fail fetch-tool --parse-hash md4 "$h32" 2>err &&
	test_must_fail fetch-tool --parse-hash "" "sha256-$h16" 2>err
'

test_expect_success '404 and other HTTP errors fail cleanly' '
	test_expect_code 1 fetch-tool "$U/missing" o404 2>err &&
	test_path_is_missing o404 &&
	grep "HTTP error 404" err &&
	test_expect_code 1 fetch-tool "$U/status/500" o500 2>err &&
	grep "HTTP error 500" err &&
	test_path_is_missing o500
'

test_expect_success 'redirects are followed, and bounded' '
	fetch-tool "$U/redirect?to=/hello.txt" ored &&
	cmp root/hello.txt ored &&
	fetch-tool "$U/redirect?to=$U/redirect%3Fto%3D/hello.txt" ored2 &&
	cmp root/hello.txt ored2 &&
	test_expect_code 1 fetch-tool "$U/loop" oloop 2>err &&
	test_path_is_missing oloop &&
	loops=$(grep -c "^GET /loop" http.log) &&
	test "$loops" -le 11
'

test_expect_success 'a redirect to file:// is refused' '
	test_expect_code 1 fetch-tool "$U/redirect?to=file://$TRASH_DIRECTORY/root/hello.txt" ofile 2>err &&
	test_path_is_missing ofile
'

test_expect_success 'file:// urls, unless refused' '
	fetch-tool "file://$TRASH_DIRECTORY/root/hello.txt" of &&
	cmp root/hello.txt of &&
	test_expect_code 1 fetch-tool --no-file "file://$TRASH_DIRECTORY/root/hello.txt" of2 2>err &&
	grep "not allowed" err &&
	test_path_is_missing of2 &&
	test_expect_code 1 fetch-tool "file://$TRASH_DIRECTORY/root/nothing" of3 2>err &&
	test_path_is_missing of3 &&
	test_expect_code 1 fetch-tool "file://$TRASH_DIRECTORY/root" odir 2>err &&
	test_path_is_missing odir &&
	test_expect_code 1 fetch-tool "file:///dev/null" onull 2>err &&
	test_path_is_missing onull &&
	mkfifo fifo &&
	test_expect_code 1 fetch-tool "file://$TRASH_DIRECTORY/fifo" ofifo 2>err &&
	test_path_is_missing ofifo &&
	cp root/hello.txt "sp ace" &&
	fetch-tool "file://$TRASH_DIRECTORY/sp%20ace" ofsp &&
	cmp root/hello.txt ofsp &&
	fetch-tool "file://localhost$TRASH_DIRECTORY/sp%20ace" ofsp2 &&
	test_expect_code 1 fetch-tool "file://example.org$TRASH_DIRECTORY/sp%20ace" ofsp3 2>err &&
	test_path_is_missing ofsp3
'

test_expect_success 'unknown schemes and bad urls are refused' '
	test_must_fail fetch-tool "gopher://127.0.0.1:$P/x" og 2>err &&
	test_must_fail fetch-tool "scp://127.0.0.1/x" os 2>err &&
	test_must_fail fetch-tool "$U/a b" osp 2>err &&
	test_must_fail fetch-tool "$(printf "$U/a\tb")" otab 2>err &&
	test_line_count = 1 err &&
	test_path_is_missing og && test_path_is_missing os && test_path_is_missing osp
'

test_expect_success 'connection refused is a clean error' '
	test_expect_code 1 fetch-tool "http://127.0.0.1:1/x" oref 2>err &&
	test_line_count = 1 err &&
	grep -i "connect" err &&
	test_path_is_missing oref
'

test_expect_success 'a stalled transfer times out and leaves nothing' '
	test_expect_code 1 fetch-tool --timeout=1 "$U/slow" oslow 2>err &&
	grep -i "timed out" err &&
	test_path_is_missing oslow
'

test_expect_success 'size limit' '
	test_expect_code 1 fetch-tool --max-size=1000 "$U/big.bin" olim 2>err &&
	test_path_is_missing olim &&
	fetch-tool --max-size=300000 "$U/big.bin" olim2 &&
	test_expect_code 1 fetch-tool --max-size=3 "file://$TRASH_DIRECTORY/root/hello.txt" olim3 2>err &&
	test_path_is_missing olim3
'

test_expect_success 'an existing destination or a symlink there is never written' '
	echo precious >canary &&
	ln -s canary link &&
	test_expect_code 1 fetch-tool "$U/hello.txt" link 2>err &&
	echo precious >expect && test_cmp expect canary &&
	test_expect_code 1 fetch-tool "$U/hello.txt" canary 2>err &&
	test_cmp expect canary &&
	ln -s nowhere dangling &&
	test_expect_code 1 fetch-tool "$U/hello.txt" dangling 2>err &&
	test_path_is_missing nowhere
'

test_expect_success 'mirror:// tries each mirror in order' '
	cat >mirrors <<-EOF &&
	# comment
	other http://127.0.0.1:1/
	gnu $U/nothing-here $U/m2/	# trailing comment
	EOF
	printf "gnu file:///never\n" >mirrors2 &&
	fetch-tool -m mirrors -m absent-file -m mirrors2 --expand mirror://gnu/dist/pkg.tar >urls &&
	cat >expect <<-EOF &&
	$U/nothing-here/dist/pkg.tar
	$U/m2/dist/pkg.tar
	file:///never/dist/pkg.tar
	EOF
	test_cmp expect urls &&
	: >http.log &&
	fetch-tool -m mirrors --hash="$(flat root/m2/dist/pkg.tar)" mirror://gnu/dist/pkg.tar omir &&
	cmp root/m2/dist/pkg.tar omir &&
	grep "^GET /nothing-here/dist/pkg.tar" http.log &&
	test_expect_code 1 fetch-tool -m mirrors mirror://nope/x omir2 2>err &&
	grep "unknown mirror" err &&
	test_path_is_missing omir2 &&
	test_must_fail fetch-tool -m mirrors mirror:///x omir3 2>err
'

test_expect_success 'a mirror serving wrong bytes is passed over; the error names the mismatch' '
	mkdir -p root/m3/dist &&
	printf "corrupt\n" >root/m3/dist/pkg.tar &&
	printf "gnu $U/m3/ $U/m2/\n" >mirrors3 &&
	fetch-tool -m mirrors3 --hash="$(flat root/m2/dist/pkg.tar)" mirror://gnu/dist/pkg.tar om3 &&
	cmp root/m2/dist/pkg.tar om3 &&
	printf "gnu $U/m3/ $U/missing/\n" >mirrors4 &&
	test_expect_code 1 fetch-tool -m mirrors4 --hash="$(flat root/m2/dist/pkg.tar)" mirror://gnu/dist/pkg.tar om4 2>err &&
	grep "hash mismatch" err &&
	test_path_is_missing om4
'

test_expect_success 'a content-addressed directory is used without any network' '
	mkdir -p cas/sha256 &&
	cp root/big.bin "cas/sha256/$(cix hash -f base16 root/big.bin)" &&
	: >http.log &&
	fetch-tool -c "$TRASH_DIRECTORY/cas" --hash="$(flat root/big.bin)" "http://127.0.0.1:1/big.bin" ocas &&
	cmp root/big.bin ocas &&
	test "$(stat -c %i ocas)" != "$(stat -c %i "cas/sha256/$(cix hash -f base16 root/big.bin)")" &&
	fetch-tool -c nonexistent-dir -c cas --hash="$(flat root/big.bin)" "$U/nothing" ocas2 &&
	cmp root/big.bin ocas2 &&
	test_line_count = 0 http.log
'

test_expect_success 'a corrupt content-addressed entry falls through to the url' '
	h16=$(cix hash -f base16 root/hello.txt) &&
	printf "garbage\n" >"cas/sha256/$h16" &&
	fetch-tool -c cas --hash="$(flat root/hello.txt)" "$U/hello.txt" ocas3 &&
	cmp root/hello.txt ocas3 &&
	test_expect_code 1 fetch-tool -c cas --hash="$(flat root/hello.txt)" "http://127.0.0.1:1/x" ocas4 2>err &&
	test_path_is_missing ocas4
'

test_expect_success 'a content-addressed url prefix (hashed mirror)' '
	mkdir -p root/hashed/sha256 &&
	cp root/hello.txt "root/hashed/sha256/$(cix hash -f base16 root/hello.txt)" &&
	fetch-tool -c "$U/hashed" --hash="$(flat root/hello.txt)" "http://127.0.0.1:1/x" ohm &&
	cmp root/hello.txt ohm
'

test_expect_success 'progress goes nowhere when not a terminal' '
	fetch-tool --progress "$U/big.bin" oprog 2>err &&
	test_line_count = 0 err
'

# script(1) from util-linux gives the command a terminal, where there are ptys.
if command -v script >/dev/null 2>&1 && script -qec "test -t 2" /dev/null >/dev/null 2>&1; then
	test_set_prereq SCRIPT
fi
test_expect_success SCRIPT 'progress on a terminal is one updating line' '
	script -qec "fetch-tool --progress --timeout=3 $U/slow oprog2" /dev/null >tty.out 2>&1 || :
	grep "downloading" tty.out &&
	test "$(tr -cd "\n" <tty.out | wc -c)" -le 2
'

# ---- builtin:fetchurl ----

test_expect_success 'builtin:fetchurl, flat' '
	fetch-tool --builtin bout out=/cix/store/x-hello url="$U/hello.txt" \
		outputHash="$(cix hash root/hello.txt)" outputHashAlgo=sha256 outputHashMode=flat &&
	cmp root/hello.txt bout &&
	test "$(stat -c %a bout)" = 644
'

test_expect_success 'builtin:fetchurl, executable, recursive, SRI hash' '
	fetch-tool --builtin boutx out=/cix/store/x-hello url="$U/hello.txt" executable=1 \
		outputHash="sha256-$(cix hash -r -f base64 hx)" outputHashAlgo= outputHashMode=recursive &&
	test "$(stat -c %a boutx)" = 755 && cmp hx boutx
'

test_expect_success 'builtin:fetchurl: mismatch removes the output' '
	test_expect_code 1 fetch-tool --builtin bbad out=/cix/store/x url="$U/hello.txt" \
		outputHash="$(cix hash root/big.bin)" outputHashAlgo=sha256 outputHashMode=flat 2>err &&
	test_path_is_missing bbad && grep "hash mismatch" err &&
	test_expect_code 1 fetch-tool --builtin bbad2 out=/cix/store/x url="$U/hello.txt" \
		outputHash= outputHashAlgo=sha256 2>err &&
	grep "got $(flat root/hello.txt)" err &&
	test_path_is_missing bbad2
'

test_expect_success 'builtin:fetchurl: missing attributes' '
	test_expect_code 1 fetch-tool --builtin bm out=/x 2>err && grep "url" err &&
	test_expect_code 1 fetch-tool --builtin bm url="$U/hello.txt" 2>err && grep "out" err &&
	test_expect_code 1 fetch-tool --builtin bm out=/x url="$U/hello.txt" outputHashMode=text 2>err &&
	test_path_is_missing bm
'

test_expect_success 'builtin:fetchurl: content-addressed mirror for flat hashes only' '
	: >http.log &&
	fetch-tool -c cas --builtin bcas out=/x url="http://127.0.0.1:1/big.bin" \
		outputHash="$(cix hash root/big.bin)" outputHashAlgo=sha256 outputHashMode=flat &&
	cmp root/big.bin bcas &&
	test_expect_code 1 fetch-tool -c cas --builtin bcas3 out=/x url="http://127.0.0.1:1/big.bin" \
		outputHash="$(printf "in no mirror\n" | cix hash /dev/stdin)" outputHashAlgo=sha256 outputHashMode=flat 2>err3 &&
	test_path_is_missing bcas3 && test $(wc -l <err3) = 1 &&
	grep -q "cannot download .http://127.0.0.1:1/big.bin.*; not in the content-addressed mirrors (CIX_CAS_DIRS) either" err3 &&
	test_expect_code 1 fetch-tool -c cas --builtin bcas2 out=/x url="http://127.0.0.1:1/big.bin" \
		outputHash="$(cix hash -r root/big.bin)" outputHashAlgo=sha256 outputHashMode=recursive 2>err &&
	test_path_is_missing bcas2
'

test_expect_success 'builtin:fetchurl, unpack: a NAR restored' '
	fetch-tool --builtin bun out=/x url="$U/tree.nar" unpack=1 \
		outputHash="$(cix hash -r tree)" outputHashAlgo=sha256 outputHashMode=recursive &&
	test "$(cix hash -r bun)" = "$(cix hash -r tree)" &&
	ls -a >after && ! grep "bun.nar-" after &&
	test_expect_code 1 fetch-tool --builtin bun2 out=/x url="$U/tree.nar" unpack=1 \
		outputHash="$(cix hash -r root)" outputHashAlgo=sha256 outputHashMode=recursive 2>err &&
	test_path_is_missing bun2 &&
	test_expect_code 1 fetch-tool --builtin bun3 out=/x url="$U/hello.txt" unpack=1 2>err &&
	test_path_is_missing bun3 &&
	test_expect_code 1 fetch-tool --builtin bun4 out=/x url="$U/missing.nar.xz" unpack=1 2>err &&
	test_path_is_missing bun4
'

# ---- builtin:fetchurl on derivations written by Nix ----

NS="local?root=$TRASH_DIRECTORY/nixroot"
# drv_env DRV: the derivation's environment as NAME=VALUE lines, from Nix
drv_json () { nix show-derivation --store "$NS" "$1" >drv.json; }
# builtin_from_drv OUT [fetch-tool options]: run cix's builtin:fetchurl on drv.json
builtin_from_drv () {
	perl -MJSON::PP -e '
		local $/; open my $f, "<", "drv.json" or die; my $j = decode_json(<$f>);
		my ($d) = values %$j; my %e = %{$d->{env}};
		my $out = shift;
		exec("fetch-tool", @ARGV, "--builtin", $out, map { "$_=$e{$_}" } sort keys %e) or die;
	' "$@"
}
drv_out () { perl -MJSON::PP -e 'local $/; my $j = decode_json(<STDIN>); my ($d) = values %$j; print $d->{env}{out}, "\n"' <drv.json; }
instantiate () { nix-instantiate --store "$NS" -E "import <nix/fetchurl.nix> { $1 }" 2>/dev/null; }

test_expect_success NIX 'Nix fetchurl.nix, flat: the same output path' '
	d=$(instantiate "url = \"$U/big.bin\"; sha256 = \"$(nix-hash --type sha256 --flat --base32 root/big.bin)\";") &&
	drv_json "$d" &&
	CIX_STORE_DIR=/nix/store builtin_from_drv nflat --print-path=big.bin >path &&
	drv_out >expect && test_cmp expect path &&
	cmp root/big.bin nflat &&
	test "$(stat -c %a nflat)" = 644 &&
	if nix-store --store "$NS" -r "$d" >nixout 2>nixerr; then
		test_cmp expect nixout && cmp nflat "nixroot$(cat nixout)"
	else
		say "nix could not build here: $(tail -1 nixerr)"
	fi
'

test_expect_success NIX 'Nix fetchurl.nix, executable: the same output path' '
	cp root/big.bin bx2 && chmod 755 bx2 &&
	d=$(instantiate "url = \"$U/big.bin\"; executable = true; sha256 = \"$(nix-hash --type sha256 --base32 bx2)\";") &&
	drv_json "$d" &&
	CIX_STORE_DIR=/nix/store builtin_from_drv nexe -r --print-path=big.bin >path &&
	drv_out >expect && test_cmp expect path &&
	test "$(stat -c %a nexe)" = 755 &&
	if nix-store --store "$NS" -r "$d" >nixout 2>nixerr; then
		test_cmp expect nixout &&
		test "$(nix-hash --type sha256 "nixroot$(cat nixout)")" = "$(nix-hash --type sha256 nexe)"
	fi
'

test_expect_success NIX 'Nix fetchurl.nix, unpack: the same output path' '
	d=$(instantiate "url = \"$U/tree.nar\"; unpack = true; sha256 = \"$(nix-hash --type sha256 --base32 tree)\";") &&
	drv_json "$d" &&
	CIX_STORE_DIR=/nix/store builtin_from_drv nun -r --print-path=tree.nar >path &&
	drv_out >expect && test_cmp expect path &&
	if nix-store --store "$NS" -r "$d" >nixout 2>nixerr; then
		test_cmp expect nixout &&
		nix-store --dump "nixroot$(cat nixout)" >nix.nar &&
		cix store --dump nun >cix.nar && cmp nix.nar cix.nar
	fi
'

test_expect_success NIX 'Nix fetchurl.nix, wrong hash: both refuse' '
	d=$(instantiate "url = \"$U/hello.txt\"; sha256 = \"$(nix-hash --type sha256 --flat --base32 root/big.bin)\";") &&
	drv_json "$d" &&
	test_expect_code 1 builtin_from_drv nbad 2>err &&
	test_path_is_missing nbad &&
	grep "expected sha256:$(nix-hash --type sha256 --flat --base32 root/big.bin), got sha256:$(nix-hash --type sha256 --flat --base32 root/hello.txt)" err &&
	CIX_STORE_DIR=/nix/store && export CIX_STORE_DIR &&
	test_expect_code 1 builtin_from_drv nbad2 --keep-mismatch --print-path=hello.txt >path 2>err &&
	unset CIX_STORE_DIR &&
	cmp root/hello.txt nbad2 &&
	test_must_fail nix-store --store "$NS" -r "$d" >/dev/null 2>nixerr &&
	if grep -q "hash mismatch" nixerr; then
		# Nix registers what it got under its true fixed-output path: the same.
		test -f "nixroot$(cat path)" && cmp root/hello.txt "nixroot$(cat path)"
	fi
'

test_expect_success NIX 'cix store --realise runs builtin:fetchurl derivations' '
	CS=$TRASH_DIRECTORY/cstore &&
	NC="local?store=$CS&real=$TRASH_DIRECTORY/ncreal&state=$TRASH_DIRECTORY/ncstate&log=$TRASH_DIRECTORY/nclog" &&
	good=$(nix-instantiate --store "$NC" -E "import <nix/fetchurl.nix> { url = \"$UB/big.bin\"; sha256 = \"$(nix-hash --type sha256 --flat --base32 root/big.bin)\"; }" 2>/dev/null) &&
	bad=$(nix-instantiate --store "$NC" -E "import <nix/fetchurl.nix> { url = \"$UB/hello.txt\"; sha256 = \"$(nix-hash --type sha256 --flat --base32 root/big.bin)\"; }" 2>/dev/null) &&
	nix-store --store "$NC" --export $(nix-store --store "$NC" -qR $good $bad) >fetch.export &&
	export CIX_STORE_DIR=$CS CIX_STATE_DIR=$TRASH_DIRECTORY/cstate CIX_LOG_DIR=$TRASH_DIRECTORY/clog &&
	cix store --import <fetch.export >/dev/null &&
	out=$(cix store -r $good) &&
	cmp root/big.bin "$out" &&
	test "$(cix store -q --deriver "$out")" = "$good" &&
	cix store --verify-path "$out" &&
	test_expect_code 1 cix store -r $bad 2>err &&
	grep "hash mismatch" err &&
	test_expect_code 1 cix store --check-validity $(nix-store --store "$NC" -q --outputs $bad) 2>/dev/null &&
	unset CIX_STORE_DIR CIX_STATE_DIR CIX_LOG_DIR
'

# ---- ftp ----

mkdir -p root/sub/deeper && cp root/big.bin root/sub/deeper/ftp.bin &&
printf 'outside the root\n' >secret

test_expect_success 'download over ftp (EPSV), flat hash checked' '
	: >ftp.log &&
	fetch-tool --hash="$(flat root/big.bin)" "$F/sub/deeper/ftp.bin" oftp &&
	cmp root/big.bin oftp &&
	test "$(stat -c %a oftp)" = 644 &&
	grep "^EPSV" ftp.log && grep "^RETR ftp.bin" ftp.log &&
	fetch-tool -r -x --hash="$(rec hx)" "$F/hello.txt" oftpx &&
	cmp hx oftpx && test "$(stat -c %a oftpx)" = 755
'

# Started here, not in a test's subshell, so that the exit trap stops it.
start_ftpd ftp2 --no-epsv && test_set_prereq FTP2

test_expect_success FTP2 'ftp to a server without EPSV falls back to PASV' '
	fetch-tool --hash="$(flat root/hello.txt)" "ftp://127.0.0.1:$(cat ftp2.port)/hello.txt" opasv &&
	cmp root/hello.txt opasv &&
	grep "^PASV" ftp2.log
'

test_expect_success 'the ftp test server refuses paths out of its root' '
	test_expect_code 1 fetch-tool "$F/sub/%2E%2E/%2E%2E/secret" oesc 2>err &&
	test_path_is_missing oesc &&
	test_expect_code 1 fetch-tool "$F/%2F..%2Fsecret" oesc2 2>err &&
	test_path_is_missing oesc2 &&
	test_expect_code 1 fetch-tool "$F/sub" odir 2>err &&
	test_path_is_missing odir
'

test_expect_success 'builtin:fetchurl over ftp' '
	fetch-tool --builtin bftp out=/cix/store/x-ftp url="$F/sub/deeper/ftp.bin" \
		outputHash="$(cix hash root/big.bin)" outputHashAlgo=sha256 outputHashMode=flat &&
	cmp root/big.bin bftp &&
	test "$(stat -c %a bftp)" = 644 &&
	fetch-tool --builtin bftpx out=/x url="$F/hello.txt" executable=1 \
		outputHash="$(cix hash -r hx)" outputHashAlgo=sha256 outputHashMode=recursive &&
	cmp hx bftpx && test "$(stat -c %a bftpx)" = 755 &&
	fetch-tool --builtin bftpun out=/x url="$F/tree.nar" unpack=1 \
		outputHash="$(cix hash -r tree)" outputHashAlgo=sha256 outputHashMode=recursive &&
	test "$(cix hash -r bftpun)" = "$(cix hash -r tree)"
'

test_expect_success 'builtin:fetchurl: a missing ftp file fails cleanly' '
	test_expect_code 1 fetch-tool --builtin bftpm out=/x url="$F/sub/nothing.bin" \
		outputHash="$(cix hash root/big.bin)" outputHashAlgo=sha256 outputHashMode=flat 2>err &&
	test_line_count = 1 err &&
	grep -F "cannot download '\''$F/sub/nothing.bin'\''" err &&
	test_path_is_missing bftpm &&
	test_expect_code 1 fetch-tool --builtin bftpm2 out=/x url="$F/nodir/x.nar" unpack=1 2>err &&
	test_line_count = 1 err &&
	test_path_is_missing bftpm2 &&
	ls -a >after && ! grep "bftpm" after
'

test_expect_success 'builtin:fetchurl: a hash mismatch over ftp names both hashes' '
	want=$(flat root/big.bin) got=$(flat root/hello.txt) &&
	test_expect_code 1 fetch-tool --builtin bftpbad out=/x url="$F/hello.txt" \
		outputHash="$(cix hash root/big.bin)" outputHashAlgo=sha256 outputHashMode=flat 2>err &&
	test_line_count = 1 err &&
	grep -F "hash mismatch for '\''$F/hello.txt'\'': expected $want, got $got" err &&
	test_path_is_missing bftpbad
'

# inst_c STORE-URI ATTRS: a fetchurl.nix derivation instantiated by Nix in STORE-URI
inst_c () { nix-instantiate --store "$1" -E "import <nix/fetchurl.nix> { $2 }" 2>/dev/null; }
# cix_env NAME: use the cix store, state and logs NAME{store,state,log} of the trash
cix_env () {
	CIX_STORE_DIR=$TRASH_DIRECTORY/$1store CIX_STATE_DIR=$TRASH_DIRECTORY/$1state \
	CIX_LOG_DIR=$TRASH_DIRECTORY/$1log && export CIX_STORE_DIR CIX_STATE_DIR CIX_LOG_DIR
}
# nix_for NAME: Nix's local store URI over the same store directory as cix_env NAME
nix_for () {
	printf 'local?store=%s&real=%s&state=%s&log=%s' "$TRASH_DIRECTORY/$1store" \
		"$TRASH_DIRECTORY/$1nreal" "$TRASH_DIRECTORY/$1nstate" "$TRASH_DIRECTORY/$1nlog"
}

test_expect_success NIX 'cix store --realise over ftp; a missing file or a wrong hash registers nothing' '
	NC=$(nix_for f) &&
	hbig=$(nix-hash --type sha256 --flat --base32 root/big.bin) &&
	good=$(inst_c "$NC" "url = \"$FB/sub/deeper/ftp.bin\"; sha256 = \"$hbig\";") &&
	missing=$(inst_c "$NC" "url = \"$FB/sub/nothing.bin\"; sha256 = \"$hbig\";") &&
	bad=$(inst_c "$NC" "url = \"$FB/hello.txt\"; sha256 = \"$hbig\";") &&
	nix-store --store "$NC" --export $(nix-store --store "$NC" -qR $good $missing $bad) >ftp.export &&
	gout=$(nix-store --store "$NC" -q --outputs $good) &&
	mout=$(nix-store --store "$NC" -q --outputs $missing) &&
	bout=$(nix-store --store "$NC" -q --outputs $bad) &&
	cix_env f &&
	cix store --import <ftp.export >/dev/null &&
	out=$(cix store -r $good) &&
	test "$out" = "$gout" &&
	cmp root/big.bin "$out" &&
	cix store --verify-path "$out" &&
	test_expect_code 1 cix store -r $missing 2>err &&
	grep -F "$FB/sub/nothing.bin" err &&
	test_expect_code 1 cix store --check-validity "$mout" 2>/dev/null &&
	test_path_is_missing "$mout" &&
	test_expect_code 1 cix store -r $bad 2>err &&
	grep -F "expected sha256:$hbig, got sha256:$(nix-hash --type sha256 --flat --base32 root/hello.txt)" err &&
	test_expect_code 1 cix store --check-validity "$bout" 2>/dev/null &&
	test_path_is_missing "$bout"
'

# ---- unpack of an xz-compressed NAR ----

if command -v xz >/dev/null 2>&1; then
	test_set_prereq XZ
fi

test_expect_success XZ 'setup: xz-compressed NARs, sound and broken' '
	mkdir -p xtree/d &&
	cp root/big.bin xtree/big && printf a >xtree/a && printf b >xtree/d/b &&
	chmod 755 xtree/d/b && ln -s a xtree/l &&
	cix store --dump xtree >xtree.nar &&
	xz -c xtree.nar >root/xtree.nar.xz &&
	size=$(stat -c %s root/xtree.nar.xz) &&
	head -c $((size / 2)) root/xtree.nar.xz >root/half.nar.xz &&
	head -c $((size - 4)) root/xtree.nar.xz >root/nofooter.nar.xz &&
	cp root/xtree.nar.xz root/corrupt.nar.xz &&
	printf "\377" | dd of=root/corrupt.nar.xz bs=1 seek=$((size / 2)) conv=notrunc 2>/dev/null &&
	! cmp -s root/xtree.nar.xz root/corrupt.nar.xz &&
	cp xtree.nar root/plain.nar.xz &&
	{ cat xtree.nar && printf more; } | xz -c >root/extra.nar.xz &&
	{ cat root/xtree.nar.xz && printf more | xz -c; } >root/extra2.nar.xz &&
	{ cat root/xtree.nar.xz && printf garbage-after-the-xz-stream; } >root/garbage.nar.xz &&
	head -c 100000 xtree.nar | xz -c >root/shortnar.nar.xz &&
	{ cat root/xtree.nar.xz && cat root/xtree.nar.xz; } >root/twice.nar.xz &&
	head -c 3000000 /dev/zero >zeros &&
	cix store --dump zeros | xz -c >root/zeros.nar.xz &&
	test "$(stat -c %s root/zeros.nar.xz)" -lt 100000
'

test_expect_success XZ 'builtin:fetchurl, unpack: an xz-compressed NAR restored (http, ftp, file)' '
	fetch-tool --builtin bxz out=/x url="$U/xtree.nar.xz" unpack=1 \
		outputHash="$(cix hash -r xtree)" outputHashAlgo=sha256 outputHashMode=recursive &&
	test "$(cix hash -r bxz)" = "$(cix hash -r xtree)" &&
	cix store --dump bxz | cmp - xtree.nar &&
	fetch-tool --builtin bxz2 out=/x url="$F/xtree.nar.xz" unpack=1 &&
	cix store --dump bxz2 | cmp - xtree.nar &&
	fetch-tool --builtin bxz3 out=/x url="file://$TRASH_DIRECTORY/root/xtree.nar.xz" unpack=1 &&
	cix store --dump bxz3 | cmp - xtree.nar &&
	ls -a >after && ! grep "\.nar-" after
'

test_expect_success XZ 'unpack: without the .xz suffix the download is taken as a plain NAR' '
	cp root/xtree.nar.xz root/xtree-noext &&
	test_expect_code 1 fetch-tool --builtin bnoext out=/x url="$U/xtree-noext" unpack=1 2>err &&
	test_line_count = 1 err &&
	test_path_is_missing bnoext
'

# unpack_fails NAME MESSAGE: unpacking root/NAME.nar.xz fails with MESSAGE, leaving nothing
unpack_fails () {
	test_expect_code 1 fetch-tool --builtin "b$1" out=/x url="$U/$1.nar.xz" unpack=1 2>err &&
	test_line_count = 1 err &&
	grep -F "$2" err &&
	test_path_is_missing "b$1" &&
	ls -a >after && ! grep "^b$1" after
}

test_expect_success XZ 'unpack: truncated, corrupt or padded xz fails cleanly, leaving nothing' '
	unpack_fails half "cannot decompress '\''$U/half.nar.xz'\'': truncated xz data" &&
	unpack_fails nofooter "cannot decompress '\''$U/nofooter.nar.xz'\'': truncated xz data" &&
	unpack_fails corrupt "cannot decompress '\''$U/corrupt.nar.xz'\'': corrupt xz data" &&
	unpack_fails plain "not in the xz format" &&
	unpack_fails extra "trailing data after the nar" &&
	unpack_fails extra2 "trailing data after the nar" &&
	unpack_fails garbage "cannot decompress" &&
	unpack_fails shortnar "NAR is truncated" &&
	unpack_fails twice "trailing data after the nar"
'

test_expect_success XZ 'unpack: the decompressed size is bounded by the size limit' '
	fetch-tool --builtin bzeros out=/x url="$U/zeros.nar.xz" unpack=1 &&
	cmp zeros bzeros &&
	test_expect_code 1 fetch-tool --max-size=1000000 --builtin bzeros2 out=/x \
		url="$U/zeros.nar.xz" unpack=1 2>err &&
	test_line_count = 1 err &&
	grep "larger than 1000000 bytes" err &&
	test_path_is_missing bzeros2
'

test_expect_success XZ 'unpack: a mismatch after decompression removes the output' '
	test_expect_code 1 fetch-tool --builtin bxzbad out=/x url="$U/xtree.nar.xz" unpack=1 \
		outputHash="$(cix hash -r tree)" outputHashAlgo=sha256 outputHashMode=recursive 2>err &&
	grep -F "expected $(rec tree), got $(rec xtree)" err &&
	test_path_is_missing bxzbad
'

test_expect_success NIX,XZ 'Nix fetchurl.nix, unpack of an .xz NAR: cix realises the same path and NAR hash' '
	nix-store --dump tree | xz -c >root/tree-nix.nar.xz &&
	h=$(nix-hash --type sha256 --base32 tree) &&
	NC=$(nix_for x) &&
	good=$(inst_c "$NC" "url = \"$UB/tree-nix.nar.xz\"; unpack = true; sha256 = \"$h\";") &&
	broken=$(inst_c "$NC" "url = \"$UB/half.nar.xz\"; unpack = true; sha256 = \"$h\";") &&
	nix show-derivation --store "$NC" "$good" >drv.json &&
	perl -MJSON::PP -e "local \$/; my (\$d) = values %{decode_json(<STDIN>)}; my \$e = \$d->{env};
		exit !(\$d->{builder} eq q(builtin:fetchurl) && \$e->{unpack} eq q(1) &&
			\$e->{outputHashMode} eq q(recursive))" <drv.json &&
	nix-store --store "$NC" --export $(nix-store --store "$NC" -qR $good $broken) >xz.export &&
	gout=$(nix-store --store "$NC" -q --outputs $good) &&
	bout=$(nix-store --store "$NC" -q --outputs $broken) &&
	cix_env x &&
	cix store --import <xz.export >/dev/null &&
	out=$(cix store -r $good) &&
	test "$out" = "$gout" &&
	test "$(nix-hash --type sha256 --base32 "$out")" = "$h" &&
	nix-store --dump tree >tree-nix.nar &&
	cix store --dump "$out" | cmp - tree-nix.nar &&
	cix store --verify-path "$out" &&
	test_expect_code 1 cix store -r $broken 2>err &&
	grep "truncated xz data" err &&
	test_expect_code 1 cix store --check-validity "$bout" 2>/dev/null &&
	test_path_is_missing "$bout" &&
	unset CIX_STORE_DIR CIX_STATE_DIR CIX_LOG_DIR &&
	d=$(instantiate "url = \"$UB/tree-nix.nar.xz\"; unpack = true; sha256 = \"$h\";") &&
	if nix-store --store "$NS" -r "$d" >nixout 2>nixerr; then
		nix-store --dump "nixroot$(cat nixout)" | cmp - tree-nix.nar
	else
		say "nix could not build here: $(tail -1 nixerr)"
	fi
'

# ---- TLS ----

if command -v openssl >/dev/null 2>&1 &&
   openssl req -x509 -newkey rsa:2048 -nodes -keyout key.pem -out cert.pem -days 2 \
	-subj /CN=127.0.0.1 -addext subjectAltName=IP:127.0.0.1 >/dev/null 2>&1 &&
   start_httpd https --cert cert.pem --key key.pem; then
	test_set_prereq TLS
	S=https://127.0.0.1:$(cat https.port)
fi

test_expect_success TLS 'https to a self-signed server is refused' '
	test_expect_code 1 fetch-tool "$S/hello.txt" otls 2>err &&
	test_line_count = 1 err &&
	test_path_is_missing otls &&
	test_expect_code 1 fetch-tool --hash="$(flat root/hello.txt)" "$S/hello.txt" otls2 2>err &&
	test_path_is_missing otls2
'

test_expect_success TLS 'https works when the certificate is trusted' '
	fetch-tool --ca-file=cert.pem --hash="$(flat root/big.bin)" "$S/big.bin" otls3 &&
	cmp root/big.bin otls3
'

test_expect_success TLS 'the host name is verified' '
	test_expect_code 1 fetch-tool --ca-file=cert.pem "https://localhost:$(cat https.port)/hello.txt" otls4 2>err &&
	test_path_is_missing otls4
'

test_expect_success TLS 'a redirect from https to http is refused' '
	fetch-tool --ca-file=cert.pem "$S/redirect?to=/hello.txt" otls5 &&
	cmp root/hello.txt otls5 &&
	: >http.log &&
	test_expect_code 1 fetch-tool --ca-file=cert.pem "$S/redirect?to=$U/hello.txt" otls6 2>err &&
	test_path_is_missing otls6 &&
	test_line_count = 0 http.log
'

test_expect_success TLS 'once on https, a chain never goes back to http' '
	fetch-tool --ca-file=cert.pem "$U/redirect?to=$S/hello.txt" otls8 &&
	cmp root/hello.txt otls8 &&
	: >http.log &&
	test_expect_code 1 fetch-tool --ca-file=cert.pem \
		"$U/redirect?to=$S/redirect%3Fto%3D$U/hello.txt" otls9 2>err &&
	grep "redirect from https" err &&
	test_path_is_missing otls9 &&
	! grep "^GET /hello.txt" http.log
'

test_expect_success TLS 'no credentials from a netrc' '
	printf "machine 127.0.0.1 login user password secret\n" >"$HOME/.netrc" &&
	: >https.log &&
	fetch-tool --ca-file=cert.pem "$S/hello.txt" otls7 &&
	rm -f "$HOME/.netrc" &&
	grep "^GET /hello.txt" https.log &&
	! grep -i "authorization" https.log
'

test_done
