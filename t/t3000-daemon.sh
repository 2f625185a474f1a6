#!/bin/sh
# t3000-daemon.sh - the Nix 2.8 client through cix-daemon, Nix itself as the oracle
# SPDX-License-Identifier: GPL-3.0-or-later
test_description='cix-daemon: nix-store through unix:// prints what a private Nix store prints'
. "$(dirname "$0")/test-lib.sh"

T=$TRASH_DIRECTORY
test_private_store
test_private_conf 'trusted-users = root'
test_sandbox_host_paths
# The oracle: a private Nix store with the same logical store directory.
test_nix_oracle
NIX_CONFIG="$NIX_CONFIG
extra-sandbox-paths = /bin /lib /lib64 /usr"
SOCK=$T/sock
D="unix://$SOCK?store=$CIX_STORE_DIR&log=$CIX_LOG_DIR"
dst () { nix-store --store "$D" "$@"; }

[ "$(id -u)" = 0 ] && command -v runuser >/dev/null && id nobody >/dev/null 2>&1 &&
	test_set_prereq NOBODY
command -v unshare >/dev/null && [ "$(id -u)" = 0 ] &&
	unshare -m --propagation private true 2>/dev/null && test_set_prereq MOUNTNS

# Every daemon started is killed at the end, workers included.
trap 'for p in $(cat "$T/daemons" 2>/dev/null); do pkill -9 -f -- "cix-daemon --listen $p" 2>/dev/null; done' EXIT

# nb CMD...: CMD as the unprivileged user nobody.
nb () { runuser -u nobody -- env HOME="$T/nb" XDG_CACHE_HOME="$T/nb" "$@"; }

# start_daemon SOCKET [ENV=VALUE...]: a cix-daemon listening on SOCKET.
start_daemon () {
	s_=$1; shift
	rm -f "$s_"
	grep -qxF "$s_" "$T/daemons" 2>/dev/null || echo "$s_" >>"$T/daemons"
	env "$@" cix-daemon --listen "$s_" --debug 2>>"$T/daemon.log" &
	test_wait_for "$s_"
}

# stop_daemon SOCKET: kill its daemon and workers.
stop_daemon () {
	pkill -9 -f -- "cix-daemon --listen $1" 2>/dev/null
	for i_ in $(seq 50); do
		pgrep -f -- "cix-daemon --listen $1" >/dev/null || return 0
		sleep 0.1
	done
	return 1
}

# valid_paths: every valid path of cix's store, sorted.
valid_paths () {
	ls -d "$CIX_STORE_DIR"/* | grep -v '\.lock$' | sort >all.tmp &&
	{ cix store --check-validity --print-invalid $(cat all.tmp) || :; } | sort >invalid.tmp &&
	comm -23 all.tmp invalid.tmp
}

test_expect_success NIX 'the daemon starts and creates its store' '
	start_daemon "$SOCK" &&
	test -d "$CIX_STORE_DIR" && test -S "$SOCK" &&
	dst --check-validity
'

test_expect_success NIX '--add of a file and of a directory, --add-fixed flat and recursive' '
	printf "hello\n" >hello.txt && mkdir -p dir/sub && echo x >dir/a &&
	printf "#!/bin/sh\n" >dir/sub/run && chmod +x dir/sub/run && ln -s a dir/l &&
	for s in dst nixs; do
		$s --add hello.txt dir >add.$s &&
		$s --add-fixed sha256 hello.txt >>add.$s &&
		$s --add-fixed --recursive sha256 dir >>add.$s &&
		$s --add-fixed sha256 hello.txt >>add.$s || return 1
	done &&
	test_cmp add.nixs add.dst &&
	test_line_count = 5 add.dst &&
	cix store --check-validity $(cat add.dst)
'

test_expect_success NIX 'derivations instantiated through the daemon equal Nix'"'"'s' '
	cat >d.nix <<-\EOF &&
	let sh = "/bin/sh"; sys = "x86_64-linux"; in rec {
	  dep = builtins.toFile "dep.txt" "dependency text";
	  a = derivation { name = "a"; system = sys; builder = sh; inherit dep;
	    args = [ "-c" "echo building a; echo hello $dep > $out" ]; };
	  b = derivation { name = "b"; system = sys; builder = sh; outputs = [ "out" "doc" ]; inherit a;
	    args = [ "-c" "echo building b; read x < $a; /bin/mkdir $out $doc; echo $x $a > $out/f; echo $out > $doc/g; /bin/ln -s f $out/l" ]; };
	  c = derivation { name = "c"; system = sys; builder = sh; b = b.doc; inherit a;
	    args = [ "-c" "echo $b > $out; echo $out >> $out" ]; };
	  fails = derivation { name = "fails"; system = sys; builder = sh;
	    args = [ "-c" "echo first line; echo oops; exit 3" ]; };
	}
	EOF
	for x in a b c fails; do
		nix-instantiate --store "$D" d.nix -A $x >$x.drv 2>inst.err &&
		nix-instantiate --store "$N" d.nix -A $x >$x.ndrv 2>/dev/null &&
		test_cmp $x.ndrv $x.drv || { cat inst.err; return 1; }
	done &&
	for q in --hash --size --references --deriver -R --tree; do
		dst -q $q $(cat c.drv) >q.dst && nixs -q $q $(cat c.drv) >q.nixs &&
		test_cmp q.nixs q.dst || return 1
	done
'

test_expect_success NIX '--realise: plain, multi-output, references between them' '
	dst --realise $(cat c.drv) >r.dst 2>r.log &&
	nixs --realise $(cat c.drv) >r.nixs 2>/dev/null &&
	test_cmp r.nixs r.dst &&
	grep "building a" r.log && grep "building b" r.log &&
	dst --realise $(cat b.drv) >rb.dst 2>/dev/null &&
	nixs --realise $(cat b.drv) >rb.nixs 2>/dev/null &&
	test_cmp rb.nixs rb.dst && test_line_count = 2 rb.dst &&
	dst -q --outputs $(cat b.drv) >o.dst && nixs -q --outputs $(cat b.drv) >o.nixs &&
	test_cmp o.nixs o.dst
'

test_expect_success NIX '-q --hash/--size/--references/--referrers/--deriver/--outputs/-R/--tree, as Nix' '
	for p in $(cat add.dst r.dst rb.dst) $(cat a.drv b.drv c.drv); do
		for q in --hash --size --references --referrers --deriver -R --tree; do
			dst -q $q $p >q.dst 2>q.err && nixs -q $q $p >q.nixs &&
			test_cmp q.nixs q.dst || { echo "differs: $q $p"; cat q.err; return 1; }
		done
	done &&
	for d in a b c; do
		dst -q --outputs $(cat $d.drv) >q.dst && nixs -q --outputs $(cat $d.drv) >q.nixs &&
		test_cmp q.nixs q.dst || return 1
	done
'

test_expect_success NIX 'cix store -q on the same store agrees with what the client saw' '
	for p in $(cat add.dst r.dst rb.dst); do
		for q in --hash --size --references --referrers --deriver -R; do
			cix store -q $q $p >q.cix && dst -q $q $p >q.dst &&
			test_cmp q.dst q.cix || { echo "differs: $q $p"; return 1; }
		done
	done &&
	# the same outputs (their order: the next test)
	cix store -q --outputs $(cat b.drv) | sort >q.cix && sort o.dst >o.sorted &&
	test_cmp o.sorted q.cix
'

# Nix prints a derivation'"'"'s outputs sorted by store path; so does cix store.
test_expect_success NIX 'cix store -q --outputs prints the outputs in Nix'"'"'s order' '
	cix store -q --outputs $(cat b.drv) >q.cix && test_cmp o.dst q.cix
'

test_expect_success NIX '--check-validity: valid paths pass, an invalid one fails as with Nix' '
	dst --check-validity $(cat add.dst r.dst rb.dst) &&
	bogus=$CIX_STORE_DIR/00000000000000000000000000000000-nope &&
	test_expect_code 1 dst --check-validity $(cat r.dst) "$bogus" 2>e.dst &&
	test_expect_code 1 nixs --check-validity $(cat r.dst) "$bogus" 2>e.nixs &&
	test_cmp e.nixs e.dst &&
	test_expect_code 1 dst -q --hash "$bogus" 2>e.dst &&
	test_expect_code 1 nixs -q --hash "$bogus" 2>e.nixs &&
	test_cmp e.nixs e.dst
'

test_expect_success NIX 'a failing build: exit code 1, the builder'"'"'s lines shown as Nix shows them' '
	test_expect_code 1 dst --realise $(cat fails.drv) >f.out 2>f.err &&
	# a local Nix store exits 100 for a failed build; through a daemon: 1
	test_expect_code 100 nixs --realise $(cat fails.drv) >/dev/null 2>f.nixs &&
	cat f.err &&
	test_line_count = 0 f.out &&
	for l in "building '"'"'$(cat fails.drv)'"'"'..." "first line" "oops" \
		 "error: builder for '"'"'$(cat fails.drv)'"'"' failed with exit code 3"; do
		grep -xF "$l" f.nixs && grep -xF "$l" f.err || return 1
	done &&
	test_expect_code 1 dst --check-validity $(nixs -q --outputs $(cat fails.drv)) 2>/dev/null
'

test_expect_success NIX '--verify --check-contents through the daemon: a modified path named as by Nix' '
	dst --verify --check-contents 2>v.err &&
	nixs --verify --check-contents 2>/dev/null &&
	echo "to be modified" >mod.txt &&
	m=$(dst --add mod.txt) && test "$(nixs --add mod.txt)" = "$m" &&
	echo "modified" >"$m" && echo "modified" >"$T/nixreal/${m##*/}" &&
	test_expect_code 1 dst --verify --check-contents 2>v.dst &&
	test_expect_code 1 nixs --verify --check-contents 2>v.nixs &&
	grep "^path .*was modified" v.nixs >want &&
	grep "^path .*was modified" v.dst >got &&
	test_cmp want got &&
	tail -n 1 v.nixs >want && tail -n 1 v.dst >got && test_cmp want got &&
	echo "to be modified" >"$m" && echo "to be modified" >"$T/nixreal/${m##*/}" &&
	dst --verify --check-contents &&
	cix store --verify --check-contents
'

test_expect_success NIX,MOUNTNS '--export of a closure, --import into a second daemon on a second store' '
	dst --export $(dst -q -R $(cat r.dst)) >closure.export &&
	nixs --export $(nixs -q -R $(cat r.dst)) >closure.nixexport &&
	dst -q -R $(cat r.dst) >closure.paths &&
	# A second store at the same logical path, in a mount namespace of its own.
	mkdir -p store2 state2 &&
	rm -f sock2 && echo "$T/sock2" >>"$T/daemons" &&
	{ CIX_STATE_DIR=$T/state2 unshare -m --propagation private sh -c \
		"mount --bind \"$T/store2\" \"$CIX_STORE_DIR\" && exec cix-daemon --listen \"$T/sock2\"" \
		2>>"$T/daemon.log" & } &&
	test_wait_for sock2 &&
	D2="unix://$T/sock2?store=$CIX_STORE_DIR" &&
	nix-store --store "$D2" --import <closure.export >imported &&
	sort imported >imported.sorted && sort closure.paths >closure.sorted &&
	test_cmp closure.sorted imported.sorted &&
	for p in $(cat closure.paths); do
		for q in --hash --size --references --deriver; do
			nix-store --store "$D2" -q $q $p >q2 && dst -q $q $p >q1 &&
			test_cmp q1 q2 || return 1
		done
	done &&
	nix-store --store "$D2" --verify --check-contents &&
	test "$(ls store2 | wc -l)" -ge "$(wc -l <closure.paths)" &&
	stop_daemon "$T/sock2"
'

test_expect_success NIX '--gc --print-dead and --print-live with a root in gcroots/' '
	root=$(cat r.dst) &&
	mkdir -p "$CIX_STATE_DIR/gcroots" &&
	ln -sf "$root" "$CIX_STATE_DIR/gcroots/test-root" &&
	dst --gc --print-dead >dead.out 2>gc.err &&
	dst --gc --print-live >live.out 2>gc.err &&
	valid_paths >valid &&
	# alive: the closure of the root, and (gc-keep-derivations, on as in
	# Nix) the closures of the valid derivations its paths were built from
	dst -q -R "$root" >closure.0 &&
	for p in $(cat closure.0); do
		d=$(dst -q --deriver "$p") &&
		if dst --check-validity "$d" 2>/dev/null; then dst -q -R "$d"; fi || return 1
	done >>closure.0 &&
	sort -u closure.0 >closure &&
	comm -23 valid closure >want-dead &&
	sort dead.out >dead && sort live.out >live &&
	test_cmp want-dead dead &&
	test_cmp closure live &&
	# nothing was deleted
	valid_paths >valid2 && test_cmp valid valid2
'

test_expect_success NIX,NOBODY 'an unprivileged user: adds, instantiates and builds; no import, no repair' '
	chmod 755 "$T" && mkdir -p nb && chmod 777 nb &&
	echo "nobody was here" >nb/mine.txt &&
	nb nix-store --store "$D" --add nb/mine.txt >nb.add &&
	nixs --add nb/mine.txt >nb.nixadd &&
	test_cmp nb.nixadd nb.add &&
	cat >nb/u.nix <<-\EOF &&
	derivation { name = "unpriv"; system = "x86_64-linux"; builder = "/bin/sh";
	  args = [ "-c" "echo built by someone > $out" ]; }
	EOF
	nb nix-instantiate --store "$D" nb/u.nix >u.drv 2>nb.err &&
	nix-instantiate --store "$N" nb/u.nix >u.ndrv 2>/dev/null &&
	test_cmp u.ndrv u.drv &&
	nb nix-store --store "$D" --realise $(cat u.drv) >u.out 2>nb.err &&
	test "$(cat $(cat u.out))" = "built by someone" &&
	test "$(stat -c %u $(cat u.out))" = 0 &&
	# an input-addressed export stream (built by Nix only) is refused
	cat >ia.nix <<-\EOF &&
	derivation { name = "nix-only"; system = "x86_64-linux"; builder = "/bin/sh";
	  args = [ "-c" "echo made by nix > $out" ]; }
	EOF
	ia=$(nixs --realise $(nix-instantiate --store "$N" ia.nix 2>/dev/null) 2>/dev/null) &&
	nixs --export "$ia" >nb/ia.export &&
	test_expect_code 1 nb nix-store --store "$D" --import <nb/ia.export >imp.out 2>imp.err &&
	cat imp.err && test_line_count = 1 imp.err &&
	grep "^error: cannot add path .*not content-addressed" imp.err &&
	test_expect_code 1 dst --check-validity "$ia" 2>/dev/null &&
	test_path_is_missing "$ia" &&
	# the same stream from root is accepted
	dst --import <nb/ia.export >imp.out &&
	test "$(cat imp.out)" = "$ia" &&
	test "$(dst -q --hash "$ia")" = "$(nixs -q --hash "$ia")" &&
	test_expect_code 1 nb nix-store --store "$D" --verify --repair 2>rep.err &&
	grep "not privileged" rep.err &&
	nb nix-store --store "$D" --verify --check-contents
'

test_expect_success NIX,NOBODY 'allowed-users = root: the user is refused at connect' '
	printf "allowed-users = root\n" >only-root.conf &&
	start_daemon "$T/sock3" CIX_CONF_FILE=$T/only-root.conf &&
	D3="unix://$T/sock3?store=$CIX_STORE_DIR" &&
	test_expect_code 1 nb nix-store --store "$D3" -q --hash $(cat add.dst | head -1) >out 2>err &&
	cat err && test_line_count = 0 out &&
	grep -i "not allowed" err &&
	nix-store --store "$D3" -q --hash $(cat add.dst | head -1) &&
	stop_daemon "$T/sock3"
'

test_expect_success NIX 'two clients realising one derivation at once: built once, both succeed' '
	cat >two.nix <<-\EOF &&
	derivation { name = "two"; system = "x86_64-linux"; builder = "/bin/sh";
	  args = [ "-c" "echo building two $(/bin/date +%s%N); /bin/sleep 2; echo done > $out" ]; }
	EOF
	nix-instantiate --store "$D" two.nix >two.drv 2>/dev/null &&
	{ dst --realise $(cat two.drv) >t1.out 2>t1.log & } &&
	# the second asks while the first one'"'"'s build runs
	for i in $(seq 100); do grep -q "^building two" t1.log && break; sleep 0.05; done &&
	grep "^building two" t1.log &&
	dst --realise $(cat two.drv) >t2.out 2>t2.log &&
	wait &&
	test_cmp t1.out t2.out &&
	test "$(cat t1.log t2.log | grep -c "^building two")" = 1 &&
	test "$(cat $(cat t1.out))" = done
'

test_expect_success NIX 'kill -9 of the daemon during a build, restart: nothing half-registered' '
	cat >k.nix <<-\EOF &&
	derivation { name = "killed"; system = "x86_64-linux"; builder = "/bin/sh";
	  args = [ "-c" "/bin/mkdir $out; echo partial > $out/a; echo started; /bin/sleep 3.1416; echo done > $out/b" ]; }
	EOF
	nix-instantiate --store "$D" k.nix >k.drv 2>/dev/null &&
	o=$(dst -q --outputs $(cat k.drv)) &&
	{ dst --realise $(cat k.drv) >k1.out 2>k1.log & } &&
	for i in $(seq 100); do grep -q started k1.log && break; sleep 0.1; done &&
	grep started k1.log &&
	stop_daemon "$SOCK" &&
	{ wait || :; } &&
	for i in $(seq 50); do pgrep -f "sleep 3.1416" >/dev/null || break; sleep 0.1; done &&
	! pgrep -f "sleep 3.1416" &&
	start_daemon "$SOCK" &&
	cix store --verify --check-contents &&
	if dst --check-validity "$o" 2>/dev/null; then
		test "$(cat "$o/b")" = done
	fi &&
	dst --realise $(cat k.drv) >k2.out 2>k2.log &&
	test "$(cat k2.out)" = "$o" &&
	test "$(cat "$o/b")" = done &&
	cix store --verify --check-contents &&
	dst -q --hash "$o" >h.dst && cix store -q --hash "$o" >h.cix && test_cmp h.cix h.dst
'

test_expect_success NIX 'a committer registers for the workers; killed, it is started again, and adds go on meanwhile' '
	d=$(pgrep -o -f -- "cix-daemon --listen $SOCK") &&
	c=$(pgrep -P "$d" -x cix-committer) &&
	kill -9 "$c" &&
	echo one >c1 && dst --add c1 >c1.out &&
	dst --check-validity $(cat c1.out) &&
	c2= &&
	for i in $(seq 40); do
		c2=$(pgrep -P "$d" -x cix-committer) && break
		dst -q --hash $(cat c1.out) >/dev/null; sleep 0.1
	done &&
	test -n "$c2" && test "$c2" != "$c" &&
	echo two >c2 && dst --add c2 >c2.out && dst --check-validity $(cat c2.out) &&
	cix store --verify --check-contents
'

test_expect_success NIX 'no daemon is left behind, none reported an error of its own' '
	stop_daemon "$SOCK" &&
	! pgrep -f -- "cix-daemon --listen $T/" &&
	! grep -i "sanitizer\|runtime error" daemon.log && ! grep "BUG" daemon.log
'

test_done
