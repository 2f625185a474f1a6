#!/bin/sh
# t6060-hello-substitute.sh - GNU Hello installed on a second machine from cix publish of the first, nothing built
# SPDX-License-Identifier: GPL-3.0-or-later
test_description='the first machine builds GNU Hello from source and publishes its store; the second (an empty store at the same path, its own cix-daemon) installs Hello with cix package without building anything, and runs it; with the cache gone it would have to build'
real_home=${HOME:-/root}
. "$(dirname "$0")/test-lib.sh"
. "$CIX_SRC_DIR/t/lib-bootstrap.sh"
. "$CIX_SRC_DIR/t/lib-subst.sh"

packages_setup hello

test_expect_success PACKAGES,CURL,MOUNTNS 'the first machine builds GNU Hello and publishes its store' '
	cix store --add-fixed sha256 "$BOOT/bootstrap-tools-gnu.tar.xz" >/dev/null &&
	cix store --add "$BOOT/busybox" >/dev/null &&
	HELLO=$(cix build hello) && echo "$HELLO" >hello.path &&
	"$HELLO/bin/hello" >greeting && test "$(cat greeting)" = "Hello, world!" &&
	cix archive --generate-key=machine1-1 &&
	start_publish p1 &&
	mkdir -p conf2 &&
	cix archive --public-key | CIX_CONF_DIR=$T/conf2 cix archive --authorize
'

test_expect_success PACKAGES,CURL,MOUNTNS 'the second machine: -n says it would fetch the closure, build nothing' '
	fresh2 && echo "--substitute-urls=$(cat p1.url)" >dopts &&
	# Not even the bootstrap files: evaluating needs the items, which the
	# daemon fetches from the cache too (the second machine has no
	# STATE/bootstrap).
	test ! -e state2/bootstrap &&
	on2d cix build -n hello 2>n.out &&
	grep -q "paths would be fetched" n.out &&
	grep -q "$(cat hello.path)" n.out &&
	grep -q -- "-bootstrap-tools-0$" n.out &&
	! grep -q "would be built" n.out
'

test_expect_success PACKAGES,CURL,MOUNTNS 'cix package -i hello through its daemon: fetched, not built, and it runs' '
	on2d cix package -p "$T/prof2" -i hello 2>install.log &&
	grep -q "substituting .*$(cat hello.path)" install.log &&
	test -z "$(find log2 -type f -name "*hello-2.10*")" &&
	test -z "$(find log2 -type f -name "*bootstrap-tools*")" &&
	on2 "$T/prof2/bin/hello" >greeting2 &&
	test "$(cat greeting2)" = "Hello, world!" &&
	on2 cix store --verify --check-contents
'

test_expect_success PACKAGES,CURL,MOUNTNS 'cix store --substitute: the closure, paths that refer to themselves included' '
	HELLO=$(cat hello.path) && fresh2 &&
	cix store -q --references "$HELLO" | grep -qx "$HELLO" &&
	on2 cix store --substitute "$(cat p1.url)" "$HELLO" >out &&
	test "$(cat out)" = "$HELLO" &&
	on2 cix store -q --references "$HELLO" | grep -qx "$HELLO" &&
	on2 cix store --verify --check-contents &&
	on2 "$HELLO/bin/hello" >greeting3 && test "$(cat greeting3)" = "Hello, world!"
'

test_expect_success PACKAGES,CURL 'the publisher is stopped' '
	stop_publish p1
'

test_done
