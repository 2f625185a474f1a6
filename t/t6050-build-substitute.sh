#!/bin/sh
# t6050-build-substitute.sh - builds that fetch binaries: cix build, cix package and cix-daemon with substitute URLs, --fallback
test_description='a second machine with an empty store gets packages from cix publish of the first instead of building them, directly and through cix-daemon; tampered, untrusted or unreachable caches install nothing and --fallback builds; -n says what would be fetched; narinfo answers are remembered'
. "$(dirname "$0")/test-lib.sh"

. "$CIX_SRC_DIR/t/lib-subst.sh"

if [ "$(id -u)" = 0 ] && command -v runuser >/dev/null && runuser -u nobody -- true 2>/dev/null; then
	test_set_prereq NOBODY
fi

# A static copy of the cache (cix publish --cache), to tamper with.
static_cache () {
	rm -rf "$1" && cp -r c "$1"
}

narinfo_of () {
	echo "$1/$(basename "$2" | cut -c1-32).narinfo"
}

test_expect_success STATIC,CURL,MOUNTNS 'setup: a key, two packages, cix publish; the second machine trusts the key' '
	cix archive --generate-key=machine1-1 &&
	APP=$(cix build subapp) && LIB=$(cix build sublib) &&
	echo "$APP $LIB" >paths &&
	start_publish p1 --cache "$T/c" &&
	for p in $APP $LIB; do
		curl -sf "$(cat p1.url)/$(basename "$p" | cut -c1-32).narinfo" >/dev/null || return 1
	done &&
	mkdir -p conf2 &&
	cix archive --public-key | CIX_CONF_DIR=$T/conf2 cix archive --authorize
'

test_expect_success STATIC,CURL,MOUNTNS 'cix build -n says what would be fetched, and does nothing' '
	read APP LIB <paths && fresh2 &&
	on2 cix build -n --substitute-urls="$(cat p1.url)" subapp 2>err &&
	grep -q "these 2 paths would be fetched" err &&
	grep -q "$APP" err && grep -q "$LIB" err &&
	! grep -q "would be built" err &&
	test_must_fail on2 cix store --check-validity "$APP"
'

test_expect_success STATIC,CURL,MOUNTNS 'cix build fetches the package and its closure instead of building them' '
	read APP LIB <paths && fresh2 &&
	on2 cix build --substitute-urls="$(cat p1.url)" subapp >out 2>err &&
	test "$(cat out)" = "$APP" &&
	grep -q "substituting .*$APP" err && grep -q "substituting .*$LIB" err &&
	test "$(built2)" = 0 &&
	on2 cat "$APP/bin/subapp" >run && test "$(cat run)" = "subapp 2" &&
	on2 cix store --verify --check-contents &&
	on2 cix store -q --references "$APP" >refs2 &&
	cix store -q --references "$APP" >refs1 && test_cmp refs1 refs2
'

test_expect_success STATIC,CURL,MOUNTNS 'substitute-urls of cix.conf is the default; --no-substitutes builds' '
	read APP LIB <paths && fresh2 &&
	echo "substitute-urls = $(cat p1.url)" >conf2/cix.conf &&
	on2 cix build subapp >out &&
	test "$(cat out)" = "$APP" && test "$(built2)" = 0 &&
	fresh2 &&
	on2 cix build --no-substitutes subapp >out &&
	test "$(cat out)" = "$APP" && test "$(built2)" = 2 &&
	rm conf2/cix.conf
'

test_expect_success STATIC,CURL,MOUNTNS 'a tampered NAR: nothing installed, an error naming --fallback; --fallback builds' '
	read APP LIB <paths &&
	static_cache bad-nar && f=bad-nar/$(sed -n "s/^URL: //p" "$(narinfo_of bad-nar "$APP")") &&
	printf x | dd of="$f" bs=1 seek=100 conv=notrunc 2>/dev/null &&
	fresh2 &&
	test_must_fail on2 cix build --substitute-urls="file://$T/bad-nar" subapp 2>err &&
	grep -q "fallback" err &&
	test_must_fail on2 cix store --check-validity "$APP" &&
	test "$(built2)" = 0 &&
	on2 cix build --fallback --substitute-urls="file://$T/bad-nar" subapp >out 2>err &&
	test "$(cat out)" = "$APP" && test "$(built2)" = 1 &&
	on2 cat "$APP/bin/subapp" >run && test "$(cat run)" = "subapp 2" &&
	on2 cix store --verify --check-contents
'

test_expect_success STATIC,CURL,MOUNTNS 'a wrong signature, an unknown key, a narinfo of another path, a URL out of the cache or file:// (security 33): nothing installed; --fallback builds' '
	read APP LIB <paths &&
	static_cache bad-sig &&
	other=$(grep "^Sig: " "$(narinfo_of bad-sig "$LIB")") &&
	sed -i "s|^Sig: .*|$other|" "$(narinfo_of bad-sig "$APP")" &&
	static_cache other-path &&
	cp "$(narinfo_of other-path "$LIB")" "$(narinfo_of other-path "$APP")" &&
	static_cache escape &&
	sed -i "s|^URL: .*|URL: ../c/$(sed -n "s/^URL: //p" "$(narinfo_of c "$APP")")|" \
		"$(narinfo_of escape "$APP")" &&
	static_cache file-url &&
	sed -i "s|^URL: .*|URL: file://$T/c/$(sed -n "s/^URL: //p" "$(narinfo_of c "$APP")")|" \
		"$(narinfo_of file-url "$APP")" &&
	static_cache unknown-key &&
	for cache in bad-sig other-path escape file-url unknown-key; do
		fresh2 && mv conf2/acl acl.saved &&
		if [ $cache != unknown-key ]; then cp acl.saved conf2/acl; fi &&
		test_must_fail on2 cix build --substitute-urls="file://$T/$cache" subapp 2>err &&
		grep -q "fallback" err &&
		test_must_fail on2 cix store --check-validity "$APP" &&
		test "$(built2)" = 0 &&
		on2 cix build --fallback --substitute-urls="file://$T/$cache" subapp >out 2>err &&
		test "$(cat out)" = "$APP" && test "$(built2)" -ge 1 &&
		mv acl.saved conf2/acl || return 1
	done
'

test_expect_success STATIC,CURL,MOUNTNS 'an unreachable cache is a quick miss: the next cache is used, or the package built' '
	read APP LIB <paths && fresh2 &&
	on2 timeout 60 cix build --substitute-urls="http://127.0.0.1:1 $(cat p1.url)" subapp \
		>out 2>err &&
	test "$(cat out)" = "$APP" && test "$(built2)" = 0 &&
	grep -q "substitutes of .http://127.0.0.1:1. are not used" err &&
	fresh2 &&
	on2 timeout 60 cix build --substitute-urls="http://127.0.0.1:1" subapp >out 2>err &&
	test "$(cat out)" = "$APP" && test "$(built2)" = 2
'

test_expect_success STATIC,CURL,MOUNTNS '--max-jobs=0: fetched, or refused when it would have to build' '
	read APP LIB <paths && fresh2 &&
	on2 cix build -j0 --substitute-urls="$(cat p1.url)" subapp >out &&
	test "$(cat out)" = "$APP" &&
	fresh2 &&
	test_must_fail on2 cix build --max-jobs=0 --no-substitutes subapp 2>err &&
	grep -q "builds are disabled" err &&
	test "$(built2)" = 0
'

test_expect_success STATIC,CURL,MOUNTNS 'a miss is remembered (narinfo-cache-negative-ttl), not with 0' '
	read APP LIB <paths && mkdir -p later && cp c/nix-cache-info later/ && fresh2 &&
	on2 cix build -n --substitute-urls="file://$T/later" subapp 2>err &&
	grep -q "would be built" err &&
	cp -r c/* later/ &&
	on2 cix build -n --substitute-urls="file://$T/later" subapp 2>err &&
	grep -q "would be built" err &&
	echo "narinfo-cache-negative-ttl = 0" >conf2/cix.conf &&
	on2 cix build -n --substitute-urls="file://$T/later" subapp 2>err &&
	grep -q "paths would be fetched" err &&
	rm conf2/cix.conf
'

test_expect_success STATIC,CURL,MOUNTNS 'through cix-daemon: its caches, -n, and cix package installs without building' '
	read APP LIB <paths && fresh2 &&
	echo "--substitute-urls=$(cat p1.url)" >dopts &&
	on2d cix build -n subapp 2>err &&
	grep -q "these 2 paths would be fetched" err &&
	on2d cix build subapp >out 2>err &&
	test "$(cat out)" = "$APP" && test "$(built2)" = 0 &&
	grep -q "substituting .*$APP" err &&
	fresh2 &&
	on2d cix package -p "$T/prof2" -i subapp 2>err &&
	on2 cat prof2/bin/subapp >run && test "$(cat run)" = "subapp 2" &&
	on2 cix store --verify --check-contents
'

test_expect_success STATIC,CURL,MOUNTNS 'through cix-daemon: --fallback, --no-substitutes, and no caches of its own' '
	read APP LIB <paths && fresh2 &&
	echo "--substitute-urls=file://$T/bad-nar" >dopts &&
	test_must_fail on2d cix build subapp 2>err && grep -q "fallback" err &&
	on2d cix build --fallback subapp >out && test "$(cat out)" = "$APP" &&
	fresh2 && echo "--substitute-urls=$(cat p1.url)" >dopts &&
	on2d cix build --no-substitutes subapp >out && test "$(built2)" = 2 &&
	fresh2 && echo "--no-substitutes" >dopts &&
	on2d cix build -n subapp 2>err && grep -q "would be built" err
'

test_expect_success STATIC,CURL,MOUNTNS,NOBODY 'an untrusted user chooses only among the daemon caches (no file://)' '
	read APP LIB <paths && fresh2 &&
	chmod 755 "$T" && chmod -R a+rX "$T/pkgs" "$T/c" &&
	echo "--substitute-urls=$(cat p1.url)" >dopts &&
	on2d runuser -u nobody -- env HOME=/nonexistent CIX_DAEMON_SOCKET="$T/state2/sock" \
		XDG_CACHE_HOME=$T/cache-nobody "$CIX_BUILD_DIR/cix" build -n \
		--substitute-urls="file://$T/c" subapp 2>err &&
	grep -q "ignoring substitute URL .file://$T/c." err &&
	grep -q "would be built" err &&
	on2d runuser -u nobody -- env HOME=/nonexistent CIX_DAEMON_SOCKET="$T/state2/sock" \
		XDG_CACHE_HOME=$T/cache-nobody "$CIX_BUILD_DIR/cix" build -n \
		--substitute-urls="$(cat p1.url)" subapp 2>err &&
	grep -q "these 2 paths would be fetched" err
'

test_expect_success STATIC,CURL,MOUNTNS,NIX 'Nix 2.8 substitutes the closure from cix publish' '
	read APP LIB <paths && rm -rf store3 nix3 && mkdir -p store3 &&
	NIX_STORE_DIR=$CIX_STORE_DIR NIX_STATE_DIR=$T/nix3/state NIX_LOG_DIR=$T/nix3/log \
	NIX_CONFIG="sandbox = false
build-users-group =" \
	unshare -m --propagation private sh -c "mount --bind $T/store3 $CIX_STORE_DIR &&
		nix-store -r $APP --option substituters $(cat p1.url) \
			--option trusted-public-keys $(cat conf/signing-key.pub) >$T/nixout &&
		nix-store --verify-path $APP $LIB && cat $APP/bin/subapp >$T/nixrun" &&
	test "$(cat nixout)" = "$APP" && test "$(cat nixrun)" = "subapp 2"
'

# start_httpd DIR: a plain server of the files of DIR (its port in httpd.port).
start_httpd () {
	rm -f httpd.port
	"$CIX_BUILD_DIR/bench/httpd" -d "$1" -p httpd.port 2>httpd.err &
	echo $! >httpd.pid
	for _ in $(seq 100); do test -s httpd.port && break; sleep 0.1; done
	test -s httpd.port
}

test_expect_success STATIC,CURL,MOUNTNS 'cix archive --to-cache writes a cache a plain file server serves' '
	read APP LIB <paths &&
	test_expect_code 2 cix archive --to-cache="$T/tc" 2>err && grep -q "needs store paths" err &&
	cix archive --to-cache="$T/tc" -r -C xz "$APP" >written &&
	test_line_count = 2 written && test "$(sed -n 2p written)" = "$APP" &&
	test -f tc/nix-cache-info && ls tc/nar/*.nar.xz >/dev/null &&
	grep -q "^Sig: machine1-1:" "$(narinfo_of tc "$APP")" &&
	ls -il --time-style=full-iso tc/nar >before &&
	cix archive --to-cache="$T/tc" -r -C xz "$APP" >again &&
	test_cmp written again &&
	ls -il --time-style=full-iso tc/nar >after &&
	test_cmp before after &&
	start_httpd "$T/tc" &&
	fresh2 &&
	on2 cix build --substitute-urls="http://127.0.0.1:$(cat httpd.port)" subapp >out 2>err &&
	kill "$(cat httpd.pid)" &&
	test "$(cat out)" = "$APP" && test "$(built2)" = 0 &&
	on2 cix store --verify --check-contents
'

test_expect_success STATIC,CURL 'the publisher is stopped' '
	stop_publish p1
'

test_done
