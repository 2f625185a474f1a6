#!/bin/sh
# t5030-package-kill.sh - cix package killed (SIGKILL) at any moment: the profile stays whole
# SPDX-License-Identifier: GPL-3.0-or-later
test_description='kill -9 of cix package -i/-r/--roll-back/--delete-generations after random delays, and at each rename, link, unlink, directory and sync of the transaction: the profile is an old or a new complete generation, no generation dangles, no lock stays held, the store verifies'
. "$(dirname "$0")/test-lib.sh"

test_private_store
P=$TRASH_DIRECTORY/pkgs
CIX_SCHEME_PATH=$CIX_SCHEME_PATH:$P
# The random delays: another seed gives other moments.
SEED=${CIX_TEST_SEED:-$$}
RUNS=${CIX_TEST_KILL_RUNS:-30}

# The packages: $MKPKG -d makes $out/bin/NAME saying "NAME VERSION" and
# $out/share/doc/NAME/README. base-0..base-99 make the profile big enough
# for its build to take a while; k-N are installed one by one (the first
# transaction that installs one builds it); each version N of kv replaces
# the one installed, so that a profile keeps its size.
[ -x "$MKPKG" ] && test_set_prereq STATIC
strace -f -qq -o /dev/null true 2>/dev/null && test_set_prereq STRACE
mkdir -p "$P/gnu/packages"
{
	cat <<-EOF
	(define-module (gnu packages kp)
	  #:use-module (guix packages)
	  #:use-module (guix build-system trivial))
	(define (tp name version)
	  (package
	    (name name) (version version)
	    (build-system trivial-build-system)
	    (inputs \`(("mkpkg" ,(local-file "$MKPKG" "mkpkg"))))
	    (arguments \`(#:implicit-inputs? #f #:builder ((input "mkpkg") "-d" ,name ,version)))
	    (synopsis "s") (description "d") (home-page "h") (license #f)))
	EOF
	i=0
	while [ $i -lt 100 ]; do echo "(define-public base-$i (tp \"base-$i\" \"1\"))"; i=$((i + 1)); done
	i=0
	while [ $i -lt 40 ]; do echo "(define-public k-$i (tp \"k-$i\" \"1\"))"; i=$((i + 1)); done
	i=1
	while [ $i -le 150 ]; do echo "(define-public kv-$i (tp \"kv\" \"$i\"))"; i=$((i + 1)); done
} >"$P/gnu/packages/kp.scm"

# check_profile PROFILE: PROFILE (when there) points to a generation link
# that resolves to a valid store path whose manifest parses and whose
# packages are all there; no generation link dangles; the generations list.
check_profile () {
	pr_=$1 dir_=${1%/*} base_=${1##*/}
	if [ -L "$pr_" ]; then
		cur_=$(readlink "$pr_")
		case "$cur_" in
		"$base_"-[0-9]*-link) ;;
		*) echo "$pr_ points to '$cur_'"; return 1 ;;
		esac
		[ -L "$dir_/$cur_" ] || { echo "$pr_ points to a missing '$cur_'"; return 1; }
		[ -f "$pr_/manifest" ] || { echo "$pr_ has no manifest"; return 1; }
		cix package -p "$pr_" -I >"$TRASH_DIRECTORY/installed" || return 1
		while IFS='	' read -r n_ v_ o_ path_; do
			[ -d "$path_" ] && [ "$(cat "$pr_/bin/$n_")" = "$n_ $v_" ] ||
				{ echo "$n_ is not whole in $pr_ ($cur_)"; return 1; }
		done <"$TRASH_DIRECTORY/installed"
	elif [ -e "$pr_" ]; then
		echo "$pr_ is not a symlink"; return 1
	fi
	: >"$TRASH_DIRECTORY/targets"
	for l_ in "$dir_/$base_"-*-link; do
		[ -L "$l_" ] || continue
		[ -e "$l_" ] || { echo "dangling generation $l_"; return 1; }
		readlink "$l_" >>"$TRASH_DIRECTORY/targets"
	done
	[ ! -s "$TRASH_DIRECTORY/targets" ] ||
		cix store --check-validity $(sort -u "$TRASH_DIRECTORY/targets") ||
		{ echo "a generation of $pr_ is not valid"; return 1; }
	cix package -p "$pr_" -l >/dev/null || return 1
}

# No temporary of a dead transaction left once another one has run.
no_stale_temporaries () {
	for t_ in "${1%/*}"/.*.tmp-*; do
		[ -e "$t_" ] || [ -L "$t_" ] || continue
		echo "stale temporary: $t_"; return 1
	done
}

# verify: the store's paths are all there and unmodified.
verify () {
	cix store --verify --check-contents >"$TRASH_DIRECTORY/verify.out" 2>&1 ||
		{ cat "$TRASH_DIRECTORY/verify.out"; return 1; }
}

# The arguments of transaction I of the random delays' test: installs,
# a removal, a roll back, a deletion of generations.
round_args () {
	case $(($1 % 6)) in
	0|1|3) echo "-i k-$1" ;;
	2) echo "--roll-back" ;;
	4) echo "-r k-$(($1 - 1))" ;;
	5) echo "--delete-generations" ;;
	esac
}

PR=$TRASH_DIRECTORY/prof/p

test_expect_success STATIC 'setup: a profile of 100 packages' '
	mkdir prof &&
	cix build -q $(i=0; while [ $i -lt 100 ]; do printf "base-%d " $i; i=$((i + 1)); done) >/dev/null &&
	cix package -p "$PR" $(i=0; while [ $i -lt 100 ]; do printf -- "-i base-%d " $i; i=$((i + 1)); done) 2>err &&
	grep -q "generation 1:" err &&
	check_profile "$PR" &&
	test "$(cix package -p "$PR" -I | wc -l)" = 100 &&
	# How long a transaction takes here (building its package): the kills
	# come within that (and within 300 ms).
	t0=$(date +%s%N) &&
	cix package -p "$PR" -i k-39 2>/dev/null &&
	t1=$(date +%s%N) &&
	cix package -p "$PR" -r k-39 2>/dev/null &&
	echo $(( (t1 - t0) / 1000000 )) >duration &&
	echo "a transaction: $(cat duration) ms"
'

test_expect_success STATIC "$RUNS transactions killed after random delays (0-300 ms)" '
	echo "seed $SEED" &&
	awk -v s="$SEED" -v n="$RUNS" -v t="$(cat duration)" "BEGIN {
		srand(s); t = t > 300 ? 300 : t
		for (i = 0; i < n; i++) printf \"%.3f\\n\", rand() * t / 1000 }" >delays &&
	i=0 killed=0 &&
	while read -r d; do
		args=$(round_args $i)
		cix package -p "$PR" $args >/dev/null 2>&1 &
		pid=$!
		sleep "$d"
		kill -9 $pid 2>/dev/null || :
		if wait $pid; then :; elif [ $? = 137 ]; then killed=$((killed + 1)); fi
		check_profile "$PR" || { echo "after killing \"$args\" at $d s"; exit 1; }
		# The same again, to its end: no lock of the dead one stays (a
		# removal the dead one made is refused: nothing left to remove).
		timeout 120 cix package -p "$PR" $args >out 2>err ||
			{ case $args in -r*) grep -q "is not installed" err ;; *) false ;; esac; } ||
			{ cat err; echo "\"$args\" after a kill at $d s"; exit 1; }
		check_profile "$PR" && no_stale_temporaries "$PR" && verify ||
			{ echo "after \"$args\" following a kill at $d s"; exit 1; }
		i=$((i + 1))
	done <delays &&
	test $i = "$RUNS" &&
	echo "$killed of $RUNS killed before their end" &&
	# Most of them: the delays are within the time of a transaction.
	test $killed -ge $((RUNS / 4))
'

# inject PROFILE SYSCALL K ARGS...: cix package -p PROFILE ARGS, killed when
# entering its K-th SYSCALL (each thread and child counting its own); 0 when
# it ended before, 1 when killed, 2 when something is wrong. The profile is
# checked either way.
inject () {
	pr_=$1 sc_=$2 k_=$3
	shift 3
	# (LeakSanitizer, under make check SANITIZE=..., cannot work under ptrace.)
	if ASAN_OPTIONS=detect_leaks=0${ASAN_OPTIONS:+:$ASAN_OPTIONS} \
		strace -f -qq -o /dev/null -e trace="$sc_" -e inject="$sc_":signal=KILL:when="$k_" \
		cix package -p "$pr_" "$@" >/dev/null 2>"$TRASH_DIRECTORY/inject.err"; then
		rc_=0
	else
		rc_=$?
	fi
	check_profile "$pr_" || { echo "after a kill at $sc_ #$k_ of \"$*\""; return 2; }
	case $rc_ in
	0) return 0 ;;
	137) return 1 ;;
	# strace follows the builds too: a builder killed fails the transaction.
	1) grep -q "failed with signal 9" "$TRASH_DIRECTORY/inject.err" && return 1 ;;
	esac
	case $rc_ in
	*) cat "$TRASH_DIRECTORY/inject.err"; echo "\"$*\" failed ($rc_) with $sc_ #$k_"; return 2 ;;
	esac
}

# Each K from 1 until the transaction ends unharmed; after each kill, the
# same transaction again to its end. Q holds base-0..2 and a version of kv,
# which each transaction replaces by the next (built ahead: only cix itself
# is killed).
SYSCALLS="renameat renameat2 symlinkat unlinkat mkdirat fdatasync"
Q=$TRASH_DIRECTORY/prof/q
V=1

test_expect_success STATIC,STRACE 'install killed at each rename, link, unlink, mkdir and sync' '
	cix build -q -j 2 $(i=1; while [ $i -le 150 ]; do printf "kv@%d " $i; i=$((i + 1)); done) >/dev/null &&
	cix package -p "$Q" -i base-0 -i base-1 -i base-2 -i kv@1 >/dev/null 2>&1 &&
	for sc in $SYSCALLS; do
		k=1
		while :; do
			V=$((V + 1))
			if inject "$Q" $sc $k -i kv@$V; then break; elif [ $? = 2 ]; then exit 1; fi
			timeout 120 cix package -p "$Q" -i kv@$V >/dev/null 2>err || { cat err; exit 1; }
			test "$(cat "$Q/bin/kv")" = "kv $V" &&
			check_profile "$Q" && no_stale_temporaries "$Q" || exit 1
			k=$((k + 1))
			[ $k -le 40 ] || { echo "$sc: still killed at #40"; exit 1; }
		done
		echo "$sc: $((k - 1)) kills"
	done &&
	test "$(cat "$Q/bin/kv")" = "kv $V" &&
	verify
'

test_expect_success STATIC,STRACE 'roll back killed at each rename, link and unlink' '
	for sc in renameat symlinkat unlinkat; do
		k=1
		while :; do
			V=$((V + 1))
			cix package -p "$Q" -i kv@$V >/dev/null 2>&1 &&
			gen=$(readlink "$Q") || exit 1
			if inject "$Q" $sc $k --roll-back; then
				test "$(readlink "$Q")" != "$gen" &&
				test "$(cat "$Q/bin/kv")" = "kv $((V - 1))" || { echo "not rolled back"; exit 1; }
				break
			elif [ $? = 2 ]; then
				exit 1
			fi
			k=$((k + 1))
			[ $k -le 20 ] || { echo "$sc: still killed at #20"; exit 1; }
		done
		echo "$sc: $((k - 1)) kills"
	done &&
	verify
'

test_expect_success STATIC,STRACE 'delete-generations killed at each unlink' '
	k=1 &&
	while :; do
		cix package -p "$Q" --delete-generations >/dev/null 2>&1 || exit 1
		for x in 1 2 3; do
			V=$((V + 1))
			cix package -p "$Q" -i kv@$V >/dev/null 2>&1 || exit 1
		done
		gen=$(readlink "$Q")
		if inject "$Q" unlinkat $k --delete-generations; then
			test "$(ls "$TRASH_DIRECTORY/prof" | grep -c "^q-[0-9]*-link\$")" = 1 &&
			test "$(readlink "$Q")" = "$gen" || exit 1
			break
		elif [ $? = 2 ]; then
			exit 1
		fi
		test "$(readlink "$Q")" = "$gen" || { echo "the current generation changed"; exit 1; }
		k=$((k + 1))
		[ $k -le 20 ] || { echo "still killed at #20"; exit 1; }
	done &&
	echo "$((k - 1)) kills" &&
	test $V -le 150 &&
	verify
'

test_expect_success STATIC 'after all this, a transaction runs to its end' '
	timeout 120 cix package -p "$PR" -i k-39 -i kv@150 2>err &&
	grep -q "generation" err &&
	test "$(cat "$PR/bin/k-39")" = "k-39 1" &&
	test "$(cat "$PR/bin/kv")" = "kv 150" &&
	check_profile "$PR" && no_stale_temporaries "$PR" && verify
'

test_done
