#!/bin/sh
# t3300-copy-ssh.sh - ssh-ng:// stores: cix copy to and from machines reached with OpenSSH
# SPDX-License-Identifier: GPL-3.0-or-later
test_description='cix copy --to/--from ssh-ng://: closures to and from other machines (mount namespaces with their own stores, Debian sshd on 127.0.0.1)'
. "$(dirname "$0")/test-lib.sh"
. "$CIX_SRC_DIR/t/lib-ssh.sh"

PATH=$CIX_BUILD_DIR/bench:$PATH
T=$TRASH_DIRECTORY
test_private_store
ssh_setup

test_expect_success 'cix copy --help; one of --to and --from; paths needed' '
	cix copy --help >help && grep -e "--to=STORE" help && grep "ssh-ng://" help &&
	test_must_fail cix copy /x 2>e && grep "one of --to=STORE and --from=STORE" e &&
	test_must_fail cix copy --to=local --from=local /x 2>e &&
	test_must_fail cix copy --to=local 2>e && grep "no store paths" e
'

test_expect_success 'bad store URIs: one line each, nothing run' '
	echo hi >f && cix store --add f >p && p=$(cat p) &&
	for u in "ssh-ng://" "ssh-ng://-oProxyCommand=x" "ssh-ng://h:0" "ssh-ng://h:99999" \
		 "ssh-ng://a b" "ssh-ng://h?x=1" "ssh-ng://h?remote-program=a;rm" \
		 "ssh-ng://h?connect-timeout=0" "ssh-ng://h?ssh-key=%0a" "ssh-ng://h?compress=maybe" \
		 "ssh-ng://h?base64-ssh-public-host-key=!!" "ssh-ng://-l@h" "ssh://h" "ftp://h"; do
		test_must_fail cix copy --to "$u" "$p" 2>e &&
		test_line_count = 1 e && grep -e "store URI\|not supported\|cix knows" e || return 1
	done
'

p=$(cat p)

test_expect_success SSHD 'two machines start, each with its own empty store' '
	ssh_machine_start a && ssh_machine_start b &&
	gen-closure -p ends "$CIX_STORE_DIR" 40 >c.exp 2>/dev/null &&
	cix store --import <c.exp >imported &&
	test_line_count = 40 imported &&
	ssh_on a sh -c "ls \"\$CIX_STORE_DIR\" | wc -l" >n && test "$(cat n)" = 0
'

test_expect_success SSHD 'copy --to: the closure arrives, valid, the same NAR hashes' '
	top=$(sed -n 1p ends) &&
	cix store -qR "$top" | sort >want &&
	cix copy --to "$(ssh_uri a)" "$top" &&
	ssh_on a cix store -qR "$top" | sort >got &&
	test_cmp want got &&
	for p in $(cat want); do
		cix store -q --hash "$p" >h1 && ssh_on a cix store -q --hash "$p" >h2 &&
		test_cmp h1 h2 || return 1
	done &&
	ssh_on a cix store --verify --check-contents
'

test_expect_success SSHD 'copy again: nothing sent; -v names what is copied' '
	cix copy -v --to "$(ssh_uri a)" "$(sed -n 1p ends)" 2>e &&
	test_line_count = 0 e &&
	cix copy -v --to "$(ssh_uri a)" "$p" 2>e && grep "copying .$p" e
'

test_expect_success SSHD 'a closure goes in one request (AddMultipleToStore)' '
	gen-closure -p ends3 "$CIX_STORE_DIR" 25 3 >c3.exp 2>/dev/null &&
	cix store --import <c3.exp >/dev/null &&
	printf "#!/bin/sh\nexec $CIX_BUILD_DIR/cix-daemon \"\$@\" --debug 2>>$T/remote.log\n" >logged.sh &&
	chmod +x logged.sh &&
	cix copy --to "$(ssh_uri a remote-program=$T/logged.sh)" "$(sed -n 1p ends3)" &&
	grep -c ": AddMultipleToStore$" remote.log >n && test "$(cat n)" = 1 &&
	! grep ": AddToStoreNar$" remote.log &&
	grep -c ": QueryValidPaths$" remote.log >n && test "$(cat n)" = 1
'

test_expect_success SSHD 'copy --from: from machine a into this store, and through to b' '
	ssh_on a sh -c "echo made on a >g && cix store --add g" >pa &&
	pa=$(cat pa) && ! cix store --check-validity "$pa" 2>/dev/null &&
	cix copy --from "$(ssh_uri a)" "$pa" &&
	cix store --check-validity "$pa" && grep "made on a" "$pa" &&
	cix copy --to "$(ssh_uri b)" "$pa" &&
	ssh_on b cat "$pa" >got && grep "made on a" got
'

test_expect_success SSHD 'a deep closure from b: references first, checked on arrival' '
	gen-closure -p ends2 "$CIX_STORE_DIR" 60 7 >c2.exp 2>/dev/null &&
	ssh_on b cix store --import <c2.exp >/dev/null &&
	top2=$(sed -n 1p ends2) &&
	cix copy --from "$(ssh_uri b)" "$top2" &&
	cix store -qR "$top2" | sort >got && ssh_on b cix store -qR "$top2" | sort >want &&
	test_cmp want got && cix store --verify --check-contents
'

test_expect_success SSHD 'a path changed on the remote after it was registered is refused' '
	ssh_on a sh -c "echo tampered >g2 && cix store --add g2" >pt &&
	pt=$(cat pt) &&
	ssh_on a sh -c "chmod u+w $pt && echo TAMPERED >$pt" &&
	test_must_fail cix copy --from "$(ssh_uri a)" "$pt" 2>e &&
	cat e && test_line_count = 1 e && grep "$pt" e && grep -i "hash" e &&
	! cix store --check-validity "$pt" 2>/dev/null && ! test -e "$pt"
'

test_expect_success SSHD 'an unreachable machine: one line naming it, exit non-zero' '
	port=$(ssh_free_port_) &&
	u="ssh-ng://root@127.0.0.1:$port?connect-timeout=5" &&
	test_must_fail cix copy --to "$u" "$p" 2>e &&
	cat e && test_line_count = 1 e && grep "127.0.0.1:$port" e && grep -i "refused" e
'

test_expect_success SSHD 'a refused key, a wrong host key: one line each' '
	ssh-keygen -q -t ed25519 -N "" -f other &&
	u=$(ssh_uri a | sed "s|ssh-key=[^&]*|ssh-key=$T/other|") &&
	test_must_fail cix copy --to "$u" "$p" 2>e &&
	cat e && test_line_count = 1 e && grep -i "permission denied" e &&
	hk=$(cut -d" " -f1,2 machines/b/hostkey.pub | base64 -w0) &&
	u=$(ssh_uri a | sed "s|base64-ssh-public-host-key=[^&]*|base64-ssh-public-host-key=$hk|") &&
	test_must_fail cix copy --to "$u" "$p" 2>e &&
	cat e && test_line_count = 1 e && grep -i "host key" e
'

test_expect_success SSHD 'a remote program that is missing, or speaks something else' '
	test_must_fail cix copy --to "$(ssh_uri a remote-program=/nonexistent/cix-daemon)" "$p" 2>e &&
	cat e && test_line_count = 1 e && grep "nonexistent" e &&
	test_must_fail cix copy --to "$(ssh_uri a remote-program=/bin/echo)" "$p" 2>e &&
	cat e && test_line_count = 1 e && grep "worker protocol\|closed the connection" e
'

test_expect_success SSHD 'a remote that never answers: the handshake times out' '
	printf "#!/bin/sh\nexec sleep 60\n" >hang.sh && chmod +x hang.sh &&
	test_must_fail cix copy --to "$(ssh_uri a remote-program=$T/hang.sh connect-timeout=2)" \
		"$p" 2>e &&
	cat e && test_line_count = 1 e && grep "nothing for 2 seconds" e
'

test_expect_success SSHD 'a remote that answers the handshake, then nothing: silence-timeout' '
	cat >mute.pl <<-\EOF &&
	require "$ENV{CIX_SRC_DIR}/t/lib-wire.pl";
	my ($in, $out) = (\*STDIN, \*STDOUT);
	get_u64($in);                                   # the client'"'"'s magic
	put($out, u64(0x6478696f) . u64(0x122));        # ours, protocol 1.34
	get_u64($in) for 1 .. 3;                        # its version, affinity, reserve
	put($out, str("mute 1") . u64(0x616c7473));     # our version; LAST
	get_u64($in); get_str($in);                     # IsValidPath of the probe
	put($out, u64(0x616c7473) . u64(0));            # LAST; not valid
	sleep 60;                                       # and then nothing
	EOF
	printf "#!/bin/sh\nCIX_SRC_DIR=$CIX_SRC_DIR exec perl $T/mute.pl\n" >mute.sh &&
	chmod +x mute.sh &&
	test_must_fail cix copy --to "$(ssh_uri a remote-program=$T/mute.sh silence-timeout=2)" \
		"$p" 2>e &&
	cat e && test_line_count = 1 e && grep "nothing for 2 seconds" e
'

test_expect_success SSHD 'a remote with another store directory is refused' '
	mkdir -p other-store &&
	cat >other.sh <<-EOF &&
	#!/bin/sh
	CIX_STORE_DIR=$T/other-store exec $CIX_BUILD_DIR/cix-daemon "\$@"
	EOF
	chmod +x other.sh &&
	test_must_fail cix copy --to "$(ssh_uri a remote-program=$T/other.sh)" "$p" 2>e &&
	cat e && test_line_count = 1 e && grep "another store than" e
'

test_done
