#!/bin/sh
# t1025-import-claims.sh - large imports hold a few descriptors, and their paths from other writers
# SPDX-License-Identifier: GPL-3.0-or-later
test_description='an import claims its paths with one descriptor; lockers wait for the claim'
. "$(dirname "$0")/test-lib.sh"

PATH=$CIX_BUILD_DIR/bench:$PATH
test_private_store
SD=$CIX_STORE_DIR

fresh_store () {
	test_stop_daemons_
	chmod -R u+w store state 2>/dev/null
	rm -rf store state
}

# wait_for_claim N: until the live claim holds N paths (32 bytes each), at most 10 s.
wait_for_claim () {
	i=0
	while [ $i -lt 100 ]; do
		for c in state/claims/*; do
			[ -f "$c" ] && [ "$(wc -c <"$c")" -eq $(($1 * 32)) ] && return 0
		done
		sleep 0.1
		i=$((i + 1))
	done
	echo "no claim of $1 paths"; ls -l state/claims; return 1
}

test_expect_success 'an import of 3,000 paths runs with 64 descriptors' '
	gen-closure -p ends "$SD" 3000 >big.exp &&
	sh -c "ulimit -n 64 && exec cix store --import" <big.exp >imported &&
	test_line_count = 3000 imported &&
	cix store --check-validity $(cat ends) &&
	test "$(ls store | grep -c "\.lock$")" = 0 &&
	test_path_is_missing state/claims &&
	cix store --verify --check-contents
'

test_expect_success 'out of descriptors: a one-line error, nothing registered, nothing left' '
	gen-closure -p ends "$SD" 300 >small.exp &&
	ok=0 && fds=6 &&
	while [ $fds -le 20 ]; do
		fresh_store &&
		# (the limit set after the redirections: a shell needs descriptors for them)
		if sh -c "ulimit -n $fds && exec cix store --import" <small.exp >out 2>err; then
			test_line_count = 300 out && ok=1 && break
		fi
		test_line_count = 1 err &&
		! grep -i "fatal\|abort" err &&
		test "$(ls -A store | grep -v "^\.cix-tmp$" | wc -l)" = 0 &&
		test "$(ls -A store/.cix-tmp 2>/dev/null | wc -l)" = 0 &&
		test_path_is_missing state/claims || { echo "with $fds descriptors"; cat err; return 1; }
		fds=$((fds + 1))
	done &&
	test $ok = 1 &&
	cix store --verify --check-contents
'

test_expect_success 'a stream of generated paths and an added file' '
	fresh_store &&
	gen-closure "$SD" 300 >g.exp 2>/dev/null &&
	cix store --import <g.exp >paths &&
	n=0 &&
	while :; do
		echo "content $n" >f &&
		w=$(cix store --add f) &&
		x=$( (cat paths; echo "$w") | sort | tail -n 1) &&
		test "$w" != "$x" && break
		n=$((n + 1)) && test $n -lt 10 || return 1
	done &&
	echo "$w" >w && echo "$x" >x &&
	cix store --export $(cat paths) "$w" >all.exp &&
	fresh_store
'

test_expect_success 'the import waits for a held lock; meanwhile its claimed paths are kept' '
	# (each "&" below ends an and-list: what comes before it runs here)
	mkdir -p store &&
	xbase=$(basename "$(cat x)") && w=$(cat w) && wbase=$(basename "$w") &&
	echo leftover >"store/$wbase" &&
	rm -f release || return 1
	flock "store/$xbase.lock" sh -c "while [ ! -e release ]; do sleep 0.1; done" &
	holder=$! &&
	i=0 && while [ ! -e "store/$xbase.lock" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
	cix store --import <all.exp >imp.out 2>imp.err &
	imp=$! &&
	wait_for_claim 301 &&
	# W, below X, is claimed: an invalid leftover in its place stays (the
	# paths move in once all are claimed), and an add of W waits for the claim.
	test "$(cat "store/$wbase")" = leftover || return 1
	cix store --add f >add.out 2>add.err &
	add=$! &&
	cix gc >gc.out 2>&1 &&
	test "$(cat "store/$wbase")" = leftover &&
	sleep 0.5 &&
	kill -0 $imp && kill -0 $add &&
	test_must_fail cix store --check-validity "$w" 2>/dev/null &&
	touch release &&
	wait $holder && wait $imp && wait $add &&
	test_line_count = 301 imp.out &&
	test "$(cat add.out)" = "$w" &&
	cix store --check-validity $(cat imp.out) &&
	cix store --verify --check-contents &&
	test "$(ls store | grep -c "\.lock$")" = 0 &&
	test_path_is_missing state/claims
'

test_expect_success 'a claim of a killed importer is void' '
	fresh_store &&
	mkdir -p store &&
	xbase=$(basename "$(cat x)") &&
	rm -f release || return 1
	flock "store/$xbase.lock" sh -c "while [ ! -e release ]; do sleep 0.1; done" &
	holder=$! &&
	i=0 && while [ ! -e "store/$xbase.lock" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
	cix store --import <all.exp >/dev/null 2>&1 &
	imp=$! &&
	wait_for_claim 301 &&
	kill -9 $imp && { wait $imp; true; } &&
	touch release && wait $holder &&
	test_must_fail cix store --check-validity $(cat w) 2>/dev/null &&
	cix store --add f >add.out &&
	test "$(cat add.out)" = "$(cat w)" &&
	cix store --import <all.exp >imp.out &&
	test_line_count = 301 imp.out &&
	cix store --verify --check-contents &&
	test_path_is_missing state/claims
'

# A few paths into a larger store: each path's lock is looked at, not the
# whole directory (path-claim.c); a held one is waited for just the same.
test_expect_success 'a small import into a larger store waits for a held lock' '
	echo "one more" >g &&
	v=$(cix store --add g) && vbase=$(basename "$v") &&
	cix store --export "$v" >one.exp &&
	cix store --delete "$v" &&
	test "$(ls store | wc -l)" -gt 300 &&
	rm -f release || return 1
	flock "store/$vbase.lock" sh -c "while [ ! -e release ]; do sleep 0.1; done" &
	holder=$! &&
	i=0 && while [ ! -e "store/$vbase.lock" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
	cix store --import <one.exp >one.out 2>one.err &
	imp=$! &&
	wait_for_claim 1 &&
	sleep 0.3 &&
	kill -0 $imp &&
	test_must_fail cix store --check-validity "$v" 2>/dev/null &&
	touch release &&
	wait $holder && wait $imp &&
	test "$(cat one.out)" = "$v" &&
	cix store --verify --check-contents &&
	test_path_is_missing state/claims
'

test_done
