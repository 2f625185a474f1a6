#!/bin/sh
# t2030-build-users.sh - builds as build users, and their build directories
# SPDX-License-Identifier: GPL-3.0-or-later
test_description='build users: who runs a build, who can reach its directory, -K hand-over'
. "$(dirname "$0")/test-lib.sh"

test_private_store
test_sandbox_host_paths
test_nix_oracle

# A group of two build users of our own, removed at the end.
G=cixt$$
CIX_BUILD_USERS_GROUP=$G
export CIX_BUILD_USERS_GROUP
if [ "$(id -u)" = 0 ] && command -v useradd >/dev/null && command -v runuser >/dev/null &&
   groupadd -r $G 2>/dev/null; then
	trap 'userdel ${G}a 2>/dev/null; userdel ${G}b 2>/dev/null; groupdel $G 2>/dev/null' EXIT
	for u in a b; do
		useradd -r -g $G -G $G -M -N -d /var/empty -s /usr/sbin/nologin $G$u || exit 1
	done
	UA=$(id -u ${G}a) UB=$(id -u ${G}b)
	test_set_prereq BUILDUSERS
fi
# The storeless helper for Nix's side: derivations only, never built by it.
chmod 755 "$TRASH_DIRECTORY"

# instantiate NAME FILE: the .drv of attribute NAME of FILE, imported into cix
instantiate () {
	nix-instantiate --store "$N" "$2" -A "$1" 2>/dev/null >"$1.drv" &&
	nixs --export $(nixs -qR $(cat "$1.drv")) | cix store --import >/dev/null
}

# uid_of MARKER: the uid of the process whose command line holds MARKER
uid_of () {
	for p in /proc/[0-9]*; do
		if grep -qs "$1" $p/cmdline; then
			awk '/^Uid:/ { print $2 }' $p/status 2>/dev/null && return 0
		fi
	done
	return 1
}

# pids_as UID MARKER: the processes of UID whose command line holds MARKER
pids_as () {
	for p in /proc/[0-9]*; do
		grep -qs "$2" $p/cmdline &&
		awk -v u="$1" '/^Uid:/ { exit !($2 == u) }' $p/status 2>/dev/null &&
		echo ${p#/proc/}
	done
	return 0
}

test_expect_success NIX,BUILDUSERS 'derivations' '
	cat >d.nix <<-\EOF
	let d = name: script: derivation { inherit name; system = "x86_64-linux"; builder = "/bin/sh";
	      args = [ "-c" script ]; }; in {
	  who = d "who" "/bin/sleep 2.9101; /bin/mkdir $out; echo x > $out/f";
	  p1 = d "p1" "echo start-1 $(/bin/date +%s%N); /bin/sleep 1.9201; echo > $out";
	  p2 = d "p2" "echo start-2 $(/bin/date +%s%N); /bin/sleep 1.9202; echo > $out";
	  p3 = d "p3" "echo start-3 $(/bin/date +%s%N); /bin/sleep 1.9203; echo > $out";
	  closed = d "closed" "/bin/chmod 777 /build; echo x > /build/f; /bin/chmod 700 /build/.. && echo CHMODDED; /bin/sleep 2.9301; echo > $out";
	  kept = d "kept" "/bin/chmod 777 /build; echo x > /build/f; /bin/ln /build/f /build/g; /bin/mkdir /build/d; /bin/ln -s /etc/shadow /build/s; exit 1";
	  plain = d "plain" "echo plain > $out";
	  fresh = d "fresh" "echo fresh > $out";
	  g1 = d "g1" "echo g1 $(/bin/date +%s%N) 3.9401; i=0; while [ ! -e /build/go ] && [ $i -lt 300 ]; do /bin/sleep 0.05; i=$((i + 1)); done; echo > $out";
	  g2 = derivation { name = "g2"; system = "x86_64-linux"; builder = "/bin/sh";
	    args = [ "-c" "echo g2 > $out" ]; after = (d "g1" "echo g1 $(/bin/date +%s%N) 3.9401; i=0; while [ ! -e /build/go ] && [ $i -lt 300 ]; do /bin/sleep 0.05; i=$((i + 1)); done; echo > $out"); };
	  links = d "links" "/bin/mkdir $out; echo x > $out/a; /bin/ln $out/a $out/b; /bin/mkdir $out/d";
	}
	EOF
	for x in who p1 p2 p3 closed kept plain fresh g1 g2 links; do
		instantiate $x d.nix || return 1
	done
'

test_expect_success NIX,BUILDUSERS 'a build runs as one of the build users; its output is root'"'"'s' '
	{ cix store -r $(cat who.drv) >who.out 2>who.log & } &&
	for i in $(seq 50); do uid=$(uid_of 2.9101) && break; sleep 0.1; done &&
	wait &&
	echo "$uid" && { test "$uid" = $UA || test "$uid" = $UB; } &&
	out=$(cat who.out) &&
	test "$(stat -c "%u %g %a" "$out" "$out/f")" = "$(printf "0 0 555\n0 0 444")"
'

test_expect_success NIX,BUILDUSERS 'hard links inside an output made by a build user stay, all root'"'"'s' '
	cix store -r $(cat links.drv) >links.out &&
	out=$(cat links.out) &&
	test "$(stat -c "%i" "$out/a")" = "$(stat -c "%i" "$out/b")" &&
	test "$(stat -c "%u %h" "$out" "$out/a" "$out/d")" = "$(printf "0 3\n0 2\n0 2")"
'

test_expect_success NIX,BUILDUSERS 'two builds at once have two users; a third waits for one' '
	{ cix store -r -j 3 $(cat p1.drv p2.drv p3.drv) >p.out 2>p.log & } &&
	pid=$! &&
	: >seen &&
	while kill -0 $pid 2>/dev/null; do
		for m in 1 2 3; do
			u=$(uid_of 1.920$m) && echo "$m $u" >>seen
		done
		sleep 0.05
	done &&
	wait $pid &&
	test_line_count = 3 p.out &&
	cat p.log && sort -u seen &&
	# Every build had a build user of the group...
	test -z "$(awk -v a=$UA -v b=$UB "\$2 != a && \$2 != b" seen)" &&
	# ...the two that started first, together, two different ones...
	sed -n "s/^start-\\([123]\\) \\([0-9]*\\)$/\\1 \\2/p" p.log | sort -k2 -n >starts &&
	test_line_count = 3 starts &&
	a=$(sed -n "1s/ .*//p" starts) && b=$(sed -n "2s/ .*//p" starts) &&
	u1=$(awk "\$1 == $a { print \$2; exit }" seen) &&
	u2=$(awk "\$1 == $b { print \$2; exit }" seen) &&
	test -n "$u1" && test -n "$u2" && test "$u1" != "$u2" &&
	# ...and the third started once one of them had ended.
	awk "NR <= 2 { first = first ? first : \$2 } NR == 3 { exit !(\$2 - first > 1500000000) }" starts
'

test_expect_success NIX,BUILDUSERS 'builds as build users at once: each in a root of its own, root'"'"'s, read-only' '
	cat >many.nix <<-\EOF &&
	builtins.genList (i: derivation {
	  name = "m${toString i}"; system = "x86_64-linux"; builder = "/bin/sh";
	  args = [ "-c" "{ /usr/bin/stat -c %u:%a /etc/passwd /; /bin/touch /x /etc/x 2>/dev/null && echo WROTE; true; } > $out" ];
	}) 40
	EOF
	nix-instantiate --store "$N" many.nix >many.drvs 2>/dev/null &&
	nixs --export $(cat many.drvs) | cix store --import >/dev/null &&
	cix store -r -j 2 $(cat many.drvs) >many.out &&
	test_line_count = 40 many.out &&
	printf "65534:444\n65534:750\n" >expect &&
	for o in $(cat many.out); do
		test_cmp expect $o || return 1
	done
'

test_expect_success NIX,BUILDUSERS 'the processes of the build user taken are killed first, only its' '
	{ runuser -u ${G}a -- /bin/sleep 301.7 & } &&
	{ runuser -u ${G}b -- /bin/sleep 302.7 & } &&
	for i in $(seq 50); do
		test -n "$(pids_as $UA 301.7)" && test -n "$(pids_as $UB 302.7)" && break
		sleep 0.1
	done &&
	test -n "$(pids_as $UA 301.7)" && b=$(pids_as $UB 302.7) && test -n "$b" &&
	cix store -r $(cat fresh.drv) &&
	# ${G}a, the first free member, built: its process is gone, at once.
	test -z "$(pids_as $UA 301.7)" &&
	test "$(pids_as $UB 302.7)" = "$b" &&
	kill -9 $b &&
	wait
'

test_expect_success NIX,BUILDUSERS 'a change of the group counts from the next build on' '
	# g2 comes after g1, which waits for /build/go: root joins the group meanwhile.
	{ cix store -r $(cat g2.drv) >g.out 2>g.err & } &&
	pid=$! &&
	for i in $(seq 200); do
		test -d state/builds/build-* 2>/dev/null && break
		sleep 0.05
	done &&
	gpasswd -a root $G >/dev/null &&
	for b in state/builds/build-*; do touch $b/go; done &&
	ret=0 &&
	{ wait $pid || ret=$?; } &&
	gpasswd -d root $G >/dev/null &&
	test $ret != 0 &&
	grep "privileged: refusing it" g.err &&
	cix store -r $(cat g2.drv)
'

test_expect_success NIX,BUILDUSERS 'two stores of the machine never take one build user at once' '
	# A second store holds both build users with two slow builds...
	B=$TRASH_DIRECTORY/second &&
	NB="local?store=$B/store&real=$B/nixreal&state=$B/nixstate&log=$B/nixlog" &&
	cat >slow.nix <<-\EOF &&
	let d = name: script: derivation { inherit name; system = "x86_64-linux"; builder = "/bin/sh";
	      args = [ "-c" script ]; }; in {
	  h1 = d "h1" "/bin/sleep 2.9501; echo > $out";
	  h2 = d "h2" "/bin/sleep 2.9502; echo > $out";
	  mine = d "mine" "echo mine > $out";
	}
	EOF
	nix-instantiate --store "$NB" slow.nix -A h1 >h1.drv 2>/dev/null &&
	nix-instantiate --store "$NB" slow.nix -A h2 >h2.drv 2>/dev/null &&
	nix-store --store "$NB" --export $(nix-store --store "$NB" -qR $(cat h1.drv h2.drv)) |
		CIX_STORE_DIR=$B/store CIX_STATE_DIR=$B/state CIX_LOG_DIR=$B/log cix store --import >/dev/null &&
	instantiate mine slow.nix &&
	{ CIX_STORE_DIR=$B/store CIX_STATE_DIR=$B/state CIX_LOG_DIR=$B/log \
		cix store -r -j 2 $(cat h1.drv h2.drv) >h.out 2>h.log & } &&
	pid=$! &&
	for i in $(seq 100); do
		uid_of 2.9501 >/dev/null && uid_of 2.9502 >/dev/null && break
		sleep 0.1
	done &&
	uid_of 2.9501 && uid_of 2.9502 &&
	# ...then this store builds: it waits for one of them, killing nothing.
	cix store -r $(cat mine.drv) >mine.out &&
	wait $pid &&
	test_line_count = 2 h.out &&
	test "$(cat $(cat mine.out))" = mine
'

test_expect_success NIX,BUILDUSERS 'nobody else can reach a build directory (doc/security.md items 6, 12)' '
	{ cix store -r $(cat closed.drv) >closed.out 2>closed.log & } &&
	for i in $(seq 50); do uid=$(uid_of 2.9301) && break; sleep 0.1; done &&
	dir=$(ls -d state/builds/build-*) &&
	test "$(stat -c %a state/builds)" = 700 &&
	test_must_fail runuser -u nobody -- ls "$dir" 2>/dev/null &&
	test_must_fail runuser -u nobody -- cat "$dir/f" 2>/dev/null &&
	test_must_fail runuser -u nobody -- touch "$dir/g" 2>/dev/null &&
	test_must_fail runuser -u ${G}a -- cat "$dir/f" 2>/dev/null &&
	wait &&
	! grep CHMODDED closed.log
'

test_expect_success NIX,BUILDUSERS 'a failed -K build is handed over safely (items 4, 18)' '
	shadow=$(stat -c "%u %g %a" /etc/shadow) &&
	test_expect_code 1 cix store -r -K $(cat kept.drv) 2>err &&
	kept=$(sed -n "s/.*build directory kept: .\(.*\).)$/\1/p" err) &&
	test -d "$kept" &&
	test "$(stat -c %u "$kept" "$kept/d")" = "$(printf "0\n0")" &&
	stat -c "%u %h" "$kept/f" "$kept/g" >owners &&
	{ test "$(cat owners)" = "$(printf "%s 2\n%s 2" $UA $UA)" ||
	  test "$(cat owners)" = "$(printf "%s 2\n%s 2" $UB $UB)"; } &&
	test "$(stat -c %u "$kept/s")" = 0 &&
	test "$(readlink "$kept/s")" = /etc/shadow &&
	test "$(stat -c "%u %g %a" /etc/shadow)" = "$shadow"
'

test_expect_success NIX 'a build directory others may write is refused (item 26)' '
	chmod 777 state/builds &&
	test_expect_code 1 cix store -r $(cat plain.drv) 2>err &&
	grep "refusing to build there" err &&
	chmod 700 state/builds &&
	cix store -r $(cat plain.drv)
'

test_expect_success NIX 'the build directories of dead processes are removed; kept ones stay (item 39)' '
	mkdir -p state/builds/build-999999999-abcdef/sub &&
	echo x >state/builds/build-999999999-abcdef/sub/f &&
	mkdir state/builds/kept-ghijkl &&
	cix store -r --check $(cat plain.drv) &&
	test_path_is_missing state/builds/build-999999999-abcdef &&
	test -d state/builds/kept-ghijkl
'

test_done
