#!/bin/sh
# t5103-gc-hostile-roots.sh - cix gc against the links a user plants, and a client that leaves
# SPDX-License-Identifier: GPL-3.0-or-later
test_description='an unprivileged user fills their profile directory with links to itself, loops, / and /etc, long chains: cix gc (locally and through cix-daemon) ends at once, follows none of them into a directory, and keeps what real roots keep; a collection whose client is killed stops and releases gc.lock'
. "$(dirname "$0")/test-lib.sh"

PATH=$CIX_BUILD_DIR/bench:$PATH
T=$TRASH_DIRECTORY
test_private_store
test_private_conf 'allowed-users = *' 'trusted-users = root'
SD=$CIX_STORE_DIR
SOCK=$T/sock
PU=$CIX_STATE_DIR/profiles/per-user
NB=$PU/nobody

[ "$(id -u)" = 0 ] && command -v runuser >/dev/null && id nobody >/dev/null 2>&1 &&
	command -v flock >/dev/null && test_set_prereq NOBODY

# The daemon's workers end with the test (a collector that missed its
# client's end would run on): the pattern names this test's socket only.
trap 'pkill -9 -f -- "cix-daemon --listen $SOCK" 2>/dev/null' EXIT

# Every command ends within 60 s: a collector that never ends, or never
# releases gc.lock, fails the test instead of hanging it.
cix () { timeout 60 "$CIX_BUILD_DIR/cix" "$@"; }
# nb CMD...: CMD as nobody, a client of the test's daemon.
nb () {
	runuser -u nobody -- timeout 60 \
		env PATH="$PATH" HOME="$T/nb" CIX_DAEMON_SOCKET="$SOCK" "$@"
}
# dcix ARG...: cix as root, through the test's daemon.
dcix () { CIX_DAEMON_SOCKET="$SOCK" cix "$@"; }
# p N: the Nth path imported.
p () { sed -n "${1}p" "$T/imported"; }
# closure N...: the closures of those paths, sorted.
closure () { for n_ in "$@"; do cix store -qR "$(p $n_)" || return 1; done | sort -u; }

test_expect_success NOBODY 'setup: a daemon, nobody'"'"'s profile directory, 300 paths and real roots' '
	chmod 755 "$T" && mkdir nb && chown nobody nb &&
	test_start_daemon "$SOCK" &&
	nb cix gc --list-roots >nbroots && test_line_count = 0 nbroots &&
	test "$(stat -c %U "$NB")" = nobody &&
	test "$(readlink "$CIX_STATE_DIR/gcroots/profiles")" = "$CIX_STATE_DIR/profiles" &&
	gen-closure "$SD" 300 3 2>/dev/null >s.exp &&
	cix store --import <s.exp >imported && test_line_count = 300 imported &&
	ln -s "$(p 100)" state/gcroots/top &&
	nb ln -s "$(p 200)" "$NB/cix-profile-1-link" &&
	nb ln -s cix-profile-1-link "$NB/cix-profile" &&
	mkdir -p state/gcroots/auto && nb ln -s "$(p 250)" nb/result &&
	ln -s "$T/nb/result" state/gcroots/auto/result-root &&
	closure 100 200 250 >expect.live &&
	sort imported | comm -23 - expect.live >expect.dead &&
	test $(wc -l <expect.dead) -gt 10 &&
	cix gc --list-live >live && test_cmp expect.live live
'

test_expect_success NOBODY 'nobody plants self links, loops, links to / and /etc, a long chain' '
	for i in 1 2 3 4 5 6 7 8; do nb ln -s "$NB" "$NB/self$i" || return 1; done &&
	nb ln -s . "$NB/dot" && nb ln -s .. "$NB/up" &&
	nb ln -s loop-b "$NB/loop-a" && nb ln -s loop-a "$NB/loop-b" &&
	nb ln -s / "$NB/slash" && nb ln -s /etc "$NB/etc" &&
	nb ln -s "$NB" "$NB/chain40" &&
	for i in $(seq 39 -1 0); do nb ln -s "chain$((i + 1))" "$NB/chain$i" || return 1; done &&
	nb mkdir -p "$NB/d/d/d" && nb ln -s ../../.. "$NB/d/d/d/back" &&
	for i in 1 2 3 4; do nb ln -s "$NB" "$NB/d/d/self$i" || return 1; done
'

# Directories the links below lead to, each with a link to a dead path:
# were one followed into, that path would be alive.
test_expect_success NOBODY 'nobody links to directories with links to the store in them' '
	mkdir canary && ln -s "$(p 290)" canary/keep && echo keep >canary/file &&
	nb ln -s "$T/canary" "$NB/canary" &&
	mkdir state/extra && ln -s "$(p 295)" state/extra/keep &&
	nb ln -s "$CIX_STATE_DIR/extra" "$NB/extra" &&
	nb ln -s "$T/canary" nb/dir && ln -s "$T/nb/dir" state/gcroots/auto/dir-root &&
	ln -s "$CIX_STATE_DIR/extra" state/gcroots/auto/extra-root &&
	grep -qx "$(p 290)" expect.dead && grep -qx "$(p 295)" expect.dead
'

test_expect_success NOBODY 'cix gc --list-dead and --list-live end at once; only real roots count' '
	cix gc --list-dead >dead && test_cmp expect.dead dead &&
	cix gc --list-live >live && test_cmp expect.live live &&
	dcix gc --list-live >live && test_cmp expect.live live
'

test_expect_success NOBODY 'the roots listed are the real ones, each link once' '
	cix gc --list-roots >roots &&
	cat >expect <<-EOF &&
	$CIX_STATE_DIR/gcroots/top
	$NB/cix-profile-1-link
	$T/nb/result
	EOF
	sort expect >expect.sorted && test_cmp expect.sorted roots &&
	nb cix gc --list-roots >nbroots &&
	printf "%s\n" "$NB/cix-profile-1-link" "$T/nb/result" | sort >expect &&
	test_cmp expect nbroots
'

test_expect_success NOBODY 'nobody collects through the daemon: the dead go, nothing else is touched' '
	find "$NB" "$T/canary" "$T/nb" state/extra | sort >before &&
	nb cix gc 2>err &&
	for q in $(cat expect.live); do test -e "$q" || return 1; done &&
	for q in $(cat expect.dead); do test_path_is_missing "$q" || return 1; done &&
	find "$NB" "$T/canary" "$T/nb" state/extra | sort >after && test_cmp before after &&
	test "$(cat canary/file)" = keep && test -f /etc/passwd &&
	cix gc --list-dead >dead && test_line_count = 0 dead &&
	cix store --verify --check-contents
'

test_expect_success NOBODY 'root collects, locally and through the daemon' '
	cix store --import <s.exp >/dev/null &&
	dcix gc 2>err &&
	for q in $(cat expect.dead); do test_path_is_missing "$q" || return 1; done &&
	cix store --import <s.exp >/dev/null &&
	cix gc 2>err &&
	for q in $(cat expect.dead); do test_path_is_missing "$q" || return 1; done &&
	cix gc --list-live >live && test_cmp expect.live live
'

# holds_lock: is gc.lock held by a collector (exclusively) now?
# The client is killed once its collector has begun to delete.
holds_lock () { ! flock -n -s "$CIX_STATE_DIR/gc.lock" true; }

test_expect_success NOBODY 'a collection whose client is killed stops, and releases gc.lock' '
	for seed in $(seq 10 19); do
		gen-closure "$SD" 1000 $seed 2>/dev/null | cix store --import >>many || return 1
	done &&
	test_line_count = 10000 many &&
	n=$(ls store | wc -l) &&
	{ CIX_DAEMON_SOCKET="$SOCK" "$CIX_BUILD_DIR/cix" gc >killed.out 2>&1 & } &&
	pid=$! &&
	i=0 && while kill -0 $pid 2>/dev/null && test $i -lt 600; do
		holds_lock && test $(ls store | wc -l) -lt $n && break
		sleep 0.05; i=$((i + 1))
	done &&
	holds_lock && kill -9 $pid && { wait $pid; true; } &&
	echo added >added && dcix store --add added &&
	! holds_lock &&
	cix gc --list-dead >dead && say "$(wc -l <dead) dead paths left" &&
	test $(wc -l <dead) -gt 0 &&
	grep "cancelled" daemon.log &&
	cix store --verify --check-contents &&
	for q in $(cat expect.live); do test -e "$q" || return 1; done
'

test_expect_success NOBODY 'the next collection deletes what the stopped one left' '
	dcix gc 2>err &&
	cix gc --list-dead >dead && test_line_count = 0 dead &&
	for q in $(head -100 many); do test_path_is_missing "$q" || return 1; done &&
	cix gc --list-live >live && test_cmp expect.live live &&
	ls store | grep -v "\.lock$" | sed "s|^|$SD/|" | sort >present && test_cmp live present
'

test_done
