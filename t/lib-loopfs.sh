# lib-loopfs.sh - file systems of a test's own: ext4 on a loop device, tmpfs
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Source it after test-lib.sh. Every mount and loop device made here is
# recorded in $TRASH_DIRECTORY/.loopfs and undone by loopfs_cleanup, which
# the EXIT trap set here runs even when a test fails or is interrupted. A
# script calls loopfs_cleanup itself before test_done (which removes the
# trash directory). Sets the prerequisite LOOPFS when root can make, mount
# and detach a loop device here; loopfs_why says why not otherwise.

# The mounts live in a mount namespace of the test's own: a process that
# copies the host's mounts meanwhile (any build sandbox on the machine)
# would otherwise keep them, and the loop device busy, after umount.
if [ -z "${CIX_TEST_IN_MOUNTNS:-}" ] && [ "$(id -u)" = 0 ] &&
	unshare -m --propagation private true 2>/dev/null; then
	CIX_TEST_IN_MOUNTNS=1 exec unshare -m --propagation private \
		sh "$CIX_SRC_DIR/t/${0##*/}" "$@"
fi

LOOPFS_LIST=$TRASH_DIRECTORY/.loopfs
loopfs_why=

loopfs_note_ () { echo "$*" >>"$LOOPFS_LIST"; }

# loopfs_umount DIR: unmount everything stacked on DIR, waiting at most 5 s
# for a process still using it, then detaching it lazily.
loopfs_umount () {
	n_=0
	while mountpoint -q "$1"; do
		umount "$1" 2>/dev/null && continue
		n_=$((n_ + 1))
		if [ $n_ -ge 50 ]; then
			umount -l "$1"
			return 1
		fi
		sleep 0.1
	done
	return 0
}

loopfs_cleanup () {
	[ -f "$LOOPFS_LIST" ] || return 0
	test_stop_daemons_    # a daemon of the test could keep a mount busy
	tac "$LOOPFS_LIST" | while read -r kind_ what_; do
		case $kind_ in
		mount) loopfs_umount "$what_" ;;
		loop) losetup -d "$what_" 2>/dev/null ;;
		esac
	done
	rm -f "$LOOPFS_LIST"
}
trap loopfs_cleanup EXIT
trap 'exit 129' HUP INT TERM

# loopfs_make DIR SIZE [MKFS-OPTION...]: an ext4 file system of SIZE
# (truncate's units) in the file DIR.img, on a loop device (named in
# DIR.dev), mounted on DIR.
loopfs_make () {
	d_=$1 s_=$2
	shift 2
	truncate -s "$s_" "$d_.img" && dev_=$(losetup -f --show "$d_.img") || return 1
	loopfs_note_ "loop $dev_"
	echo "$dev_" >"$d_.dev"
	mkfs.ext4 -q -F "$@" "$dev_" >/dev/null && mkdir -p "$d_" &&
		mount "$dev_" "$d_" && loopfs_note_ "mount $d_"
}

# loopfs_mount DIR [MOUNT-OPTION...]: mount DIR's loop device again, after
# a repair (e2fsck, exit 0 or 1: the file system was fixed).
loopfs_mount () {
	d_=$1
	shift
	dev_=$(cat "$d_.dev") || return 1
	e2fsck -fy "$dev_" >"$d_.fsck" 2>&1
	[ $? -le 1 ] || { cat "$d_.fsck"; return 1; }
	mount "$@" "$dev_" "$d_"
}

# loopfs_tmpfs DIR SIZE: a tmpfs of SIZE mounted on DIR.
loopfs_tmpfs () {
	mkdir -p "$1" && mount -t tmpfs -o "size=$2,mode=755" tmpfs "$1" && loopfs_note_ "mount $1"
}

# loopfs_bind_ro SRC DIR: SRC seen read-only on DIR.
loopfs_bind_ro () {
	mkdir -p "$2" && mount --bind "$1" "$2" && loopfs_note_ "mount $2" &&
		mount -o remount,bind,ro "$2"
}

# loopfs_powercut DIR: the file system on DIR stops as at a power cut: what
# its device holds stays, what is only in memory (dirty pages, the journal
# not yet committed) is lost; every later access fails with EIO. This is
# ext4's shutdown ioctl (EXT4_IOC_SHUTDOWN, flag NOLOGFLUSH), as xfstests'
# godown uses it; device-mapper's flakey target is not needed.
loopfs_powercut () {
	# Never any other file system than the test's own (the host's root!).
	src_=$(findmnt -n -o SOURCE --mountpoint "$1") &&
	[ -n "$src_" ] && [ "$src_" = "$(cat "$1.dev")" ] ||
		{ echo "loopfs_powercut: $1 is not the test's loop device"; return 1; }
	perl -e '
		open(my $f, "<", $ARGV[0]) or die "$ARGV[0]: $!\n";
		my $flags = pack("L", 2);
		ioctl($f, 0x8004587d, $flags) or die "cannot shut down $ARGV[0]: $!\n";
	' "$1"
}

loopfs_probe_ () {
	[ "$(id -u)" = 0 ] || { loopfs_why="not root"; return 1; }
	for c_ in unshare losetup mkfs.ext4 e2fsck findmnt mount umount mountpoint truncate tac; do
		command -v $c_ >/dev/null || { loopfs_why="no $c_"; return 1; }
	done
	loopfs_make "$TRASH_DIRECTORY/.probe" 8M >/dev/null 2>&1 ||
		{ loopfs_why="cannot make and mount an ext4 loop device"; return 1; }
	loopfs_umount "$TRASH_DIRECTORY/.probe"
	losetup -d "$(cat "$TRASH_DIRECTORY/.probe.dev")"
	rm -f "$TRASH_DIRECTORY/.probe.img" "$LOOPFS_LIST"
	return 0
}
if loopfs_probe_; then
	test_set_prereq LOOPFS
else
	say "no file systems of the test's own: $loopfs_why"
fi
