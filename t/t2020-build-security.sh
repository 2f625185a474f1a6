#!/bin/sh
# t2020-build-security.sh - doc/security.md items for local builds, through cix store --realise
# SPDX-License-Identifier: GPL-3.0-or-later
test_description='build security: hostile builders and crashes against cix store --realise'
. "$(dirname "$0")/test-lib.sh"

# Sandbox checks from inside (bench/sandbox) are in t2000, the realise
# basics (hard link of an unseen file, loopback only, --timeout and
# --max-silent-time, a left-over sleeper, two clients of one build, a
# plain kill -9) in t2010. This script attacks the whole of --realise.

T=$TRASH_DIRECTORY
test_private_store
# (./log is the tests' own)
CIX_LOG_DIR=$T/cixlog
# The host's programs for the builders, and $EXPOSED: scripts, a canary,
# go-files the test creates while a build runs (read-only inside); $T/exposed
# names it too.
EXPOSED=$(test_outside_tmp_dir exposed) || exit 1
[ "$EXPOSED" = "$T/exposed" ] || ln -s "$EXPOSED" "$T/exposed" || exit 1
test_sandbox_host_paths "$EXPOSED"
test_nix_oracle
unset http_proxy https_proxy ftp_proxy all_proxy no_proxy HTTP_PROXY HTTPS_PROXY ALL_PROXY NO_PROXY

PY=/usr/bin/python3
[ -x $PY ] && $PY -c 'import socket; socket.send_fds' 2>/dev/null && test_set_prereq PYTHON
[ -x /usr/bin/perl ] && test_set_prereq PERL
[ "$(id -u)" = 0 ] && test_set_prereq ROOT
if [ -u /usr/bin/su ]; then
	test_set_prereq SETUID_SU
fi
# A 32-bit program: chmod and fchmodat of /build/x32 through int $0x80.
cat >m32.c <<\EOF
static int sc(int n, int a, int b, int c, int d)
{
	int r;
	__asm__ volatile ("int $0x80" : "=a"(r) : "a"(n), "b"(a), "c"(b), "d"(c), "S"(d) : "memory");
	return r;
}
void _start(void)
{
	static const char p[] = "/build/x32";
	int code = 0;
	if (sc(15, (int)p, 04755, 0, 0) == -1) code |= 1;        /* chmod: EPERM */
	if (sc(306, -100, (int)p, 02755, 0) == -1) code |= 2;    /* fchmodat: EPERM */
	sc(1, code, 0, 0, 0);
	for (;;) ;
}
EOF
# Only where the kernel runs 32-bit programs (IA32 emulation): here, with
# no /build/x32, it exits 3; without the emulation, exec fails (126).
if gcc -m32 -static -nostdlib -fno-pic -fno-stack-protector -O1 -o "$T/exposed/m32" m32.c 2>/dev/null; then
	"$T/exposed/m32" 2>/dev/null
	[ $? -lt 126 ] && test_set_prereq M32
fi

# Background processes of the tests (each runs in a subshell): bg PID.
bg () { echo "$1" >>"$T/bgpids"; }
trap 'for p in $(cat "$T/bgpids" 2>/dev/null); do kill "$p" 2>/dev/null; done' EXIT

# Known breakage, reported as a TAP TODO (not counted as a failure).
test_expect_failure () {
	if [ $# -eq 3 ]; then
		if ! test_have_prereq "$1"; then
			test_count=$((test_count + 1))
			printf 'ok %d # skip %s (missing %s)\n' "$test_count" "$2" "$1"
			return 0
		fi
		shift
	fi
	test_count=$((test_count + 1))
	if test_run_ "$2"; then
		printf 'ok %d - %s # TODO known breakage vanished\n' "$test_count" "$1"
	else
		printf 'not ok %d - %s # TODO known breakage\n' "$test_count" "$1"
	fi
}

# mkdrv FILE.nix ATTR: instantiate with Nix, import into cix, print the .drv.
mkdrv () {
	p_=$(nix-instantiate --store "$N" "$1" ${2:+-A "$2"} 2>/dev/null) &&
	nixs --export $(nixs -qR "$p_") | cix store --import >/dev/null &&
	echo "$p_"
}
outs () { cix store -q --outputs "$1"; }
# Processes whose command line holds the marker (the pattern not itself).
marker_alive () { grep -qs "$(echo "$1" | sed 's/^\(.\)/[\1]/')" /proc/[0-9]*/cmdline; }
# wait_for FILE-GLOB [TENTHS]: until a file matches, 10 s at most.
wait_for () {
	i_=0
	while [ $i_ -lt "${2:-100}" ]; do
		for f_ in $1; do [ -e "$f_" ] && return 0; done
		sleep 0.1
		i_=$((i_ + 1))
	done
	echo "never appeared: $1"; return 1
}
# The canary: not root's, an odd mode, old mtime, in the exposed directory.
canary_state () { stat -c '%a %u %g %h %Y %s' "$T/exposed/canary" && cat "$T/exposed/canary"; }
echo secret >"$T/exposed/canary" &&
chown 65534:65534 "$T/exposed/canary" && chmod 0604 "$T/exposed/canary" &&
touch -d 2001-01-01 "$T/exposed/canary" &&
mkdir -p "$T/canarydir/sub" && echo keep >"$T/canarydir/sub/f" && echo keep >"$T/canarydir/g" &&
chmod 0600 "$T/canarydir/g" &&
canary_state >canary.before &&
find "$T/canarydir" -printf '%p %m %U %n\n' | sort >canarydir.before || exit 1
canarydir_intact () {
	canary_state >canary.after && test_cmp canary.before canary.after &&
	find "$T/canarydir" -printf '%p %m %U %n\n' | sort >canarydir.after &&
	test_cmp canarydir.before canarydir.after
}

printf 'hello\n' >hello
printf 'topsecret\n' >hostsecret && chmod 600 hostsecret
HELLO=$(nix-hash --type sha256 --flat --base32 hello 2>/dev/null)
SECRET=$(nix-hash --type sha256 --flat --base32 hostsecret 2>/dev/null)

# ---- Builders ----

cat >exposed/suid.sh <<\EOF
PATH=/usr/bin:/bin
mkdir $out
for f in a b c d e su; do echo x >$out/$f; echo x >/build/$f; done
chmod 4755 $out/a && echo "SUID: chmod 4755 out"
chmod 2755 /build/a && echo "SUID: chmod 2755 build"
chmod u+s,g+s $out/e && echo "SUID: chmod u+s,g+s"
install -m 4755 $out/e $out/inst && echo "SUID: install -m 4755"
if [ -x /usr/bin/perl ]; then
	perl -e 'for my $m (04755, 02755) { for my $g ("$ENV{out}/b", "/build/b") { my $f = "$g";
		printf "%s %o: %s\n", "chmod", $m, chmod($m, $f) ? "SUID" : $!;
		open(my $fh, "<", $f) or die;
		printf "%s %o: %s\n", "fchmod", $m, chmod($m, $fh) ? "SUID" : $!;
		printf "%s %o: %s\n", "fchmodat", $m, syscall(268, -100, $f, $m, 0) == 0 ? "SUID" : $!;
		my $r = syscall(452, -100, $f, $m, 0);
		printf "%s %o: %s\n", "fchmodat2", $m, $r == 0 ? "SUID" : $!; } }'
fi
if [ -x $exposed/m32 ]; then
	echo x >/build/x32
	$exposed/m32; echo "m32: $?"
fi
# A setuid program of the host, copied with its mode.
cp -p /usr/bin/su $out/su 2>&1; cp -a /usr/bin/su /build/su2 2>&1
ls -l $out /build
touch /build/started
sleep 0.5
find $out /build -perm /6000 -exec echo "SUID: found" {} \;
echo finished
[ -z "$fail" ]
EOF

cat >exposed/smuggle.py <<\EOF
# A fixed-output builder that hands the host a descriptor of its $out.
import os, socket
out = os.environ["out"]
with open(out, "w") as f:
    f.write("hello\n")
fd = os.open(out, os.O_RDWR)
try:
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect("\0" + os.environ["sockname"])
    socket.send_fds(s, [b"x"], [fd])
    s.recv(1)
    print("SMUGGLED: connected and sent the descriptor", flush=True)
except OSError as e:
    print("smuggling failed:", e, flush=True)
EOF

cat >receiver.py <<\EOF
# Outside: receive the descriptor, write through it once told to.
import os, socket, sys, time
name, go, result = sys.argv[1:4]
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.bind("\0" + name)
s.listen(1)
open(result, "w").write("listening\n")
s.settimeout(30)
c, _ = s.accept()
msg, fds, flags, addr = socket.recv_fds(c, 10, 1)
c.send(b"k")
while not os.path.exists(go):
    time.sleep(0.05)
try:
    n = os.pwrite(fds[0], b"EVIL!\n", 0)
    open(result, "a").write("wrote %d\n" % n)
except OSError as e:
    open(result, "a").write("write failed: %s\n" % e)
EOF

cat >exposed/plant.sh <<\EOF
# Fixed-output builder: symlinks and FIFOs wherever cix might write.
PATH=/usr/bin:/bin
for d in /build /tmp $NIX_STORE; do
	ln -s $canarydir $d/dirlink
	ln -s $exposed/canary $d/filelink
	mkfifo $d/fifo
	for n in $(seq 0 20); do
		ln -s $canarydir $d/tmp-$n
	done
done
for o in $others; do
	b=${o##*/}
	ln -s $canarydir $NIX_STORE/$b.lock
	ln -s $canarydir $NIX_STORE/$b.tmp
done
mkdir /build/sub && ln -s $canarydir /build/sub/escape && chmod 0 /build/sub
printf 'hello\n' >$out
EOF

cat >exposed/probe.sh <<\EOF
# Non-fixed-output builder: reach for the host.
PATH=/usr/bin:/bin
mkdir $out
{
	bash -c "exec 3<>/dev/tcp/127.0.0.1/$port && echo CONNECTED-TCP" 2>&1
	/usr/bin/python3 -c "import socket, os
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.connect('\0' + os.environ['sockname']); print('CONNECTED-ABSTRACT')" 2>&1 | tail -1
	kill -0 $hostpid && echo SIGNALLED
	kill -STOP $hostpid && echo SIGNALLED
	echo x >$input && echo WROTE-INPUT
	echo x >/etc/passwd && echo WROTE-ETC
	mount -o remount,rw $input && echo REMOUNTED
	mount -t tmpfs none /tmp && echo MOUNTED
} >$out/report 2>&1
cat $out/report
EOF

cat >exposed/gate.sh <<\EOF
# Start, say so, and wait for the test's go-file.
PATH=/usr/bin:/bin
echo "building $name"
touch /build/started
while [ ! -e $exposed/go-$gate ]; do sleep 0.05; done
if [ -n "${outputHash:-}" ]; then printf 'hello\n' >$out; else mkdir $out; echo done >$out/b; fi
EOF

cat >sec.nix <<\EOF
let T = "@T@"; sys = "x86_64-linux"; exposed = "@EXPOSED@";
    d = name: script: attrs: derivation ({ inherit name exposed; system = sys;
          builder = "/bin/sh"; args = [ "-c" script ]; } // attrs);
    f = name: file: attrs: derivation ({ inherit name exposed; system = sys;
          builder = "/bin/sh"; args = [ "${exposed}/${file}" ]; } // attrs);
    fixed = { outputHashAlgo = "sha256"; outputHash = "@HELLO@"; };
in rec {
  hlFail = d "hl-fail" "set -e; /bin/mkdir $out; /bin/ln ${exposed}/canary $out/x" {};
  hlOk = d "hl-ok" ''
    /bin/mkdir $out
    /bin/ln ${exposed}/canary $out/x || echo REFUSED
    /bin/ln /etc/passwd $out/p || echo REFUSED
    /bin/ln /bin/sh $out/s || echo REFUSED
    echo ok > $out/y'' {};
  hlFod = d "hl-fod" "/bin/ln ${exposed}/canary $out || echo REFUSED" fixed;
  suid = f "suid" "suid.sh" {};
  suidFail = f "suid-fail" "suid.sh" { fail = "1"; };
  odd = d "odd" ''
    PATH=/usr/bin:/bin
    mkdir -m 777 $out $out/d
    echo x >$out/f; chmod 777 $out/f
    echo y >$out/g; chmod 000 $out/g
    /usr/bin/python3 -c "import os; os.setxattr(os.environ['out'] + '/f', 'user.x', b'1')" 2>&1 | tail -1
    /usr/bin/python3 -c "import os; os.setxattr(os.environ['out'] + '/f', 'security.capability', b'\1\0\0\2')" 2>&1 | tail -1
    mknod $out/null c 1 3 || echo NO-MKNOD
    ls -la $out'' {};
  fifo = d "fifo" "/bin/mkdir $out; /usr/bin/mkfifo $out/p" {};
  sock = d "sock" "/bin/mkdir $out; /usr/bin/python3 -c \"import socket, os; socket.socket(socket.AF_UNIX).bind(os.environ['out'] + '/s')\"" {};
  fifoFod = d "fifo-fod" "/bin/mkdir $out; /usr/bin/mkfifo $out/p" { outputHashMode = "recursive"; outputHashAlgo = "sha256"; outputHash = "@HELLO@"; };
  smuggled = derivation (fixed // { name = "smuggled"; system = sys; builder = "/usr/bin/python3";
    args = [ "${exposed}/smuggle.py" ]; sockname = "@SOCK@"; });
  plantOther = d "plant-other" "echo > $out" {};
  plant = f "planted" "plant.sh" (fixed // { canarydir = "${T}/canarydir"; others = builtins.unsafeDiscardStringContext plantOther.out; });
  symlinkSecret = d "secret" "/bin/ln -s ${T}/hostsecret $out" { outputHashAlgo = "sha256"; outputHash = "@SECRET@"; };
  lingering = d "lingering" ''
    PATH=/usr/bin:/bin
    (setsid sleep 302020.25 >&2 &)
    (trap "" HUP TERM; exec sleep 302020.25) &
    for i in $(seq 100); do sleep 302020.25 & done
    echo > $out'' {};
  flood = d "flood" "exec /usr/bin/yes t2020-flood-marker" {};
  killed = derivation { name = "killed"; system = sys; builder = "/bin/sh"; inherit exposed;
    args = [ "${exposed}/gate.sh" "marker-killed" ]; gate = "killed"; };
  fodA = f "same" "gate.sh" (fixed // { gate = "fod"; who = "a"; });
  fodB = f "same" "gate.sh" (fixed // { gate = "fod"; who = "b"; });
  fodC = f "same2" "gate.sh" (fixed // { gate = "fod2"; who = "c"; });
  fodD = f "same2" "gate.sh" (fixed // { gate = "fod2"; who = "d"; });
  leftover = d "leftover" "/bin/mkdir $out; echo fresh > $out/f" {};
}
EOF
sed -i "s|@T@|$T|g; s|@EXPOSED@|$EXPOSED|g; s/@HELLO@/$HELLO/g; s/@SECRET@/$SECRET/g; s/@SOCK@/t2020-$$-$(date +%s%N)/g" sec.nix

test_expect_success NIX 'derivations written by nix-instantiate' '
	for a in hlFail hlOk hlFod suid suidFail odd fifo sock fifoFod smuggled plant plantOther \
		symlinkSecret lingering flood killed fodA fodB fodC fodD leftover; do
		nix-instantiate --store "$N" sec.nix -A $a >$a.drv 2>/dev/null || { echo "cannot instantiate $a"; return 1; }
	done &&
	nixs --export $(nixs -qR $(cat *.drv)) | cix store --import >/dev/null &&
	test "$(outs $(cat fodA.drv))" = "$(outs $(cat fodB.drv))"
'

test_expect_success NIX 'security 1/20: hard links to a host file (not root'\''s, mode 604) fail, target untouched, nothing registered' '
	test_expect_code 1 cix store -r $(cat hlFail.drv) 2>err &&
	grep "failed with exit code 1" err && grep "Invalid cross-device link" err &&
	test_path_is_missing "$(outs $(cat hlFail.drv))" &&
	o=$(cix store -r $(cat hlOk.drv) 2>err) &&
	test "$(grep -c REFUSED err)" = 3 &&
	test "$(ls $o)" = y &&
	test_expect_code 1 cix store -r $(cat hlFod.drv) 2>err &&
	grep REFUSED err &&
	test_expect_code 1 cix store --check-validity "$(outs $(cat hlFod.drv))" 2>/dev/null &&
	canarydir_intact
'

test_expect_success NIX,PERL 'security 2/9/19: setuid/setgid through chmod, fchmod, fchmodat(2), install, cp -p fail with EPERM; a poller never sees one' '
	# Another process polls the store, the state and the log directories.
	rm -f stop-poll seen &&
	{ while [ ! -e stop-poll ]; do
		find "$CIX_STORE_DIR" "$CIX_STATE_DIR" "$CIX_LOG_DIR" -perm /6000 >>seen 2>/dev/null
		echo >>polls
	done & } && bg $! &&
	o=$(cix store -r $(cat suid.drv) 2>log1) &&
	test_expect_code 1 cix store -r -K $(cat suidFail.drv) 2>log2 &&
	touch stop-poll && wait &&
	test "$(wc -l <polls)" -gt 3 &&
	test_must_fail test -s seen &&
	for l in log1 log2; do
		grep "^finished$" $l &&
		! grep SUID $l &&
		test "$(grep -c "^[a-z0-9]* [0-9]*: Operation not permitted$" $l)" = 16 || return 1
	done &&
	kept=$(ls -d state/builds/kept-*) && test -f $kept/started &&
	find $kept -perm /6000 >kept-suid && rm -rf $kept && test_must_fail test -s kept-suid &&
	test -z "$(find $o -perm /6000)" &&
	test "$(stat -c %a $o/a $o/b $o/su | sort -u)" = 444
'

test_expect_success NIX,M32 'security 2/19: a 32-bit program cannot chmod or fchmodat setuid either' '
	cix store -r $(cat suid.drv) >/dev/null &&
	cix store -l $(cat suid.drv) >log &&
	grep "^m32: 3$" log
'

test_expect_success NIX 'security 25: modes 777 and 000 canonicalised, xattrs and device nodes refused' '
	o=$(cix store -r $(cat odd.drv) 2>log) &&
	test "$(grep -c "Operation not supported" log)" = 2 && grep NO-MKNOD log &&
	test "$(stat -c "%a %u %g" $o $o/d $o/f $o/g)" = "$(printf "555 0 0\n555 0 0\n555 0 0\n444 0 0")" &&
	test "$(ls $o)" = "$(printf "d\nf\ng")" &&
	test -z "$($PY -c "import os, sys; print(os.listxattr(sys.argv[1]))" $o/f | tr -d "[]")" &&
	cix store --verify-path $o
'

test_expect_success NIX 'security 25: a FIFO or a socket in an output is refused, nothing registered' '
	for x in fifo sock fifoFod; do
		test_expect_code 1 timeout 20 cix store -r $(cat $x.drv) 2>err &&
		grep "not a file, directory or symlink\|FIFO\|socket" err &&
		test_path_is_missing "$(outs $(cat $x.drv))" || return 1
	done &&
	test -z "$(ls store/.cix-tmp)"
'

smuggle_report=
test_expect_success NIX,PYTHON 'security 5/11/22: a FOD cannot pass $out through an abstract socket; stored bytes stay' '
	sock=$(grep sockname sec.nix | sed "s/.*sockname = \"\([^\"]*\)\".*/\1/") &&
	rm -f go result &&
	{ $PY receiver.py "$sock" go result 2>receiver.err & } &&
	rpid=$! && bg $rpid &&
	wait_for result &&
	o=$(cix store -r $(cat smuggled.drv) 2>log) &&
	cat log &&
	touch go &&
	{ grep "^SMUGGLED" log >smuggled || grep "smuggling failed" log >smuggled; } &&
	if grep -q SMUGGLED smuggled; then
		for i in $(seq 50); do grep -q "wrote\|failed" result && break; sleep 0.1; done
	fi &&
	{ kill $rpid 2>/dev/null || :; } && wait &&
	cat result receiver.err &&
	test "$(cat $o)" = hello &&
	cix store --verify-path $o &&
	cix store --verify --check-contents &&
	# Item 11: a FOD has a network namespace of its own, and may make no Unix socket.
	grep "smuggling failed: \[Errno 1\] Operation not permitted" smuggled
'

test_expect_success NIX 'security 15/23: a FOD plants symlinks and FIFOs in /build, /tmp and its store; nothing outside is written' '
	o=$(timeout 20 cix store -r $(cat plant.drv)) &&
	test "$(cat $o)" = hello &&
	cix store --check-validity $o &&
	test_path_is_missing "$(outs $(cat plantOther.drv))" &&
	canarydir_intact &&
	test -z "$(ls store/.cix-tmp)" && test -z "$(ls state/builds)" &&
	test -z "$(find store -maxdepth 1 -name "*.lock")"
'

test_expect_success NIX 'security 15/23: a flat FOD whose $out is a symlink to a host file is refused (not hashed through the link)' '
	# Known bug, lib/build.c check_fixed(): the flat hash is taken with
	# cix_hash_file(o->path), which follows a symlink on the host: the
	# builder confirms a guess of any host file (here its hash matches),
	# and $out -> /dev/zero never ends. Nix wants a regular file here.
	test_expect_code 1 timeout 20 cix store -r $(cat symlinkSecret.drv) 2>err &&
	test_expect_code 1 cix store --check-validity "$(outs $(cat symlinkSecret.drv))" 2>/dev/null
'

test_expect_success NIX 'security 24: a setsid child, a double-forked child holding the log and 100 sleepers are all killed' '
	start=$(date +%s) &&
	o=$(timeout 20 cix store -r $(cat lingering.drv)) &&
	test $(($(date +%s) - start)) -lt 10 &&
	test -f $o &&
	for i in $(seq 30); do marker_alive 302020.25 || break; sleep 0.1; done &&
	! marker_alive 302020.25
'

test_expect_success NIX 'security 24: a log flood is stopped by --timeout, and the builder dies' '
	# No option limits the log size (Nix: --max-build-log-size).
	start=$(date +%s) &&
	test_expect_code 1 timeout 30 cix store -r --timeout 1 $(cat flood.drv) >/dev/null 2>/dev/null &&
	test $(($(date +%s) - start)) -lt 10 &&
	for i in $(seq 30); do marker_alive t2020-flood-marker || break; sleep 0.1; done &&
	! marker_alive t2020-flood-marker &&
	test_path_is_missing "$(outs $(cat flood.drv))" &&
	test -z "$(ls state/builds)"
'

test_expect_success NIX 'security 27/38: kill -9 of a client mid-build: builder gone, lock released to a waiting client, store consistent' '
	o=$(outs $(cat killed.drv)) &&
	rm -f exposed/go-killed &&
	{ cix store -r $(cat killed.drv) >k1.out 2>k1.err & } &&
	k1=$! && bg $k1 &&
	wait_for "state/builds/build-*/started" &&
	# A second client waits on the output lock.
	{ timeout 30 cix store -r $(cat killed.drv) >k2.out 2>k2.err & } &&
	k2=$! && bg $k2 &&
	sleep 0.3 && kill -0 $k2 &&
	test "$(grep -c "building killed" k1.err)" = 1 &&
	kill -9 $k1 && { wait $k1 || :; } &&
	# The sandbox dies with its caller; the waiting client takes over.
	for i in $(seq 100); do
		test "$(ls state/builds/build-*/started | wc -l)" = 2 && break; sleep 0.1
	done &&
	test "$(ls state/builds/build-*/started | wc -l)" = 2 &&
	# One builder runs: the killed client'\''s is gone.
	for i in $(seq 30); do
		test "$(grep -ls "[m]arker-killed" /proc/[0-9]*/cmdline | wc -l)" = 1 && break; sleep 0.1
	done &&
	test "$(grep -ls "[m]arker-killed" /proc/[0-9]*/cmdline | wc -l)" = 1 &&
	test_path_is_missing "$o" &&
	test_expect_code 1 cix store --check-validity "$o" 2>/dev/null &&
	touch exposed/go-killed &&
	wait $k2 &&
	test "$(cat k2.out)" = "$o" && test "$(cat $o/b)" = done &&
	grep "building killed" k2.err &&
	! marker_alive marker-killed &&
	cix store --verify --check-contents &&
	# The dead client'\''s temporaries go at the next open, its build
	# directory at the next realise.
	test -z "$(ls store/.cix-tmp)" &&
	test "$(ls state/builds | wc -l)" = 1 &&
	cix store -r $(cat killed.drv) >/dev/null &&
	test -z "$(ls state/builds)"
'

test_expect_success NIX 'security 34: two processes realise two FODs with one output: no deadlock, built once' '
	o=$(outs $(cat fodA.drv)) &&
	{ timeout 30 cix store -r $(cat fodA.drv) >a.out 2>a.err & } &&
	a=$! && bg $a &&
	wait_for "state/builds/build-*/started" &&
	{ timeout 30 cix store -r $(cat fodB.drv) >b.out 2>b.err & } &&
	b=$! && bg $b &&
	sleep 0.3 &&
	touch exposed/go-fod &&
	wait $a && wait $b &&
	test "$(cat a.out)" = "$o" && test "$(cat b.out)" = "$o" &&
	test "$(cat a.err b.err | grep -c "building same")" = 1 &&
	test "$(cat $o)" = hello
'

test_expect_success NIX 'security 34: one process realises two FODs with one output with -j2: no deadlock, built once' '
	# Known bug, lib/build.c build(): a worker takes the output locks
	# (cix_path_lock, a blocking flock) while holding the scheduler mutex;
	# the other worker, whose builder is done, waits for that mutex to
	# register its output and release the lock: a deadlock.
	o2=$(outs $(cat fodC.drv)) &&
	touch exposed/go-fod2 &&
	timeout 10 cix store -r -j2 $(cat fodC.drv) $(cat fodD.drv) >cd.out 2>cd.err &&
	test "$(sort -u cd.out)" = "$o2" &&
	test "$(grep -c "building same2" cd.err)" = 1 &&
	test "$(cat $o2)" = hello
'

test_expect_success NIX 'security 39: left-over locks, temporaries, a partial output and build directories are cleaned or ignored' '
	o=$(outs $(cat leftover.drv)) && b=${o##*/} &&
	mkdir -p store/.cix-tmp/tmp-99999999-0/ro store/.cix-tmp/$b state/builds/build-stale "$o" &&
	echo junk >store/.cix-tmp/tmp-99999999-0/ro/f && chmod 0 store/.cix-tmp/tmp-99999999-0/ro &&
	ln -s "$T/canarydir" store/.cix-tmp/tmp-99999999-1 &&
	ln -s "$T/canarydir" store/.cix-tmp/$b/escape &&
	mkdir store/.cix-tmp/tmp-$$-7 && echo live >store/.cix-tmp/tmp-$$-7/f &&
	echo 12345 >store/$b.lock &&
	echo stale >"$o/partial" && chmod 0 "$o" &&
	echo junk >state/builds/build-stale/f &&
	test "$(timeout 20 cix store -r $(cat leftover.drv))" = "$o" &&
	test "$(ls $o)" = f && test "$(cat $o/f)" = fresh &&
	test "$(ls store/.cix-tmp)" = tmp-$$-7 &&
	test_path_is_missing store/$b.lock &&
	canarydir_intact &&
	cix store --verify --check-contents &&
	rm -rf store/.cix-tmp/tmp-$$-7 state/builds/build-stale
'

test_expect_success NIX,PYTHON 'security 21: a non-FOD builder reaches no host TCP service, abstract socket or process, nor writes inputs or /etc' '
	sock=t2020-probe-$$ &&
	rm -f port &&
	{ "$CIX_BUILD_DIR/bench/httpd" -d "$T/canarydir" -p port -l httpd.log 2>httpd.err & } &&
	hpid=$! && bg $hpid &&
	wait_for port &&
	{ $PY -c "import socket, sys, time
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM); s.bind(\"\\0\" + sys.argv[1]); s.listen(1)
open(\"listening\", \"w\").close(); s.settimeout(20)
try: s.accept(); open(\"accepted\", \"w\").close()
except OSError: pass" $sock & } &&
	lpid=$! && bg $lpid &&
	wait_for listening &&
	input=$(outs $(cat plantOther.drv)) &&
	cix store -r $(cat plantOther.drv) >/dev/null &&
	cat >probe.nix <<-EOF &&
	derivation { name = "probe"; system = "x86_64-linux"; builder = "/bin/sh";
	  args = [ "$EXPOSED/probe.sh" ]; port = "$(cat port)"; sockname = "$sock";
	  hostpid = "$hpid"; input = (import ./sec.nix).plantOther; }
	EOF
	p=$(mkdrv probe.nix "") &&
	o=$(cix store -r $p 2>log) &&
	cat $o/report &&
	kill -0 $hpid && grep "^State:.*S\|^State:.*R" /proc/$hpid/status &&
	{ kill $hpid $lpid || :; } && wait &&
	test_path_is_missing accepted &&
	! grep "CONNECTED\|SIGNALLED\|WROTE\|MOUNTED" $o/report &&
	test "$(grep -c . $o/report)" -ge 8 &&
	test "$(cat $input)" = "" &&
	test_must_fail test -s httpd.log
'

test_done
