#!/bin/sh
# t5020-package-users.sh - cix package by unprivileged users, through cix-daemon
# SPDX-License-Identifier: GPL-3.0-or-later
test_description='cix-daemon makes the per-user profile directories; users install without root, and cannot touch each other'"'"'s profiles (doc/security.md items 3, 16)'
. "$(dirname "$0")/test-lib.sh"

umask 022
T=$TRASH_DIRECTORY
test_private_store
test_private_conf 'allowed-users = *' 'trusted-users = root'
P=$T/pkgs
CIX_SCHEME_PATH=$CIX_SCHEME_PATH:$P
SOCK=$CIX_STATE_DIR/daemon-socket/socket
PU=$CIX_STATE_DIR/profiles/per-user

# Two throw-away users, removed at the end whatever happens.
U=cxu$$
A=${U}a B=${U}b
cleanup () {
	test_stop_daemons_
	for u_ in $A $B; do
		# (while a command of the user ends, userdel refuses: wait for it)
		i_=0
		while id "$u_" >/dev/null 2>&1 && ! userdel "$u_" 2>/dev/null &&
		      [ $i_ -lt 50 ]; do
			sleep 0.2
			i_=$((i_ + 1))
		done
		groupdel "$u_" 2>/dev/null
	done
}
if [ "$(id -u)" != 0 ]; then
	say "skipping the users' tests: not root"
elif ! command -v useradd >/dev/null || ! command -v runuser >/dev/null; then
	say "skipping the users' tests: no useradd or runuser"
else
	trap cleanup EXIT
	trap 'exit 1' INT TERM HUP
	for u in $A $B; do
		mkdir "$T/home-$u" &&
		useradd -U -M -d "$T/home-$u" -s /bin/sh "$u" &&
		chown "$u:$u" "$T/home-$u" || exit 1
	done
	UA=$(id -u $A) UB=$(id -u $B)
	# The users must reach the trash directory, the build and the sources.
	chmod 755 "$T"
	if runuser -u $A -- test -r "$T" && runuser -u $A -- test -x "$T" &&
	   runuser -u $A -- "$CIX_BUILD_DIR/cix" --version >/dev/null 2>&1 &&
	   runuser -u $A -- test -r "$CIX_SRC_DIR/t/test-lib.sh"; then
		test_set_prereq USERS
	else
		say "skipping the users' tests: a parent directory of $T is closed to other users"
	fi
fi

# as USER CMD...: CMD run as USER, with the test's environment.
as () {
	u_=$1; shift
	runuser -u "$u_" -- env HOME="$T/home-$u_" USER="$u_" PATH="$PATH" "$@"
}

# The packages: $MKPKG -s writes $out/bin/NAME, a script saying its arguments.
[ -x "$MKPKG" ] && test_set_prereq STATIC
mkdir -p "$P/gnu/packages"
cat >"$P/gnu/packages/tpu.scm" <<EOF
(define-module (gnu packages tpu)
  #:use-module (guix packages)
  #:use-module (guix build-system trivial))
(define (tp name version . args)
  (package
    (name name) (version version)
    (build-system trivial-build-system)
    (inputs \`(("mkpkg" ,(local-file "$MKPKG" "mkpkg"))))
    (arguments \`(#:implicit-inputs? #f
                  #:builder ((input "mkpkg") "-s" ,name ,version ,@args)))
    (synopsis "s") (description "d") (home-page "h") (license #f)))
(define-public uhello (tp "uhello" "1"))
(define-public uextra (tp "uextra" "1"))
(define-public ugreet-a (tp "ugreet" "1" "variant-a"))
(define-public ugreet-b (tp "ugreet" "1" "variant-b"))
EOF
chmod -R a+rX "$P"

test_expect_success USERS 'a daemon refuses to start when per-user is not a directory' '
	mkdir -p state2/profiles elsewhere && chmod 700 elsewhere &&
	ln -s "$T/elsewhere" state2/profiles/per-user &&
	test_expect_code 1 env CIX_STORE_DIR="$T/store2" CIX_STATE_DIR="$T/state2" \
		timeout 20 cix-daemon --listen "$T/sock2" 2>err &&
	cat err && test_line_count = 1 err &&
	grep -F "$T/state2/profiles/per-user'\'' is not a directory" err &&
	test -L state2/profiles/per-user &&
	test "$(stat -c "%u %a" elsewhere)" = "0 700" &&
	test_path_is_missing sock2
'

test_expect_success USERS 'at start-up: profiles and per-user root'"'"'s, 0755; the GC root' '
	mkdir -p "$CIX_STATE_DIR/profiles/per-user" &&
	chown $UA "$CIX_STATE_DIR/profiles" && chmod 777 "$CIX_STATE_DIR/profiles" &&
	chmod 1777 "$PU" &&
	test_start_daemon "$SOCK" &&
	test "$(stat -c "%u %a" "$CIX_STATE_DIR/profiles" "$PU")" = "$(printf "0 755\n0 755")" &&
	grep "warning: .*state/profiles'\'' was owned by uid $UA" daemon.log &&
	grep "warning: .*per-user'\'' was writable by others" daemon.log &&
	test "$(readlink "$CIX_STATE_DIR/gcroots/profiles")" = "$CIX_STATE_DIR/profiles" &&
	! as $A test -w "$CIX_STORE_DIR" && ! as $A test -w "$PU"
'

test_expect_success USERS,STATIC 'a user'"'"'s directory is made at their first connection: theirs, 0755' '
	test_path_is_missing "$PU/$A" &&
	as $A cix package -I >installed &&
	test_line_count = 0 installed &&
	test "$(stat -c "%U %G %a" "$PU/$A")" = "$A $A 755" &&
	# the worker logs it after the handshake, maybe after the client ended
	i=0 && while ! grep -q "connection from uid $UA " daemon.log && [ $i -lt 100 ]; do
		sleep 0.1; i=$((i + 1))
	done &&
	grep "connection from uid $UA " daemon.log &&
	test_must_fail as $A mkdir "$PU/$B" &&
	test_path_is_missing "$PU/$B"
'

test_expect_success USERS,STATIC 'a symlink planted as per-user/NAME is not followed, nor chowned' '
	mkdir canary && chmod 700 canary && echo x >canary/f &&
	ln -s "$T/canary" "$PU/$B" &&
	test_must_fail as $B cix package -I 2>err &&
	cat err && test_line_count = 1 err &&
	grep -F "'\''$PU/$B'\'' is not owned by you" err &&
	test -L "$PU/$B" &&
	test "$(stat -c "%u %a" canary canary/f)" = "$(printf "0 700\n0 644")" &&
	grep -F "warning: '\''$PU/$B'\'' is not a directory (a symlink?): left as it is" daemon.log &&
	rm "$PU/$B"
'

test_expect_success USERS,STATIC 'a directory of another user as per-user/NAME is left as it is, and refused' '
	mkdir "$PU/$B" && chown $A:$A "$PU/$B" &&
	test_must_fail as $B cix package -i uhello 2>err &&
	cat err && grep -F "'\''$PU/$B'\'' is not owned by you" err &&
	test "$(stat -c %U "$PU/$B")" = $A &&
	grep -F "warning: '\''$PU/$B'\'' is owned by uid $UA, not by $B (uid $UB): left as it is" daemon.log &&
	test_path_is_missing "$PU/$B/cix-profile" &&
	rmdir "$PU/$B"
'

test_expect_success USERS,STATIC 'a user installs through the daemon and runs the program from ~/.cix-profile' '
	as $A cix package -i uhello 2>err &&
	grep "generation 1:" err &&
	test "$(readlink "$T/home-$A/.cix-profile")" = "$PU/$A/cix-profile" &&
	test "$(as $A "$T/home-$A/.cix-profile/bin/uhello")" = "uhello 1" &&
	as $A cix package -i uextra 2>err && grep "generation 2:" err &&
	as $A cix package -I >installed && test_line_count = 2 installed &&
	test "$(stat -c %U "$PU/$A/cix-profile" "$PU/$A/cix-profile-2-link" | sort -u)" = $A &&
	as $A cix package -l >gens && test $(grep -c "^Generation" gens) = 2
'

# what USER: the state of A's profile, as USER sees it.
state_of_a () {
	{ readlink "$PU/$A/cix-profile" && ls -lA --time-style=+ "$PU/$A"; } >"$1"
}

test_expect_success USERS,STATIC 'another user cannot roll back, switch or delete A'"'"'s generations' '
	state_of_a before &&
	for action in --roll-back "-S 1" --delete-generations=1 --delete-generations "-r uhello" \
		      "-i uextra"; do
		test_must_fail as $B cix package -p "$PU/$A/cix-profile" $action 2>err &&
		cat err && test_line_count = 1 err &&
		grep -F "cannot change the profile '\''$PU/$A/cix-profile'\'': its directory belongs to '\''$A'\'' (uid $UA), not to you" err &&
		state_of_a after &&
		test_cmp before after || return 1
	done &&
	! find "$PU/$A" -user $B | grep . &&
	# Reading it is allowed.
	as $B cix package -p "$PU/$A/cix-profile" -l >gens &&
	grep -q "^Generation 2	.*(current)" gens &&
	# Its owner is not blocked.
	as $A cix package --roll-back 2>err && grep "switched to generation 1" err &&
	as $A cix package -S 2 && test "$(readlink "$PU/$A/cix-profile")" = cix-profile-2-link
'

test_expect_success USERS 'no per-user directory (a daemon of another state): one line' '
	test_must_fail as $B env CIX_STATE_DIR="$T/state3" CIX_DAEMON_SOCKET="$SOCK" \
		cix package -I 2>err &&
	cat err && test_line_count = 1 err &&
	grep -F "'\''$T/state3/profiles/per-user/$B'\'' does not exist; is cix-daemon running?" err
'

test_expect_success USERS,STATIC 'two users install two variants of one package at once' '
	as $A cix package -e "(@ (gnu packages tpu) ugreet-a)" >a.out 2>a.err &
	pa=$!
	as $B cix package -e "(@ (gnu packages tpu) ugreet-b)" >b.out 2>b.err &
	pb=$!
	ra=0 && rb=0 && { wait $pa || ra=$?; } && { wait $pb || rb=$?; } &&
	cat a.err b.err && test $ra = 0 && test $rb = 0 &&
	test "$(stat -c "%U %a" "$PU/$B")" = "$B 755" &&
	test "$(as $A "$T/home-$A/.cix-profile/bin/ugreet")" = "ugreet 1 variant-a" &&
	test "$(as $B "$T/home-$B/.cix-profile/bin/ugreet")" = "ugreet 1 variant-b" &&
	test "$(readlink "$PU/$B/cix-profile")" = cix-profile-1-link &&
	test "$(readlink "$PU/$A/cix-profile")" = cix-profile-3-link &&
	test "$(readlink -f "$PU/$A/cix-profile/bin/ugreet")" != \
	     "$(readlink -f "$PU/$B/cix-profile/bin/ugreet")"
'

test_done
