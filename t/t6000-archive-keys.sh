#!/bin/sh
# t6000-archive-keys.sh - cix archive: signing keys and trusted keys, in Nix's formats
# SPDX-License-Identifier: GPL-3.0-or-later
test_description='cix archive --generate-key, --public-key and --authorize; keys and signatures agree with Nix 2.8 byte for byte'
. "$(dirname "$0")/test-lib.sh"

SIGN=$CIX_BUILD_DIR/t/unit/sign.t
CIX_CONF_DIR=$TRASH_DIRECTORY/conf
export CIX_CONF_DIR
# A private Nix store, built in without sandbox or build users.
NIX_STORE_DIR=$TRASH_DIRECTORY/nix/store
NIX_STATE_DIR=$TRASH_DIRECTORY/nix/var
NIX_LOG_DIR=$TRASH_DIRECTORY/nix/log
NIX_CONFIG="$NIX_CONFIG
sandbox = false
build-users-group ="
export NIX_STORE_DIR NIX_STATE_DIR NIX_LOG_DIR NIX_CONFIG

mode () { stat -c %a "$1"; }

test_expect_success 'usage: --help, --version, no action, two actions, arguments' '
	cix archive --help >out && grep -q -- "--generate-key" out &&
	cix archive --version >out && grep -q "^cix archive (cix) " out &&
	test_expect_code 2 cix archive 2>err && test_line_count = 2 err &&
	test_expect_code 2 cix archive --public-key --authorize 2>err &&
	test_expect_code 2 cix archive --public-key extra 2>err &&
	test_expect_code 2 cix archive --no-such-option 2>err &&
	test_expect_code 2 cix archive --key-dir 2>err
'

test_expect_success 'cix archive --generate-key: the key pair, 0600 and 0644, named HOST-1' '
	cix archive --generate-key --key-dir keys >out 2>err &&
	test ! -s out &&
	test "$(mode keys/signing-key.sec)" = 600 &&
	test "$(mode keys/signing-key.pub)" = 644 &&
	name=$(hostname)-1 &&
	grep -qx "$name:[A-Za-z0-9+/]\{86\}==" keys/signing-key.sec &&
	grep -qx "$name:[A-Za-z0-9+/]\{43\}=" keys/signing-key.pub &&
	test "$(wc -l <keys/signing-key.sec)" = 0 &&
	test "$(wc -l <keys/signing-key.pub)" = 0 &&
	ls keys >files && test_line_count = 2 files
'

test_expect_success 'the public key is the one the secret key derives' '
	"$SIGN" --public keys/signing-key.sec >derived &&
	{ cat keys/signing-key.pub; echo; } >want &&
	test_cmp want derived
'

test_expect_success 'cix archive --public-key prints it, with a newline' '
	cix archive --public-key --key-dir keys >out &&
	test_cmp want out
'

test_expect_success 'existing keys are never overwritten' '
	cp keys/signing-key.sec sec.before &&
	test_expect_code 1 cix archive --generate-key=other --key-dir keys 2>err &&
	grep -q "not overwriting" err && test_line_count = 1 err &&
	test_cmp sec.before keys/signing-key.sec &&
	rm keys/signing-key.pub &&
	test_expect_code 1 cix archive --generate-key --key-dir keys 2>err &&
	test_cmp sec.before keys/signing-key.sec && test_path_is_missing keys/signing-key.pub
'

test_expect_success 'a key name is checked; CIX_CONF_DIR places the keys' '
	test_expect_code 1 cix archive --generate-key="a:b" 2>err && test_line_count = 1 err &&
	test_expect_code 1 cix archive --generate-key= 2>err &&
	test_expect_code 1 cix archive --generate-key="a b" 2>err &&
	test_path_is_missing conf/signing-key.sec &&
	cix archive --generate-key cache.example.org-1 &&
	grep -q "^cache.example.org-1:" conf/signing-key.sec &&
	test "$(mode conf/signing-key.sec)" = 600 &&
	cix archive --public-key >conf.pub &&
	grep -qx "cache.example.org-1:.*=" conf.pub
'

test_expect_success 'cix archive --public-key without keys fails in one line' '
	test_expect_code 1 cix archive --public-key --key-dir nokeys 2>err &&
	test_line_count = 1 err
'

test_expect_success 'cix archive --authorize: the ACL gets the key once' '
	cix archive --public-key | cix archive --authorize &&
	test "$(mode conf/acl)" = 644 &&
	test_cmp conf.pub conf/acl &&
	cix archive --authorize <conf.pub &&
	test_cmp conf.pub conf/acl &&
	printf "%s" "$(cat want)" | cix archive --authorize &&
	cat conf.pub want >acl.want &&
	test_cmp acl.want conf/acl &&
	cix archive --authorize <want && test_cmp acl.want conf/acl
'

test_expect_success 'the ACL keeps its comments; a key goes after a last line without newline' '
	{ printf "# trusted keys\n\n"; cat conf.pub; printf "  # the end"; } >conf/acl &&
	cix archive --authorize <want &&
	{ printf "# trusted keys\n\n"; cat conf.pub; printf "  # the end\n"; cat want; } >acl.want &&
	test_cmp acl.want conf/acl
'

test_expect_success 'garbage on standard input is refused in one line, the ACL unchanged' '
	cp conf/acl acl.before &&
	for input in "" "garbage" "name:" ":$(cut -d: -f2 want)" "a b:$(cut -d: -f2 want)" \
		"$(cat keys/signing-key.sec)" "$(cat want)$(cat want)" "$(cat want) x"
	do
		printf "%s\n" "$input" >in &&
		test_expect_code 1 cix archive --authorize <in 2>err &&
		test_line_count = 1 err || return 1
	done &&
	! grep -q "$(cut -d: -f2 keys/signing-key.sec)" err &&
	head -c 100000 /dev/zero | test_expect_code 1 cix archive --authorize 2>err &&
	test_line_count = 1 err &&
	test_cmp acl.before conf/acl
'

test_expect_success 'a malformed ACL is not added to' '
	echo "not a key" >>conf/acl && cp conf/acl acl.before &&
	test_expect_code 1 cix archive --authorize <conf.pub 2>err &&
	grep -q "line 6" err && test_cmp acl.before conf/acl
'

test_expect_success NIX 'a key pair of nix-store --generate-binary-cache-key: cix derives its public key' '
	nix-store --generate-binary-cache-key nix-test-1 nix.sec nix.pub &&
	"$SIGN" --public nix.sec >derived &&
	{ cat nix.pub; echo; } >nix.pub.nl &&
	test_cmp nix.pub.nl derived &&
	mkdir nixkeys && cp nix.sec nixkeys/signing-key.sec && cp nix.pub nixkeys/signing-key.pub &&
	cix archive --public-key --key-dir nixkeys >out && test_cmp nix.pub.nl out &&
	CIX_CONF_DIR=$TRASH_DIRECTORY/conf2 cix archive --authorize <nix.pub &&
	test_cmp nix.pub.nl conf2/acl
'

test_expect_success NIX 'and Nix reads a key pair of cix: it signs as cix does' '
	echo hello >hello.txt &&
	p=$(nix-store --add hello.txt) &&
	nix store sign --key-file keys/signing-key.sec "$p" &&
	nix path-info --json "$p" | jq -r ".[0].signatures[0]" >nix.sig &&
	grep -q "^$(hostname)-1:" nix.sig &&
	nix store verify --sigs-needed 1 \
		--option trusted-public-keys "$(cat want)" "$p"
'

# fingerprint PATH: Nix 1;PATH;sha256:NIXBASE32;SIZE;REFS from nix path-info --json.
fingerprint () {
	nix path-info --json "$1" >info.json &&
	h=$(jq -r ".[0].narHash" info.json) &&
	printf "1;%s;%s;%s;%s" "$1" "$(nix hash to-base32 "$h" | sed "s/^/sha256:/")" \
		"$(jq -r ".[0].narSize" info.json)" \
		"$(jq -r ".[0].references | join(\",\")" info.json)"
}

test_expect_success NIX 'the signature of a path: cix and nix store sign, byte for byte' '
	dep=$(nix-store --add hello.txt) &&
	out=$(nix-build --no-out-link -E "derivation { name = \"refs\"; system = builtins.currentSystem;
		builder = \"/bin/sh\"; args = [ \"-c\" \"echo \${builtins.storePath \"$dep\"} > \$out\" ]; }") &&
	echo "$out" >refs.path &&
	for p in "$dep" "$out"
	do
		nix store sign --key-file nix.sec "$p" &&
		fp=$(fingerprint "$p") &&
		case "$fp" in "1;$p;sha256:"*) ;; *) echo "bad fingerprint $fp"; return 1;; esac &&
		nix path-info --json "$p" | jq -r ".[0].signatures[] | select(startswith(\"nix-test-1:\"))" >want.sig &&
		"$SIGN" --sign nix.sec "$fp" >got.sig &&
		test_cmp want.sig got.sig &&
		"$SIGN" --verify nix.pub "$(cat want.sig)" "$fp" &&
		test_must_fail "$SIGN" --verify nix.pub "$(cat want.sig)" "$fp " || return 1
	done &&
	test "$(jq -r ".[0].references[0]" info.json)" = "$dep"
'

test_expect_success NIX 'a seed with leading zero bytes: the same public key and signature as Nix' '
	"$SIGN" --from-seed zero-1 0000000000000000000000000000000000000000000000000000000000000001 >zero.sec &&
	"$SIGN" --public zero.sec >zero.pub &&
	out=$(cat refs.path) &&
	nix store sign --key-file zero.sec "$out" &&
	nix store verify --sigs-needed 1 --option trusted-public-keys "$(cat zero.pub)" "$out" &&
	fp=$(fingerprint "$out") &&
	nix path-info --json "$out" | jq -r ".[0].signatures[] | select(startswith(\"zero-1:\"))" >want.sig &&
	"$SIGN" --sign zero.sec "$fp" >got.sig &&
	test_cmp want.sig got.sig
'

test_done
