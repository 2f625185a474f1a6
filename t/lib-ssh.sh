# lib-ssh.sh - other machines on this one, reached with OpenSSH
# SPDX-License-Identifier: GPL-3.0-or-later
#
# A machine is a mount namespace in which the test's store, state and log
# directories (the same names: store paths must mean the same) are the
# machine's own, empty at first, with Debian's sshd listening on a port
# of 127.0.0.1 and taking only the key the test made. Nothing leaves
# this host. Source after test_private_store.
#
#   ssh_setup                 the client's key; prerequisite SSHD when
#                             this can run (root, sshd, unshare)
#   ssh_machine_start NAME    start machine NAME (stopped by test_done)
#   ssh_uri NAME [PARAM...]   its ssh-ng:// URI (key, host key, program)
#   ssh_on NAME CMD...        run CMD in NAME's namespace, its store's env
#   ssh_nix_remote FILE       write FILE, a remote program that runs Nix's
#                             nix-daemon on a machine's store

SSHD=/usr/sbin/sshd

ssh_setup () {
	mkdir -p "$TRASH_DIRECTORY/ssh"
	if [ "$(id -u)" = 0 ] && [ -x "$SSHD" ] && command -v ssh >/dev/null &&
	   command -v ssh-keygen >/dev/null && command -v unshare >/dev/null &&
	   unshare -m true 2>/dev/null; then
		ssh-keygen -q -t ed25519 -N '' -C cix-test -f "$TRASH_DIRECTORY/ssh/id" &&
		cp "$TRASH_DIRECTORY/ssh/id.pub" "$TRASH_DIRECTORY/ssh/authorized_keys" &&
		mkdir -p /run/sshd &&
		test_set_prereq SSHD
	fi
	# Not the user's ssh configuration: only what the URIs say.
	CIX_SSHOPTS="-F /dev/null"
	export CIX_SSHOPTS
}

# A free TCP port of 127.0.0.1.
ssh_free_port_ () {
	perl -MIO::Socket::INET -e '
		my $s = IO::Socket::INET->new(Listen => 1, LocalAddr => "127.0.0.1",
					      LocalPort => 0, ReuseAddr => 1) or die "$!\n";
		print $s->sockport, "\n";'
}

ssh_port_open_ () {
	perl -MIO::Socket::INET -e 'exit(IO::Socket::INET->new(PeerAddr => "127.0.0.1:$ARGV[0]") ? 0 : 1)' "$1"
}

ssh_machine_start () {
	m_=$TRASH_DIRECTORY/machines/$1
	mkdir -p "$m_/store" "$m_/state" "$m_/log" "$CIX_STORE_DIR" "$CIX_STATE_DIR" \
		"${CIX_LOG_DIR:-$TRASH_DIRECTORY/log}"
	ssh-keygen -q -t ed25519 -N '' -C "$1" -f "$m_/hostkey" || return 1
	port_=$(ssh_free_port_) || return 1
	echo "$port_" >"$m_/port"
	{
		echo "ListenAddress 127.0.0.1:$port_"
		echo "HostKey $m_/hostkey"
		echo "AuthorizedKeysFile $TRASH_DIRECTORY/ssh/authorized_keys"
		echo "PermitRootLogin prohibit-password"
		echo "PasswordAuthentication no"
		echo "KbdInteractiveAuthentication no"
		echo "UsePAM no"
		echo "StrictModes no"
		echo "PidFile $m_/sshd.pid"
		echo "LogLevel ERROR"
		printf 'SetEnv'
		for v_ in CIX_STORE_DIR CIX_STATE_DIR CIX_LOG_DIR CIX_CONF_FILE CIX_CONF_DIR \
			  CIX_BUILD_USERS_GROUP CIX_EXTRA_SANDBOX_PATHS LSAN_OPTIONS ASAN_OPTIONS \
			  UBSAN_OPTIONS TMPDIR; do
			eval "val_=\${$v_:-}"
			[ -n "$val_" ] && printf ' "%s=%s"' "$v_" "$val_"
		done
		echo
	} >"$m_/sshd_config"
	unshare -m --propagation private sh -c '
		mount --bind "$1/store" "$CIX_STORE_DIR" &&
		mount --bind "$1/state" "$CIX_STATE_DIR" &&
		mount --bind "$1/log" "$2" &&
		exec "$3" -D -e -f "$1/sshd_config"' sh "$m_" "${CIX_LOG_DIR:-$TRASH_DIRECTORY/log}" \
		"$SSHD" 2>>"$m_/sshd.log" &
	echo $! >>"$TRASH_DIRECTORY/.daemons"
	echo $! >"$m_/pid"
	i_=0
	while [ $i_ -lt 100 ]; do
		ssh_port_open_ "$port_" && return 0
		sleep 0.1
		i_=$((i_ + 1))
	done
	echo "machine $1: sshd did not start"; cat "$m_/sshd.log"; return 1
}

ssh_uri () {
	m_=$TRASH_DIRECTORY/machines/$1; shift
	hk_=$(cut -d' ' -f1,2 "$m_/hostkey.pub" | base64 -w0)
	u_="ssh-ng://root@127.0.0.1:$(cat "$m_/port")?ssh-key=$TRASH_DIRECTORY/ssh/id"
	u_="$u_&base64-ssh-public-host-key=$hk_&remote-program=$CIX_BUILD_DIR/cix-daemon"
	for p_ in "$@"; do u_="$u_&$p_"; done
	echo "$u_"
}

# CMD inside the machine's namespace (nsenter into its sshd's).
ssh_on () {
	m_=$TRASH_DIRECTORY/machines/$1; shift
	nsenter -m -t "$(cat "$m_/pid")" -- "$@"
}

# A remote program serving the machine's store with Nix's daemon: the same
# store directory, Nix's own database in the machine's state directory,
# builds without build users that see the host's /bin, /lib and /usr.
ssh_nix_remote () {
	cat >"$1" <<\EOF
#!/bin/sh
export NIX_STORE_DIR=$CIX_STORE_DIR NIX_STATE_DIR=$CIX_STATE_DIR/nix NIX_LOG_DIR=$CIX_STATE_DIR/nix/log
export NIX_CONFIG='build-users-group =
extra-sandbox-paths = /bin /lib /lib64 /usr'
exec nix-daemon "$@"
EOF
	chmod +x "$1"
}
