#!/bin/sh
test_description='the build sandbox: isolation, limits and clean-up, checked from inside'
. "$(dirname "$0")/test-lib.sh"

SB=$CIX_BUILD_DIR/bench/sandbox
STORE=$TRASH_DIRECTORY/store
IN=$STORE/0123456789abcdfghijklmnpqrsvwxyz-input
OUT=$STORE/zyxwvsrqpnmlkjihgfdcba9876543210-out

# The host's programs, for the test builders only (Nix gives /bin/sh
# through sandbox-paths; builds get nothing of the host).
EXTRA= EXTRA_DIRS=
for d in /bin /sbin /usr /lib /lib32 /lib64 /libx32; do
	[ -e $d ] && EXTRA="$EXTRA --extra $d" && EXTRA_DIRS="$EXTRA_DIRS $d"
done

if [ -x /usr/bin/perl ]; then
	test_set_prereq PERL
fi
if unshare -Ur true 2>/dev/null; then
	test_set_prereq USERNS
fi
if [ "$(id -u)" = 0 ]; then
	test_set_prereq ROOT
	if command -v runuser >/dev/null &&
	   runuser -u nobody -- unshare -Ur true 2>/dev/null; then
		test_set_prereq UNPRIV
	fi
fi

if command -v slirp4netns >/dev/null || [ -x /usr/bin/slirp4netns ]; then
	test_set_prereq SLIRP
fi

mkdir -p "$IN" work &&
echo input-data >"$IN/data" &&
echo secret >canary &&
chmod 755 "$TRASH_DIRECTORY" "$STORE" "$IN" work &&
chmod 644 "$IN/data" || exit 1

# sb ARGS...: run the sandbox tool in a fresh root and build directory
# ($root, $build), in the current mode: $RUNAS (a user to run as),
# $MODE_ARGS (a build user), $WORK (a directory that user may write).
RUNAS=
MODE_ARGS=
WORK=$TRASH_DIRECTORY/work
sb () {
	root=$($RUNAS mktemp -d "$WORK/root.XXXXXX") &&
	build=$($RUNAS mktemp -d "$WORK/build.XXXXXX") || return 1
	chmod 755 "$build"
	case "$MODE_ARGS" in
	*--uid*) chown 30001:30001 "$build" ;;
	esac
	$RUNAS "$SB" --root "$root" --store "$STORE" --input "$IN" \
		--build "$build" $EXTRA $MODE_ARGS "$@"
}

# Processes whose command line holds the marker (the pattern does not
# match itself).
marker_alive () {
	grep -qs "9[9]9$1" /proc/[0-9]*/cmdline
}

run_checks () {
	mode=$1 prereq=$2

	test_expect_success $prereq "$mode: build user and host name" '
		sb -- /bin/sh -c "id -u; id -g; id -un; hostname; echo \$\$" >res 2>log &&
		grep "^exit 0$" res &&
		printf "1000\n100\nnixbld\nlocalhost\n1\n" >expect &&
		test_cmp expect log
	'

	test_expect_success $prereq "$mode: /etc holds the files of Nix 2.8 and is read-only" '
		sb -- /bin/sh -c "cat /etc/passwd; echo --; cat /etc/group; echo --; cat /etc/hosts;
			touch /etc/x && echo WROTE; echo y >>/etc/passwd && echo WROTE; ls /etc" >res 2>log &&
		cat >expect <<-\EOF &&
		root:x:0:0:Nix build user:/build:/noshell
		nixbld:x:1000:100:Nix build user:/build:/noshell
		nobody:x:65534:65534:Nobody:/:/noshell
		--
		root:x:0:
		nixbld:!:100:
		nogroup:x:65534:
		--
		127.0.0.1 localhost
		::1 localhost
		group
		hosts
		passwd
		EOF
		grep -v "cannot\|Read-only\|Permission" log >actual &&
		test_cmp expect actual
	'

	test_expect_success $prereq "$mode: host files are out of reach" '
		sb -- /bin/sh -c "cat $TRASH_DIRECTORY/canary; kill -0 $$ && echo SIGNALLED;
			echo --; ls $TRASH_DIRECTORY; echo --; ls $STORE;
			echo --; ls /" >res 2>log &&
		! grep "secret\|SIGNALLED" log &&
		sed -n "/^--$/,\$p" log >actual &&
		{ echo -- && echo store && echo -- && basename "$IN" && echo -- &&
		  { top=${STORE#/} && echo "${top%%/*}" &&
		    for d in $EXTRA_DIRS build dev etc proc tmp; do echo "${d#/}"; done; } | sort -u
		} >expect &&
		test_cmp expect actual
	'

	test_expect_success $prereq "$mode: inputs are read-only and cannot be remounted" '
		sb -- /bin/sh -c "cat $IN/data;
			echo x >$IN/data && echo WROTE; touch $IN/new && echo WROTE;
			mount -o remount,rw $IN && echo REMOUNTED;
			mount -t tmpfs none $IN && echo MOUNTED;
			umount $IN && echo UNMOUNTED;
			echo x >/newfile && echo WROTE" >res 2>log &&
		grep "^input-data$" log &&
		grep "Read-only file system" log &&
		! grep "WROTE\|MOUNTED" log &&
		test "$(cat "$IN/data")" = input-data
	'

	test_expect_success $prereq "$mode: only loopback, host services unreachable" '
		rm -f port
		"$SB" --listen port &
		lpid=$! &&
		for i in 1 2 3 4 5 6 7 8 9 10; do test -s port && break; sleep 0.2; done &&
		port=$(cat port) &&
		bash -c "exec 3<>/dev/tcp/127.0.0.1/$port && cat <&3" >host.out &&
		grep hello host.out &&
		sb -- /bin/bash -c "tail -n +3 /proc/net/dev | cut -d: -f1;
			exec 3<>/dev/tcp/127.0.0.1/$port && echo CONNECTED" >res 2>log;
		kill $lpid;
		cat log &&
		test "$(sed -n 1p log | tr -d " ")" = lo &&
		! grep CONNECTED log
	'

	test_expect_success $prereq "$mode: outputs and /build are written through" '
		sb --env out=$OUT -- /bin/sh -c "echo built >\$out; mkdir /build/sub; echo tmp >/build/sub/f;
			echo t >/tmp/t; ls -ld /tmp | cut -c1-10; ls -ld $STORE | cut -c1-10" >res 2>log &&
		grep "^exit 0$" res &&
		test "$(cat "$root$OUT")" = built &&
		test "$(cat "$build/sub/f")" = tmp &&
		printf "drwxrwxrwt\ndrwxrwxr-t\n" >expect &&
		test_cmp expect log
	'

	test_expect_success $prereq "$mode: inputs cannot be hard-linked into outputs" '
		sb --env out=$OUT -- /bin/sh -c "mkdir \$out; ln $IN/data \$out/l && echo LINKED;
			echo x >/build/f; ln /build/f \$out/m && echo LINKED; ln /etc/passwd \$out/p && echo LINKED;
			ln /build/f /tmp/f && echo LINKED; ls \$out" >res 2>log &&
		grep "^exit 0$" res &&
		! grep LINKED log && test "$(grep -c "Invalid cross-device link" log)" = 4 &&
		test -z "$(ls "$root$OUT")"
	'

	test_expect_success $prereq "$mode: no setuid or setgid file can be made" '
		sb --env out=$OUT -- /bin/sh -c "echo x >\$out; chmod u+s \$out && echo SUID;
			chmod g+s \$out && echo SGID; chmod 6755 \$out && echo BOTH;
			chmod 755 \$out && echo PLAIN; mkdir /build/d; chmod g+s /build/d && echo DIRSGID" >res 2>log &&
		grep seccomp res &&
		grep "^PLAIN$" log &&
		! grep "SUID\|SGID\|BOTH" log &&
		test ! -u "$root$OUT" && test ! -g "$root$OUT" && test ! -g "$build/d"
	'

	test_expect_success $prereq "$mode: the environment is exactly the one given" '
		sb --env A=1 --env "B=two words" --env "C=" -- /usr/bin/env >res 2>log &&
		printf "A=1\nB=two words\nC=\n" >expect &&
		test_cmp expect log
	'

	test_expect_success $prereq "$mode: /dev is minimal and works" '
		sb -- /bin/sh -c "ls /dev; echo x >/dev/null && echo NULL;
			head -c 4 /dev/zero | wc -c; head -c 4 /dev/urandom | wc -c;
			echo x >/dev/full || echo FULL" >res 2>log &&
		grep "^NULL$" log && grep "^FULL$" log && test "$(grep -c "^4$" log)" = 2 &&
		for f in fd full null ptmx pts random shm stderr stdin stdout tty urandom zero; do
			grep "^$f$" log || return 1
		done &&
		test "$(grep -c "^[a-z]*$" log)" = 13
	'

	test_expect_success $prereq,PERL "$mode: no setuid file is created by open or mknod either" '
		sb -- /usr/bin/perl -e "use Fcntl; use POSIX;
			sysopen(F, q{/build/a}, O_CREAT|O_WRONLY, 04755) or print qq{a: \$!\n};
			sysopen(F, q{/build/b}, O_CREAT|O_WRONLY, 02755) or print qq{b: \$!\n};
			sysopen(F, q{/build/c}, O_CREAT|O_WRONLY, 0755) or print qq{c: \$!\n};
			sysopen(F, q{/build/c}, O_WRONLY, 04755) or print qq{c2: \$!\n};
			POSIX::mkfifo(q{/build/p}, 04755) or print qq{p: \$!\n};
			printf qq{%04o\n}, umask;" >res 2>log &&
		printf "a: Operation not permitted\nb: Operation not permitted\np: Operation not permitted\n0022\n" >expect &&
		test_cmp expect log &&
		test_path_is_missing "$build/a" && test_path_is_missing "$build/p" &&
		test -f "$build/c"
	'

	test_expect_success $prereq "$mode: the sandbox dies with its caller" '
		m=$(date +%s%N) &&
		{ sb --env M=$m -- /bin/sh -c "sleep 999$m" >res 2>log & } &&
		for i in $(seq 50); do marker_alive $m && break; sleep 0.1; done &&
		marker_alive $m &&
		pkill -KILL -f "^$SB --root .*M=$m" &&
		for i in $(seq 50); do marker_alive $m || break; sleep 0.1; done &&
		! marker_alive $m
	'

	test_expect_success $prereq "$mode: signals, personality and limits are reset" '
		sb -- /bin/sh -c "grep ^Sig /proc/self/status; cat /proc/self/personality; ulimit -c" >res 2>log &&
		grep "^SigBlk:	0*$" log && grep "^SigIgn:	0*$" log &&
		grep "^00040000$" log && grep "^0$" log
	'

	test_expect_success $prereq "$mode: exit status and signals are reported" '
		sb -- /bin/sh -c "exit 3" >res 2>log &&
		grep "^exit 3$" res &&
		sb -- /bin/sh -c "kill -TERM \$\$; kill -KILL \$\$" >res 2>log &&
		grep "^exit\|^signal" res
	'

	test_expect_success $prereq "$mode: a left-over process dies with the builder" '
		m=$(date +%s%N) &&
		sb -- /bin/sh -c "setsid sleep 999$m & sleep 999$m & (sleep 999$m &) ; sleep 0.2; ls /proc | grep -c \"^[0-9]\"" >res 2>log &&
		grep "^exit 0$" res &&
		test "$(cat log)" -ge 4 &&
		! marker_alive $m
	'

	test_expect_success $prereq "$mode: timeout kills the whole tree" '
		m=$(date +%s%N) &&
		start=$(date +%s) &&
		sb --timeout 1 -- /bin/sh -c "sleep 999$m & sleep 999$m" >res 2>log &&
		grep "^signal 9$" res && grep "^timed_out$" res &&
		test $(($(date +%s) - start)) -lt 10 &&
		! marker_alive $m
	'

	test_expect_success $prereq "$mode: max-silent kills a silent builder, not a chatty one" '
		sb --max-silent 1 -- /bin/sh -c "echo start; sleep 100" >res 2>log &&
		grep "^silent_too_long$" res && grep "^start$" log &&
		sb --max-silent 1 -- /bin/sh -c "for i in 1 2 3 4 5 6; do echo \$i; sleep 0.4; done" >res 2>log &&
		grep "^exit 0$" res && ! grep silent res
	'

	test_expect_success $prereq "$mode: the log size limit kills the builder" '
		sb --max-log 1000 -- /bin/sh -c "while :; do echo 0123456789; done" >res 2>log &&
		grep "^log_too_long$" res &&
		test "$(wc -c <log)" = 1000
	'

	test_expect_success $prereq,PROCLIMIT,PERL "$mode: a fork bomb stops at the process limit" '
		sb --max-procs 20 -- /usr/bin/perl -e "
			for (1..60) { my \$p = fork; last unless defined \$p;
				if (!\$p) { exec qw(/bin/sleep 9.8765) } }
			opendir D, q(/proc); print scalar(grep /^[0-9]+\$/, readdir D), qq(\n)" >res 2>log &&
		grep "^exit 0$" res && grep "^proc_limit" res &&
		n=$(tail -n 1 log) && test "$n" -le 20 && test "$n" -ge 10 &&
		! marker_alive 8765
	'

	# Fixed-output mode had the host's network namespace (and its abstract
	# sockets); it now has its own, served by slirp4netns, where 10.0.2.2
	# is the host's 127.0.0.1 only with --host-loopback.
	test_expect_success $prereq,SLIRP "$mode: fixed-output mode has a network of its own" '
		rm -f port2
		"$SB" --listen port2 &
		lpid=$! &&
		for i in 1 2 3 4 5 6 7 8 9 10; do test -s port2 && break; sleep 0.2; done &&
		port=$(cat port2) &&
		sb --host-loopback --extra /etc/hosts -- /bin/bash -c "readlink /proc/self/ns/net;
			exec 3<>/dev/tcp/10.0.2.2/$port && cat <&3;
			ls /etc; echo --; cat /etc/hosts /etc/resolv.conf" >res 2>log;
		sb --network -- /bin/bash -c "exec 3<>/dev/tcp/10.0.2.2/$port && echo CONNECTED-GW;
			exec 3<>/dev/tcp/127.0.0.1/$port && echo CONNECTED-LO" >res2 2>log2;
		kill $lpid;
		cat log log2 &&
		test "$(sed -n 1p log)" != "$(readlink /proc/self/ns/net)" &&
		printf "127.0.0.1 localhost\n::1 localhost\nnameserver 10.0.2.3\n" >expect &&
		sed "1,/^--$/d" log >actual && test_cmp expect actual &&
		! grep CONNECTED log2 &&
		if grep -q "^slirp$" res; then
			grep "^hello$" log && grep "^slirp$" res2
		else
			# unprivileged, without access to /dev/net/tun: loopback only
			test -n "$RUNAS" &&
			grep "^cix: no network for this fixed-output build but loopback: slirp4netns failed" log &&
			! grep "^hello$" log
		fi
	'
}

# The process limit: a pids cgroup (root), else RLIMIT_NPROC (a build user).
MODE_ARGS="--uid 30001 --gid 30001"
test_set_prereq PROCLIMIT
run_checks "build user" ROOT,USERNS

test_unset_prereq PROCLIMIT
if test_have_prereq ROOT,USERNS; then
	MODE_ARGS=
	sb --max-procs 10 -- /bin/true 2>/dev/null | grep -q "^proc_limit cgroup" &&
		test_set_prereq PROCLIMIT
fi

MODE_ARGS=
run_checks "user namespace (root)" ROOT,USERNS

if test_have_prereq UNPRIV; then
	mkdir work-nobody && chown nobody work-nobody
fi
WORK=$TRASH_DIRECTORY/work-nobody
RUNAS="runuser -u nobody --"
test_unset_prereq PROCLIMIT
run_checks "unprivileged" UNPRIV
RUNAS=
WORK=$TRASH_DIRECTORY/work

test_expect_success ROOT,USERNS 'bad specifications are refused' '
	test_expect_code 1 "$SB" --root "$WORK/r1" --store "$STORE" --input /etc --build "$WORK" -- /bin/true 2>err &&
	grep "not a store path" err &&
	test_expect_code 1 "$SB" --root "$WORK/r2" --store "$STORE" --extra /usr/../etc --build "$WORK" -- /bin/true 2>err &&
	grep "not clean" err &&
	test_expect_code 1 "$SB" --root "$WORK/r3" --store "$STORE" --extra /proc --build "$WORK" -- /bin/true 2>err &&
	grep "reserved" err &&
	test_expect_code 1 "$SB" --root "$WORK/r6" --store "$STORE" --extra /etc/passwd --network --build "$WORK" -- /bin/true 2>err &&
	grep "reserved" err &&
	test_expect_code 1 "$SB" --root "$WORK/r7" --store "$STORE" --extra /etc/hosts --build "$WORK" -- /bin/true 2>err &&
	grep "reserved" err &&
	mkdir -m 777 "$WORK/r8" &&
	test_expect_code 1 "$SB" --root "$WORK/r8" --store "$STORE" --build "$WORK" -- /bin/true 2>err &&
	grep "writable by no one else" err &&
	mkdir "$WORK/r9" && echo x >"$WORK/r9/x" &&
	test_expect_code 1 "$SB" --root "$WORK/r9" --store "$STORE" --build "$WORK" -- /bin/true 2>err &&
	grep "is not empty" err &&
	test_expect_code 1 "$SB" --root "$WORK/r4" --store "$STORE" --build "$WORK" -- /no/such/builder 2>err &&
	grep "cannot execute" err &&
	test_expect_code 1 "$SB" --root "$WORK/r5" --store "$STORE" --input "$STORE/missing" --build "$WORK" -- /bin/true 2>err &&
	grep "cannot stat" err
'

test_expect_success ROOT,USERNS 'set-up time is measured' '
	"$SB" --root "$WORK/many" --store "$STORE" --input "$IN" --build "$WORK" $EXTRA \
		--repeat 20 -- /bin/true >res &&
	cat res &&
	grep "^runs 20 setup_ms mean" res
'

test_done
