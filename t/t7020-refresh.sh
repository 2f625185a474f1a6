#!/bin/sh
# t7020-refresh.sh - cix refresh: newer GNU releases found, checked with gpgv, written into the package modules
# SPDX-License-Identifier: GPL-3.0-or-later
test_description='cix refresh: releases listed by a local GNU server (HTML and FTP listings), -s core/non-core, -u with good and bad signatures, keys missing (never, no terminal) or fetched from a local key server (always), usage errors'
. "$(dirname "$0")/test-lib.sh"

PATH=$CIX_BUILD_DIR/bench:$PATH
# Loopback only, never through a proxy of the environment.
unset http_proxy https_proxy ftp_proxy all_proxy no_proxy HTTP_PROXY HTTPS_PROXY ALL_PROXY NO_PROXY

test_private_store
XDG_CACHE_HOME=$TRASH_DIRECTORY/cache
GNUPGHOME=$TRASH_DIRECTORY/gnupg
export XDG_CACHE_HOME GNUPGHOME
unset CIX_GNU_URL XDG_CONFIG_HOME CIX_DAEMON_SOCKET

# The distribution of the test: copies of (gnu packages base), (gnu packages
# m4) and (gnu packages less), alone on the search path with cix's modules.
M=$TRASH_DIRECTORY/mods/gnu/packages
CIX_SCHEME_PATH=$TRASH_DIRECTORY/mods:$CIX_SRC_DIR/scheme/modules
BASE=$M/base.scm
KR=$TRASH_DIRECTORY/keys/trusted.kbx

command -v gpg >/dev/null && command -v gpgv >/dev/null && test_set_prereq GPG
command -v script >/dev/null && test_set_prereq SCRIPT

# on_terminal ANSWER CMD: CMD run on a terminal (script(1)), ANSWER typed in.
on_terminal () {
	a_=$1
	shift
	printf '%s\n' "$a_" | script -qec "$*" /dev/null
}

server_pid=
cleanup () {
	test -n "$server_pid" && kill "$server_pid" 2>/dev/null
	command -v gpgconf >/dev/null && gpgconf --kill gpg-agent 2>/dev/null
}
trap cleanup EXIT

# start_httpd: bench/httpd serving ./root; its URL in $U.
start_httpd () {
	rm -f http.port
	httpd -d "$TRASH_DIRECTORY/root" -p http.port -l http.log 2>http.err &
	server_pid=$!
	i_=0
	while [ ! -s http.port ] && [ $i_ -lt 100 ]; do
		kill -0 "$server_pid" 2>/dev/null || return 1
		sleep 0.1
		i_=$((i_ + 1))
	done
	U=http://127.0.0.1:$(cat http.port)
}

# listing DIR FILE...: an index of root/gnu/DIR/ as ftp.gnu.org serves it.
listing () {
	d_=root/gnu/$1
	shift
	mkdir -p "$d_"
	{
		printf '<!DOCTYPE HTML PUBLIC "-//W3C//DTD HTML 3.2 Final//EN">\n<html>\n'
		printf ' <head>\n  <title>Index of /gnu/%s</title>\n </head>\n <body>\n' "${d_#root/gnu/}"
		printf '<h1>Index of /gnu/%s</h1>\n<pre><img src="/icons/blank.gif" alt="Icon "> ' "${d_#root/gnu/}"
		printf '<a href="?C=N;O=D">Name</a>  <a href="?C=M;O=A">Last modified</a>  '
		printf '<a href="?C=S;O=A">Size</a><hr>'
		printf '<img src="/icons/back.gif" alt="[PARENTDIR]"> <a href="/gnu/">Parent Directory</a>  -\n'
		for f_; do
			printf '<img src="/icons/compressed.gif" alt="[   ]"> <a href="%s">%s</a>  2022-03-16 15:01  1.0M\n' "$f_" "$f_"
		done
		printf '<hr></pre>\n</body></html>\n'
	} >"$d_/index.html"
}

# tarball NAME-VERSION EXT: a small release tarball in root/gnu/NAME/.
tarball () {
	mkdir -p "src/$1" "root/gnu/${1%-*}" &&
	printf 'release %s\n' "$1" >"src/$1/README" &&
	case $2 in
	gz) tar -C src -czf "root/gnu/${1%-*}/$1.tar.gz" "$1" ;;
	xz) tar -C src -cJf "root/gnu/${1%-*}/$1.tar.xz" "$1" ;;
	esac
}

# sign KEY FILE: FILE.sig, FILE signed by KEY (a user id of the test's keys).
sign () {
	gpg --batch --yes -q -u "$1" --detach-sign -o "$2.sig" "$2"
}

fpr_of () {
	gpg --with-colons --list-keys "$1" | awk -F: '/^fpr/ { print $10; exit }'
}

# where NAME: FILE:LINE:COLUMN of the (package form defining NAME, as Guix shows it.
where () {
	loc_=$(cix package -A "^$1\$" | cut -f4)
	f_=$TRASH_DIRECTORY/mods/${loc_%:*}
	l_=${loc_##*:}
	c_=$(sed -n "${l_}p" "$f_" | awk '{ print index($0, "(package") - 1 }')
	printf '%s:%s\n' "$loc_" "$c_"
}

mkdir -p root && start_httpd || exit 1

test_expect_success GPG 'setup: a GNU server, two signing keys, the modules' '
	mkdir -p "$M" store &&
	for m in base m4 less; do cp "$CIX_SRC_DIR/distro/gnu/packages/$m.scm" "$M/"; done &&
	cp "$BASE" base.orig && cp "$M/m4.scm" m4.orig &&
	mkdir -m 700 gnupg &&
	gpg --batch -q --passphrase "" --quick-gen-key "cix signer <signer@example.org>" rsa2048 sign never &&
	gpg --batch -q --passphrase "" --quick-gen-key "someone else <other@example.org>" rsa2048 sign never &&
	FPR=$(fpr_of signer@example.org) && test -n "$FPR" && echo "$FPR" >fpr &&
	OTHER=$(fpr_of other@example.org) && test -n "$OTHER" && echo "$OTHER" >other-fpr &&
	mkdir -p root/pks &&
	gpg --armor --export "$FPR" >"root/pks/0x$FPR" &&
	tarball hello-2.10 gz && tarball hello-2.12 gz && tarball m4-1.4.20 xz &&
	sign signer@example.org root/gnu/hello/hello-2.12.tar.gz &&
	sign signer@example.org root/gnu/m4/m4-1.4.20.tar.xz &&
	cp root/gnu/m4/m4-1.4.20.tar.xz m4-1.4.20.good &&
	cp root/gnu/hello/hello-2.12.tar.gz hello-2.12.good &&
	cp root/gnu/hello/hello-2.12.tar.gz.sig hello-2.12.sig.good &&
	cix package -A >all &&
	while read -r name version rest; do
		listing "$name" "$name-$version.tar.xz" "$name-$version.tar.xz.sig"
	done <all &&
	listing hello hello-1.3.tar.gz hello-2.9.tar.gz hello-2.10.tar.gz hello-2.10.tar.gz.sig \
		hello-2.12.tar.gz hello-2.12.tar.gz.sig hello-3.0.tar.gz.sig hello-world-9.9.tar.gz \
		hello-2.12.tar.gz.sig &&
	{
		echo "-rw-r--r--    1 3003     65534     1246345 May 28  2021 m4-1.4.19.tar.xz"
		echo "-rw-r--r--    1 3003     65534         488 May 28  2021 m4-1.4.19.tar.xz.sig"
		echo "-rw-r--r--    1 3003     65534     1246345 May 25  2025 m4-1.4.20.tar.xz"
		echo "-rw-r--r--    1 3003     65534         488 May 25  2025 m4-1.4.20.tar.xz.sig"
		echo "-rw-r--r--    1 3003     65534     1246345 May 25  2025 m4-latest.tar.xz"
	} >root/gnu/m4/index.html &&
	where hello >hello.loc && where m4 >m4.loc && cat hello.loc m4.loc
'

test_expect_success GPG 'report: the newer releases, from HTML and FTP listings; nothing changes' '
	cix refresh --gnu-url="$U/gnu" >out 2>err &&
	{
		echo "$(cat hello.loc): hello would be upgraded from 2.10 to 2.12" &&
		echo "$(cat m4.loc): m4 would be upgraded from 1.4.19 to 1.4.20"
	} >expect &&
	test_cmp expect out &&
	test_cmp base.orig "$BASE" && test_cmp m4.orig "$M/m4.scm" &&
	grep "GET /gnu/hello/" http.log && grep "GET /gnu/sed/" http.log &&
	! grep -v "^GET /gnu/[a-z0-9]*/$" http.log &&
	CIX_GNU_URL=$U/gnu/ cix refresh >out2 &&
	test_cmp expect out2
'

test_expect_success GPG 'named packages: only they; up to date or not GNU: nothing to say' '
	cix refresh --gnu-url="$U/gnu" hello sed >out &&
	grep -F "$(cat hello.loc): hello would be upgraded from 2.10 to 2.12" out &&
	test_line_count = 1 out &&
	cix refresh --gnu-url="$U/gnu" sed >out 2>err &&
	test_line_count = 0 out &&
	cix refresh --gnu-url="$U/gnu" less >out 2>err &&
	test_line_count = 0 out &&
	grep "less: not a GNU package" err &&
	test_must_fail cix refresh --gnu-url="$U/gnu" no-such-package 2>err &&
	grep "no-such-package: unknown package" err
'

test_expect_success GPG '-s core: the packages of base and bootstrap; -s non-core: the others' '
	cix refresh --gnu-url="$U/gnu" -s core >out &&
	grep " hello would be upgraded" out && test_line_count = 1 out &&
	cix refresh --gnu-url="$U/gnu" --select=non-core >out &&
	grep " m4 would be upgraded" out && test_line_count = 1 out
'

test_expect_success GPG 'a release directory that cannot be listed is an error' '
	mv root/gnu/sed/index.html sed.index &&
	test_expect_code 1 cix refresh --gnu-url="$U/gnu" sed hello >out 2>err &&
	mv sed.index root/gnu/sed/index.html &&
	grep "sed: cannot list the releases" err &&
	grep " hello would be upgraded" out
'

test_expect_success GPG '-u: the signing key missing, --key-download=never or no terminal: not updated' '
	test_expect_code 1 cix refresh -u --gnu-url="$U/gnu" --keyring="$KR" \
		--key-download=never hello >out 2>err &&
	grep "hello: hello-2.12.tar.gz is signed by the key 0x$(cat fpr), which is not in $KR" err &&
	test_cmp base.orig "$BASE" &&
	test_expect_code 1 cix refresh -u --gnu-url="$U/gnu" --keyring="$KR" hello </dev/null 2>err &&
	grep "is not in $KR" err &&
	test_cmp base.orig "$BASE" && test_line_count = 0 out
'

test_expect_success GPG '-u: signed by a key the key server lacks: not updated' '
	sign other@example.org root/gnu/hello/hello-2.12.tar.gz &&
	test_expect_code 1 cix refresh -u --gnu-url="$U/gnu" --keyring="$KR" --key-server="$U" \
		--key-download=always hello 2>err &&
	cp hello-2.12.sig.good root/gnu/hello/hello-2.12.tar.gz.sig &&
	grep "cannot fetch the key 0x$(cat other-fpr)" err &&
	grep "GET /pks/lookup" http.log &&
	test_cmp base.orig "$BASE"
'

test_expect_success GPG '-u --key-download=always: the key fetched, the definition updated' '
	cix refresh -u --gnu-url="$U/gnu" --keyring="$KR" --key-server="$U" \
		--key-download=always hello >out 2>err &&
	echo "hello: updated to 2.12" >expect && test_cmp expect out &&
	grep "key 0x$(cat fpr) fetched from $U into $KR" err &&
	gpg --no-default-keyring --keyring "$KR" --with-colons --list-keys >keylist &&
	grep "^fpr:.*:$(cat fpr):" keylist &&
	new=$(cix hash root/gnu/hello/hello-2.12.tar.gz) &&
	old=$(sed -n "/(define hello/,/base32/ s/.*(base32 \"\\([0-9a-z]*\\)\").*/\\1/p" base.orig) &&
	test -n "$old" && test "$old" != "$new" &&
	sed -e "/(define hello/,/base32/ s/(version \"2.10\")/(version \"2.12\")/" \
	    -e "s/(base32 \"$old\")/(base32 \"$new\")/" base.orig >expect &&
	test_cmp expect "$BASE" &&
	! test_cmp base.orig "$BASE" >/dev/null &&
	cix package -A "^hello\$" >pkg && grep "^hello	2.12	" pkg &&
	ls store | grep -- "-hello-2.12.tar.gz\$" >in-store &&
	cmp root/gnu/hello/hello-2.12.tar.gz "store/$(cat in-store)" &&
	cix refresh --gnu-url="$U/gnu" -s core >out && test_line_count = 0 out
'

test_expect_success GPG '-u: a tampered tarball is refused, the file left as it is' '
	printf x >>root/gnu/m4/m4-1.4.20.tar.xz &&
	cp "$M/m4.scm" m4.before &&
	test_expect_code 1 cix refresh -u --gnu-url="$U/gnu" --keyring="$KR" \
		--key-download=never m4 >out 2>err &&
	grep "m4: BAD signature on m4-1.4.20.tar.xz" err &&
	test_line_count = 0 out &&
	test_cmp m4.before "$M/m4.scm" &&
	! ls "$M" | grep -v "^[a-z0-9]*\.scm\$"
'

test_expect_success GPG '-u with a good signature and the key already there (gpg as --gpg)' '
	cp m4-1.4.20.good root/gnu/m4/m4-1.4.20.tar.xz &&
	cix refresh -u --gnu-url="$U/gnu" --keyring="$KR" --key-download=never --gpg=gpg m4 >out &&
	echo "m4: updated to 1.4.20" >expect && test_cmp expect out &&
	grep "(version \"1.4.20\")" "$M/m4.scm" &&
	grep "(base32 \"$(cix hash root/gnu/m4/m4-1.4.20.tar.xz)\")" "$M/m4.scm" &&
	test "$(diff m4.orig "$M/m4.scm" | grep -c "^>")" = 2 &&
	cix refresh --gnu-url="$U/gnu" >out && test_line_count = 0 out
'

test_expect_success GPG,SCRIPT '--key-download=interactive on a terminal: asked, no, then yes' '
	cp m4.orig "$M/m4.scm" && KR2=$TRASH_DIRECTORY/keys2/trusted.kbx &&
	cmd="cix refresh -u --gnu-url=$U/gnu --keyring=$KR2 --key-server=$U m4" &&
	test_must_fail on_terminal no "$cmd" >out &&
	grep "m4-1.4.20.tar.xz is signed by the key 0x$(cat fpr), which is not in $KR2" out &&
	grep "Fetch it from $U and add it? (yes/no)" out &&
	test_cmp m4.orig "$M/m4.scm" &&
	on_terminal yes "$cmd" >out &&
	grep "key 0x$(cat fpr) fetched from $U into $KR2" out &&
	grep "m4: updated to 1.4.20" out &&
	grep "(version \"1.4.20\")" "$M/m4.scm"
'

test_expect_success GPG 'a newer release without the compression the package uses' '
	tarball m4-1.4.21 gz &&
	listing m4 m4-1.4.20.tar.xz m4-1.4.21.tar.gz m4-1.4.21.tar.gz.sig &&
	cix refresh --gnu-url="$U/gnu" m4 >out &&
	grep " m4 would be upgraded from 1.4.20 to 1.4.21" out &&
	cp "$M/m4.scm" m4.before &&
	test_expect_code 1 cix refresh -u --gnu-url="$U/gnu" --keyring="$KR" m4 2>err &&
	grep "m4: release 1.4.21 has no m4-1.4.21.tar.xz" err &&
	test_cmp m4.before "$M/m4.scm"
'

test_expect_success 'usage errors' '
	test_expect_code 2 cix refresh -s everything 2>err &&
	grep "everything: invalid selection" err &&
	test_expect_code 2 cix refresh --key-download=sometimes 2>err &&
	grep "sometimes: invalid key download policy" err &&
	test_expect_code 2 cix refresh --gnu-url=ftp.gnu.org 2>err &&
	grep "must be a URL" err &&
	test_expect_code 2 cix refresh --key-server="gopher://x" 2>err &&
	test_expect_code 2 cix refresh --no-such-option 2>err &&
	test_expect_code 2 cix refresh -s 2>err &&
	grep "requires an argument" err &&
	cix refresh --help >out && grep -- "--key-download" out &&
	cix refresh --version >out && grep "^cix refresh (cix)" out
'

test_done
