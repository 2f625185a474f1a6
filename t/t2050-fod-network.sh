#!/bin/sh
# t2050-fod-network.sh - a fixed-output build's network: a namespace of its own through slirp4netns
# SPDX-License-Identifier: GPL-3.0-or-later
test_description='fixed-output builds: their own network (slirp4netns), no host abstract socket, no descriptor passed out (doc/security.md items 11, 22)'
. "$(dirname "$0")/test-lib.sh"

# Found by an attack: a FOD kept the host's network namespace, so
# socketpair(AF_UNIX, SOCK_DGRAM) and sendmsg to a host process's abstract
# address handed it a writable descriptor of $out (and received one of /).
# Now it has a network namespace of its own, where the host's abstract
# sockets do not exist, and may make no Unix socket at all.

T=$TRASH_DIRECTORY
chmod 755 "$T"
EXPOSED=$(test_outside_tmp_dir exposed) || exit 1
chmod 755 "$EXPOSED"
test_sandbox_host_paths $EXPOSED
unset CIX_FOD_HOST_LOOPBACK CIX_SLIRP4NETNS
# Never the machine's build users (cixbld): killing a build user's
# processes before each build would kill another store's builds.
NO_BUILD_USERS=cixf-none-$$
CIX_BUILD_USERS_GROUP=$NO_BUILD_USERS
export CIX_BUILD_USERS_GROUP
unset http_proxy https_proxy ftp_proxy all_proxy no_proxy HTTP_PROXY HTTPS_PROXY ALL_PROXY NO_PROXY
# No cix.conf of the machine's: the default is no host loopback.
CIX_CONF_FILE=$T/cix.conf
export CIX_CONF_FILE
NIX_CONFIG="$NIX_CONFIG
sandbox = false"
# slirp4netns inherits the environment: this marks the ones of this test.
T2050_MARK=t2050-$$-$(date +%s%N)
export T2050_MARK

PY=/usr/bin/python3
[ -x $PY ] && $PY -c 'import socket; socket.send_fds' 2>/dev/null && test_set_prereq PYTHON
{ command -v slirp4netns || [ -x /usr/bin/slirp4netns ]; } >/dev/null && test_set_prereq SLIRP
if [ "$(id -u)" = 0 ]; then
	test_set_prereq ROOT
	command -v runuser >/dev/null && runuser -u nobody -- unshare -Ur true 2>/dev/null &&
		test_set_prereq UNPRIV
	# slirp4netns opens /dev/net/tun as its caller (0666 on Debian, not everywhere)
	runuser -u nobody -- sh -c ': <>/dev/net/tun' 2>/dev/null && test_set_prereq NOBODY_TUN
	G=cixf$$
	if command -v useradd >/dev/null && groupadd -r $G 2>/dev/null; then
		trap 'userdel ${G}a 2>/dev/null; groupdel $G 2>/dev/null' EXIT
		useradd -r -g $G -G $G -M -N -d /var/empty -s /usr/sbin/nologin ${G}a &&
		test_set_prereq BUILDUSERS
	fi
fi
HELLO=$(printf 'hello\n' >hello && nix-hash --type sha256 --flat --base32 hello 2>/dev/null)

# The builder: probes, one line each, then $out (or a failure when asked).
cat >"$EXPOSED/probe.py" <<\EOF
import array, errno, os, socket, sys, urllib.request
env = os.environ
name = env["sockname"]

def probe(what, f):
    try:
        v = f()
        r = "ok" if v is None else v
    except OSError as e:
        r = errno.errorcode.get(e.errno, "failed") if e.errno else "failed"
    print("PROBE %s: %s" % (what, r), flush=True)

def connect():
    socket.socket(socket.AF_UNIX, socket.SOCK_STREAM).connect("\0" + name)

def pass_fd():
    a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)
    fd = os.open(env["out"], os.O_RDWR | os.O_CREAT, 0o644)
    rights = [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", [fd]).tobytes())]
    a.sendmsg([b"fd"], rights, 0, "\0" + name + "-d")

def dgram():
    socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM).sendto(b"x", "\0" + name + "-d")

def http():
    url = "http://10.0.2.2:%s/file" % env["port"]
    try:
        return urllib.request.urlopen(url, timeout=10).read().decode().strip()
    except Exception:
        return "failed"

probe("netns", lambda: os.readlink("/proc/self/ns/net"))
probe("links", lambda: " ".join(sorted(l.split(":")[0].strip()
                                       for l in open("/proc/net/dev").readlines()[2:])))
probe("abstract", lambda: "visible" if any("@" + name in l for l in open("/proc/net/unix"))
      else "hidden")
probe("connect", connect)
probe("socketpair", lambda: socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM) and None)
probe("socketpair-nb", lambda: socket.socketpair(socket.AF_UNIX,
      socket.SOCK_DGRAM | socket.SOCK_NONBLOCK | socket.SOCK_CLOEXEC) and None)
# A stream pair reaches only itself; resolvers (curl's) need one.
probe("stream-pair", lambda: socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM) and None)
probe("resolve", lambda: socket.getaddrinfo("localhost", 80)[0][4][0])
probe("sendmsg", pass_fd)
probe("dgram", dgram)
probe("resolv", lambda: open("/etc/resolv.conf").read().strip())
probe("hosts", lambda: "localhost" if "127.0.0.1 localhost" in open("/etc/hosts").read() else "none")
probe("http", http)
if env.get("fail"):
    sys.exit(1)
if env.get("gate"):
    # waits to be killed, a minute at most
    for i in range(600):
        os.system("sleep 0.1")
    sys.exit(1)
with open(env["out"], "w") as f:
    f.write("hello\n")
EOF

# Outside: an abstract stream socket and an abstract datagram socket;
# whatever reaches them is written to GOT.
cat >listener.py <<\EOF
import os, select, socket, sys, time
name, ready, got = sys.argv[1:4]
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.bind("\0" + name)
s.listen(4)
d = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
d.bind("\0" + name + "-d")
open(ready, "w").close()
end = time.time() + 600
while time.time() < end:
    r, _, _ = select.select([s, d], [], [], 1)
    for x in r:
        if x is s:
            x.accept()
            open(got, "a").write("connection\n")
        else:
            msg, fds, _, _ = socket.recv_fds(d, 16, 4)
            open(got, "a").write("datagram %r with %d descriptors\n" % (msg, len(fds)))
EOF

SOCK=t2050-$$
mkdir -p www && echo served-by-host >www/file &&
{ "$CIX_BUILD_DIR/bench/httpd" -d www -p port -l httpd.log 2>httpd.err & } &&
HTTPD=$! &&
{ $PY listener.py $SOCK listening got 2>listener.err & } &&
LISTENER=$! &&
trap 'kill $HTTPD $LISTENER $(cat gatepids 2>/dev/null) 2>/dev/null; userdel ${G}a 2>/dev/null; groupdel $G 2>/dev/null' EXIT &&
test_wait_for port && test_wait_for listening || exit 1
PORT=$(cat port)

# Our slirp4netns processes (marked in their environment).
slirp_pids () {
	for p_ in $(pgrep -x slirp4netns); do
		grep -qsa "T2050_MARK=$T2050_MARK" /proc/$p_/environ && echo $p_
	done
}
# none_left: no slirp4netns of ours, within 10 s.
none_left () {
	i_=0
	while [ -n "$(slirp_pids)" ]; do
		[ $i_ -ge 100 ] && { echo "slirp4netns left: $(slirp_pids)"; return 1; }
		sleep 0.1
		i_=$((i_ + 1))
	done
}

# cix_pid DRV: the pid of the cix process realising DRV (not of runuser).
cix_pid () {
	for p_ in /proc/[0-9]*; do
		[ "$(cat $p_/comm 2>/dev/null)" = cix ] && grep -qs "$1" $p_/cmdline &&
			echo ${p_#/proc/} && return 0
	done
	return 1
}

# Mode settings: $RUNAS, the store of the mode, cix through them.
RUNAS= S=
cx () { $RUNAS env CIX_STORE_DIR=$S/store CIX_STATE_DIR=$S/state CIX_LOG_DIR=$S/log \
	"$CIX_BUILD_DIR/cix" "$@"; }
# drv TAG [ATTRS]: a probing FOD named probe-TAG in the mode's store.
drv () {
	n_="local?store=$S/store&real=$S/nixreal&state=$S/nixstate&log=$S/nixlog"
	cat >"$S/$1.nix" <<-EOF &&
	derivation ({ name = "probe-$1"; system = "x86_64-linux"; builder = "$PY";
	  args = [ "$EXPOSED/probe.py" ]; sockname = "$SOCK"; port = "$PORT";
	  outputHashAlgo = "sha256"; outputHash = "$HELLO"; } // { $2 })
	EOF
	p_=$(nix-instantiate --store "$n_" "$S/$1.nix" 2>/dev/null) &&
	nix-store --store "$n_" --export $(nix-store --store "$n_" -qR "$p_") |
		cx store --import >/dev/null &&
	echo "$p_"
}
# build TAG [ATTRS] [ENV=VALUE...]: realise probe-TAG, its log in TAG.log
build () {
	t_=$1 a_=$2
	shift 2
	d_=$(drv $t_ "$a_") &&
	$RUNAS env "$@" timeout 120 "$CIX_BUILD_DIR/cix" store -r "$d_" >$t_.out 2>$t_.log
	r_=$?
	cat $t_.log
	return $r_
}
# probed TAG WHAT: the result of probe WHAT in TAG's log
probed () { sed -n "s/^PROBE $2: //p" $1.log; }
b_env () { echo CIX_STORE_DIR=$S/store CIX_STATE_DIR=$S/state CIX_LOG_DIR=$S/log; }

# run_checks MODE PREREQ TAG NETPREREQ: NETPREREQ for the checks that need
# slirp4netns working.
run_checks () {
	mode=$1 prereq=$2 tag=$3 net=$4

	test_expect_success $prereq "$mode: a FOD reaches no host abstract socket and passes out no descriptor" '
		build $tag-walls "" $(b_env) &&
		test "$(cat $(cat $tag-walls.out))" = hello &&
		test "$(probed $tag-walls netns)" != "$(readlink /proc/self/ns/net)" &&
		test "$(probed $tag-walls abstract)" = hidden &&
		test "$(probed $tag-walls connect)" = EPERM &&
		test "$(probed $tag-walls socketpair)" = EPERM &&
		test "$(probed $tag-walls socketpair-nb)" = EPERM &&
		test "$(probed $tag-walls stream-pair)" = ok &&
		test "$(probed $tag-walls resolve)" = 127.0.0.1 &&
		test "$(probed $tag-walls sendmsg)" = EPERM &&
		test "$(probed $tag-walls dgram)" = EPERM &&
		test_path_is_missing got &&
		test "$(probed $tag-walls http)" = failed &&
		test "$(probed $tag-walls resolv)" = "nameserver 10.0.2.3" &&
		test "$(probed $tag-walls hosts)" = localhost &&
		none_left
	'

	test_expect_success $prereq,$net "$mode: a FOD has tap0, and the host's loopback only with fod-host-loopback" '
		test "$(probed $tag-walls links)" = "lo tap0" &&
		! grep "^cix: no network" $tag-walls.log &&
		build $tag-loop "" $(b_env) CIX_FOD_HOST_LOOPBACK=yes &&
		test "$(probed $tag-loop http)" = served-by-host &&
		build $tag-noloop "" $(b_env) CIX_FOD_HOST_LOOPBACK=no &&
		test "$(probed $tag-noloop http)" = failed &&
		none_left
	'

	test_expect_success $prereq "$mode: without slirp4netns a FOD has loopback only, and its log says why" '
		build $tag-noslirp "" $(b_env) CIX_SLIRP4NETNS=/nonexistent/slirp4netns CIX_FOD_HOST_LOOPBACK=yes &&
		test "$(grep -c "^cix: no network for this fixed-output build but loopback: slirp4netns not found" $tag-noslirp.log)" = 1 &&
		test "$(probed $tag-noslirp links)" = lo &&
		test "$(probed $tag-noslirp http)" = failed &&
		test "$(probed $tag-noslirp abstract)" = hidden &&
		test "$(cat $(cat $tag-noslirp.out))" = hello
	'

	test_expect_success $prereq,$net "$mode: no slirp4netns is left after a failed or a killed FOD build" '
		test_must_fail build $tag-fail "fail = \"1\";" $(b_env) &&
		grep "^PROBE http" $tag-fail.log &&
		none_left &&
		d=$(drv $tag-gate "gate = \"1\";") &&
		{ $RUNAS env $(b_env) "$CIX_BUILD_DIR/cix" store -r $d >$tag-gate.out 2>$tag-gate.log & } &&
		rpid=$! &&
		i=0 && while ! grep -qs "^PROBE http" $tag-gate.log && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done &&
		grep "^PROBE http" $tag-gate.log &&
		cpid=$(cix_pid $d) && echo "cix: $cpid" && echo $cpid >>gatepids &&
		p=$(slirp_pids) && echo "slirp4netns: $p" && test -n "$p" &&
		# it holds no descriptor of the build: its own pipes, tun and sockets only
		ls -l /proc/$p/fd | sed -n "s/.* -> //p" >fds &&
		cat fds &&
		! grep -v "^/dev/null$\|^/dev/net/tun$\|^pipe:\|^socket:\|^anon_inode:\[event" fds &&
		test "$(grep -c "^pipe:" fds)" -le 2 &&
		kill -9 $cpid && { wait $rpid || :; } &&
		none_left
	'
}

mkdir -p bu root && S=$T/bu
CIX_BUILD_USERS_GROUP=$G
export CIX_BUILD_USERS_GROUP
run_checks "build users" NIX,PYTHON,ROOT,BUILDUSERS bu SLIRP
# no such group: a user namespace only, mapping root's uid
S=$T/root CIX_BUILD_USERS_GROUP=$NO_BUILD_USERS
run_checks "root" NIX,PYTHON,ROOT root SLIRP

test_expect_success NIX,PYTHON,ROOT,SLIRP 'fod-host-loopback = yes in cix.conf gives the host'\''s loopback; the environment wins' '
	S=$T/root &&
	echo "fod-host-loopback = yes" >cix.conf &&
	build conf-loop "" $(b_env) &&
	test "$(probed conf-loop http)" = served-by-host &&
	build conf-env "" $(b_env) CIX_FOD_HOST_LOOPBACK=no &&
	test "$(probed conf-env http)" = failed
'
rm -f cix.conf

if test_have_prereq UNPRIV; then
	mkdir -p nb/store nb/state nb/log && chown nobody nb nb/store nb/state nb/log
fi
S=$T/nb RUNAS="runuser -u nobody --"
# The unprivileged case is cix store -r run by a user for a store of its own.
run_checks "unprivileged" NIX,PYTHON,UNPRIV nb SLIRP,NOBODY_TUN
if ! test_have_prereq NOBODY_TUN; then
	test_expect_success NIX,PYTHON,UNPRIV,SLIRP 'unprivileged, /dev/net/tun closed to the user: loopback only, and the log says why' '
		test "$(probed nb-walls links)" = lo &&
		grep "^cix: no network for this fixed-output build but loopback: slirp4netns failed" nb-walls.log
	'
fi
RUNAS=

test_done
