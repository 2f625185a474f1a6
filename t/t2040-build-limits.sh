#!/bin/sh
# t2040-build-limits.sh - io_uring, and the limits on builds: PIDs, memory, /dev/shm, /tmp, time, log
# SPDX-License-Identifier: GPL-3.0-or-later
test_description='build limits: io_uring refused; cgroups, tmpfs size, timeout and log size of cix.conf and cix-daemon'
. "$(dirname "$0")/test-lib.sh"

T=$TRASH_DIRECTORY
test_private_store
test_private_conf
# (./log is the tests' own)
CIX_LOG_DIR=$T/cixlog
EXPOSED=$(test_outside_tmp_dir exposed) || exit 1
test_sandbox_host_paths $EXPOSED
test_nix_oracle

[ "$(id -u)" = 0 ] && test_set_prereq ROOT
command -v cc >/dev/null && test_set_prereq CC
[ -x /usr/bin/perl ] && test_set_prereq PERL

# mkdrv NAME SCRIPT: a derivation running /bin/sh -c SCRIPT, in cix's store.
mkdrv () {
	cat >"$1.nix" <<-EOF
	derivation { name = "$1"; system = "x86_64-linux"; builder = "/bin/sh";
	  args = [ "-c" ''$2'' ]; }
	EOF
	p_=$(nix-instantiate --store "$N" "$1.nix" 2>/dev/null) &&
	nixs --export $(nixs -qR "$p_") | cix store --import >/dev/null &&
	echo "$p_" >"$1.drv"
}
marker_alive () { grep -qs "$(echo "$1" | sed 's/^\(.\)/[\1]/')" /proc/[0-9]*/cmdline; }

# A cgroup of the test's own, in cgroup v1's pids and memory hierarchies,
# holding this shell and everything it starts (cix's cix-builds included):
# other tests' builds are not touched, and a safety net of 1000 tasks and
# 1 GiB bounds whatever goes wrong.
CGP= CGM=
own_cgroup () { sed -n "s/^[0-9]*:\\([^:]*,\\)*$1\\(,[^:]*\\)*:\\(.*\\)/\\3/p" /proc/self/cgroup; }
if test_have_prereq ROOT && [ -w /sys/fs/cgroup/pids/cgroup.procs ] &&
   [ -d /sys/fs/cgroup/memory ]; then
	P0=/sys/fs/cgroup/pids$(own_cgroup pids) M0=/sys/fs/cgroup/memory$(own_cgroup memory)
	P0=${P0%/} M0=${M0%/}
	CGP=$P0/cix-t2040-$$ CGM=$M0/cix-t2040-$$
	if mkdir "$CGP" "$CGM" && echo 1000 >"$CGP/pids.max" &&
	   echo 1G >"$CGM/memory.limit_in_bytes" &&
	   echo $$ >"$CGP/cgroup.procs" && echo $$ >"$CGM/cgroup.procs"; then
		test_set_prereq CGROUP1
	fi
fi
cgroup_cleanup () {
	[ -n "$CGP" ] || return 0
	echo $$ >"$P0/cgroup.procs"; echo $$ >"$M0/cgroup.procs"
	# (the daemons, stopped by test_done, may take a moment to end)
	for i in $(seq 50); do
		[ -z "$(cat "$CGP/cgroup.procs" "$CGM/cgroup.procs")" ] && break
		sleep 0.1
	done
	for d in "$CGP" "$CGM"; do
		for c in "$d"/cix-builds/*/ "$d"/cix-builds/ "$d"/; do
			[ -d "$c" ] && rmdir "$c" 2>/dev/null
		done
	done
	return 0
}
trap cgroup_cleanup EXIT

# ---- io_uring (issue 20, item 4): its operations pass the seccomp filter ----

cat >iouring.c <<\EOF
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#ifndef __NR_io_uring_setup
#define __NR_io_uring_setup 425
#define __NR_io_uring_enter 426
#define __NR_io_uring_register 427
#endif
int main(void)
{
	unsigned char params[120];   /* struct io_uring_params */
	long nr[] = { __NR_io_uring_setup, __NR_io_uring_enter, __NR_io_uring_register };
	int bad = 0;
	for (int i = 0; i < 3; i++) {
		memset(params, 0, sizeof(params));
		long r = i ? syscall(nr[i], -1, 0, 0, 0, NULL, 0) : syscall(nr[i], 4, params);
		printf("io_uring call %ld: %s\n", nr[i], r < 0 ? strerror(errno) : "allowed");
		bad |= !(r < 0 && errno == ENOSYS);
	}
	return bad;
}
EOF
test_expect_success ROOT,NIX,CC 'a builder calling io_uring gets ENOSYS' '
	cc -o "$EXPOSED/iouring" iouring.c &&
	mkdrv iouring "$EXPOSED/iouring && echo > \$out" &&
	cix store -r $(cat iouring.drv) 2>log &&
	cat log && test "$(grep -c "Function not implemented" log)" = 3
'

# ---- PIDs (item 7): all builds together below builds-pids-max ----

# A fork bomb (bounded at 200, each child a sleeper): prints how many
# processes its PID namespace then holds, and keeps them a while.
cat >"$EXPOSED/bomb.pl" <<\EOF
for (1..200) { my $p = fork; last unless defined $p; if (!$p) { exec qw(/bin/sleep 40.2040) } }
opendir D, q(/proc); print "count ", scalar(grep /^[0-9]+$/, readdir D), "\n";
close STDOUT; close STDERR; sleep 4;
EOF
test_expect_success CGROUP1,NIX,PERL 'derivations: a fork bomb, a build of ten processes' '
	mkdrv bomb "/usr/bin/perl $EXPOSED/bomb.pl; echo > \$out" &&
	mkdrv ten "for i in 1 2 3 4 5 6 7 8 9 10; do /bin/sleep 0.5 & done; wait; echo > \$out"
'

test_expect_success CGROUP1,NIX,PERL 'a daemon'"'"'s builds stay below --builds-pids-max together' '
	sock=$T/daemon.sock &&
	test_start_daemon "$sock" -- --builds-pids-max=64 &&
	{ CIX_DAEMON_SOCKET=$sock cix store -r $(cat bomb.drv) >bomb.out 2>bomb.log & } &&
	bpid=$! &&
	for i in $(seq 100); do grep -q "^count" bomb.log && break; sleep 0.1; done &&
	cat bomb.log &&
	n=$(sed -n "s/^count //p" bomb.log) &&
	# one build: half the total, the sandbox'"'"'s processes included
	test "$n" -le 32 && test "$n" -ge 16 &&
	test "$(cat "$CGP"/cix-builds/pids.max)" = 64 &&
	test "$(cat "$CGP"/cix-builds/cix-build-*/pids.max)" = 32 &&
	# another build still runs, and the host still forks
	CIX_DAEMON_SOCKET=$sock cix store -r $(cat ten.drv) >ten.out &&
	/bin/true &&
	wait $bpid &&
	! marker_alive 40.2040
'

test_expect_success 'cix-daemon refuses a bad limit' '
	test_expect_code 2 cix-daemon --listen "$T/no.sock" --build-memory-max=12Q 2>err &&
	grep "invalid value .12Q. for --build-memory-max" err &&
	test_expect_code 2 cix-daemon --listen "$T/no.sock" --builds-pids-max=-1 2>err &&
	test_expect_code 2 cix-daemon --listen "$T/no.sock" --timeout=1x 2>err
'

# ---- memory, /dev/shm, time and log (item 9), from cix.conf ----

cat >hog.c <<\EOF
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
/* Touch 512 MiB, a MiB at a time, saying how far it got. */
int main(void)
{
	for (int i = 1; i <= 512; i++) {
		char *p = malloc(1 << 20);
		if (!p)
			return 1;
		memset(p, 1, 1 << 20);
		if (i % 64 == 0)
			printf("%d MiB\n", i), fflush(stdout);
	}
	return 0;
}
EOF
test_expect_success CGROUP1,NIX,CC 'a build beyond build-memory-max is killed, and the error says so' '
	cc -o "$EXPOSED/hog" hog.c &&
	mkdrv hog "$EXPOSED/hog && echo > \$out" &&
	echo "build-memory-max = 64M" >"$CIX_CONF_FILE" &&
	test_must_fail cix store -r $(cat hog.drv) 2>log &&
	cat log &&
	grep "ran out of memory" log && grep "67108864 bytes" log &&
	! grep "^512 MiB" log
'

test_expect_success NIX 'a build writing beyond build-shm-size in /dev/shm gets ENOSPC' '
	mkdrv shm "/bin/dd if=/dev/zero of=/dev/shm/f bs=1M count=64; /bin/df -k /dev/shm; echo > \$out" &&
	printf "build-shm-size = 16M\n# memory as by default\n" >"$CIX_CONF_FILE" &&
	cix store -r $(cat shm.drv) 2>log &&
	cat log &&
	grep "No space left on device" log &&
	awk "\$NF == \"/dev/shm\" && \$2 == 16384 { ok = 1 } END { exit !ok }" log
'

# /tmp is a tmpfs only when the store does not lie below /tmp (a clone in /tmp).
case $CIX_STORE_DIR/ in /tmp/*) test_set_prereq STORE_IN_TMP ;; *) test_set_prereq STORE_OUT_OF_TMP ;; esac

test_expect_success NIX,STORE_IN_TMP 'the store below /tmp: a build'"'"'s /tmp stays on disk, as documented' '
	mkdrv tmpdisk "/bin/dd if=/dev/zero of=/tmp/f bs=1M count=20; /bin/df -k /tmp; echo > \$out" &&
	printf "build-tmp-size = 16M\n" >"$CIX_CONF_FILE" &&
	cix store -r $(cat tmpdisk.drv) 2>log &&
	cat log &&
	! grep "No space left on device" log
'

test_expect_success NIX,STORE_OUT_OF_TMP 'a build writing beyond build-tmp-size in /tmp gets ENOSPC' '
	mkdrv tmp "/bin/dd if=/dev/zero of=/tmp/f bs=1M count=64; /bin/df -k /tmp; echo > \$out" &&
	printf "build-tmp-size = 16M\n" >"$CIX_CONF_FILE" &&
	cix store -r $(cat tmp.drv) 2>log &&
	cat log &&
	grep "No space left on device" log &&
	awk "\$NF == \"/tmp\" && \$2 == 16384 { ok = 1 } END { exit !ok }" log
'

test_expect_success NIX 'a build without --timeout stops at build-timeout; a longer --timeout is cut to it' '
	mkdrv slow "/bin/sleep 30.2041; echo > \$out" &&
	echo "build-timeout = 2" >"$CIX_CONF_FILE" &&
	test_must_fail cix store -r $(cat slow.drv) 2>log &&
	grep "timed out after 2 seconds" log &&
	test_must_fail cix store -r --timeout 100 $(cat slow.drv) 2>log &&
	grep "timed out after 2 seconds" log &&
	! marker_alive 30.2041
'

test_expect_success NIX 'a log flood is cut at max-log-size' '
	mkdrv flood "i=0; while [ \$i -lt 50000 ]; do echo 0123456789012345678901234567890123456789; i=\$((i + 1)); done; echo > \$out" &&
	echo "max-log-size = 100K" >"$CIX_CONF_FILE" &&
	test_must_fail cix store -r $(cat flood.drv) 2>log &&
	grep "more than 102400 bytes of log" log &&
	test $(grep -c ^0123 log) -le 2600
'

test_expect_success NIX 'a bad value in cix.conf is an error of one line' '
	echo "build-shm-size = lots" >"$CIX_CONF_FILE" &&
	test_must_fail cix store -r $(cat flood.drv) 2>log &&
	cat log && grep "cix.conf:1: invalid value for build-shm-size" log &&
	: >"$CIX_CONF_FILE"
'

test_expect_success CGROUP1 'no cgroup of the builds is left' '
	test -z "$(ls -d "$CGP"/cix-builds/cix-build-* "$CGM"/cix-builds/cix-build-* 2>/dev/null)"
'

test_done
