#!/bin/sh
# t2035-kept-builds.sh - the build directories that -K keeps do not pile up
# SPDX-License-Identifier: GPL-3.0-or-later
test_description='a failed build kept with -K stays in STATE/builds/kept-*, dated from its keeping; kept directories older than CIX_KEPT_BUILDS_MAX_AGE (7 days) go when a build starts, and only the CIX_KEPT_BUILDS_MAX (20) newest stay'
. "$(dirname "$0")/test-lib.sh"

test_private_store
# The builders are /bin/sh scripts: let the sandbox see the host's programs.
test_sandbox_host_paths

# pkg FILE VERSION SCRIPT: a package file whose build runs SCRIPT.
pkg () {
	cat >"$1" <<-EOF
	(use-modules (guix packages) (guix build-system trivial))
	(package
	  (name "k") (version "$2")
	  (build-system trivial-build-system)
	  (arguments '(#:implicit-inputs? #f
	               #:builder ("/bin/sh" "-c" "echo left >kept-file; $3")))
	  (synopsis "s") (description "d") (home-page #f) (license #f))
	EOF
}

# fake NAME DATE: a kept directory as an earlier -K left it, dated DATE.
fake () {
	mkdir -p "state/builds/$1/sub" && echo x >"state/builds/$1/sub/f" &&
	chmod 500 "state/builds/$1/sub" &&
	touch -d "$2" "state/builds/$1"
}

kept () {
	ls state/builds | grep "^kept-" | sort
}

test_expect_success 'a failed build with -K: its directory kept, dated now' '
	pkg fail1.scm 1 "exit 3" &&
	test_expect_code 1 cix build -K -f fail1.scm 2>err &&
	grep -q "build directory kept" err &&
	test "$(kept | wc -l)" = 1 &&
	d=state/builds/$(kept) && test -f "$d/kept-file" &&
	test -n "$(find "$d" -maxdepth 0 -newermt "1 hour ago")"
'

test_expect_success 'kept directories older than 7 days go when a build starts; younger ones stay' '
	fake kept-old "8 days ago" && fake kept-young "6 days ago" &&
	pkg ok.scm 1 "echo ok >\$out" && cix build -f ok.scm >/dev/null &&
	test_path_is_missing state/builds/kept-old &&
	test -d state/builds/kept-young &&
	test "$(kept | wc -l)" = 2
'

test_expect_success 'CIX_KEPT_BUILDS_MAX_AGE sets the age, in seconds' '
	fake kept-hour "2 hours ago" &&
	CIX_KEPT_BUILDS_MAX_AGE=3600 cix build -f ok.scm >/dev/null &&
	test_path_is_missing state/builds/kept-hour &&
	test_path_is_missing state/builds/kept-young &&
	test "$(kept | wc -l)" = 1
'

test_expect_success 'keeping one more: only the CIX_KEPT_BUILDS_MAX newest stay, the oldest go' '
	fake kept-a "3 days ago" && fake kept-b "2 days ago" && fake kept-c "1 day ago" &&
	test "$(kept | wc -l)" = 4 &&
	pkg fail2.scm 2 "exit 4" &&
	test_expect_code 1 env CIX_KEPT_BUILDS_MAX=3 cix build -K -f fail2.scm 2>err &&
	grep -q "build directory kept" err &&
	test "$(kept | wc -l)" = 3 &&
	test -d state/builds/kept-c &&
	test_path_is_missing state/builds/kept-a &&
	test_path_is_missing state/builds/kept-b
'

test_expect_success 'kept-builds-max-age and kept-builds-max in cix.conf; the environment wins' '
	fake kept-conf "3 hours ago" &&
	printf "kept-builds-max-age = 2h\n" >conf &&
	CIX_CONF_FILE=$PWD/conf cix build -f ok.scm >/dev/null &&
	test_path_is_missing state/builds/kept-conf &&
	test "$(kept | wc -l)" -ge 1 &&
	fake kept-env "3 hours ago" &&
	CIX_CONF_FILE=$PWD/conf CIX_KEPT_BUILDS_MAX_AGE=86400 cix build -f ok.scm >/dev/null &&
	test -d state/builds/kept-env &&
	printf "kept-builds-max = 1\n" >conf &&
	CIX_CONF_FILE=$PWD/conf cix build -f ok.scm >/dev/null &&
	test "$(kept | wc -l)" = 1 &&
	printf "kept-builds-max = many\n" >conf &&
	test_must_fail env CIX_CONF_FILE=$PWD/conf cix build -K -f fail2.scm 2>err &&
	grep "invalid value for kept-builds-max" err
'

test_done
