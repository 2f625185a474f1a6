#!/bin/sh
# t5100-gc.sh - cix gc: what is alive, what is deleted, and what survives faults
# SPDX-License-Identifier: GPL-3.0-or-later
test_description='cix gc keeps the closure of its roots and deletes the rest, as nix-store --gc does; queries; -d; -C; roots outside the store; kill -9; deep trees; GC during a build'
. "$(dirname "$0")/test-lib.sh"

PATH=$CIX_BUILD_DIR/bench:$PATH
test_private_store
SD=$CIX_STORE_DIR
N="local?store=$SD&real=$TRASH_DIRECTORY/nixreal&state=$TRASH_DIRECTORY/nixstate&log=$TRASH_DIRECTORY/nixlog"
nixs () { NIX_CONFIG='substituters =' nix-store --store "$N" "$@"; }

if [ "$(id -u)" = 0 ] && command -v runuser >/dev/null && runuser -u nobody -- true 2>/dev/null; then
	test_set_prereq NOBODY
fi

test_expect_success 'a closure of 300 paths, imported; nothing rooted yet' '
	gen-closure -p ends "$SD" 300 >s.exp &&
	cix store --import <s.exp >imported &&
	test_line_count = 300 imported &&
	cix gc --list-live >live && test_line_count = 0 live &&
	cix gc --list-dead >dead && sort imported >expect && test_cmp expect dead
'

test_expect_success 'a root keeps its closure alive' '
	root=$(sed -n 200p imported) &&
	mkdir -p state/gcroots && ln -s "$root" state/gcroots/top &&
	cix gc --list-live >live && test_line_count = 200 live &&
	cix store -qR "$root" | sort >expect && test_cmp expect live &&
	cix gc --list-dead >dead &&
	test $(($(wc -l <live) + $(wc -l <dead))) = 300 &&
	cix gc --list-roots >roots && echo "$CIX_STATE_DIR/gcroots/top" >expect &&
	test_cmp expect roots
'

test_expect_success NIX 'alive and dead as in Nix, with the same roots' '
	nixs --import <s.exp >/dev/null &&
	mkdir -p nixstate/gcroots && ln -s "$(sed -n 200p imported)" nixstate/gcroots/top &&
	nixs --gc --print-live 2>/dev/null | sort >nlive && cix gc --list-live >clive &&
	test_cmp nlive clive &&
	nixs --gc --print-dead 2>/dev/null | sort >ndead && cix gc --list-dead >cdead &&
	test_cmp ndead cdead
'

test_expect_success '--references, --requisites and --referrers answer as cix store -q' '
	top=$(sed -n 1p ends) && bottom=$(sed -n 2p ends) &&
	cix gc --references "$top" >a && cix store -q --references "$top" >b && test_cmp b a &&
	cix gc -R "$top" >a && cix store -qR "$top" >b && test_cmp b a &&
	cix gc --requisites "$top" >a && test_cmp b a &&
	cix gc --referrers "$bottom" >a && cix store -q --referrers "$bottom" >b && test_cmp b a &&
	test_expect_code 2 cix gc --references 2>err && grep -q "needs store paths" err &&
	test_expect_code 1 cix gc -R /etc/passwd 2>err && test_line_count = 1 err
'

test_expect_success '-d refuses a live path, and a dead one another path refers to' '
	root=$(sed -n 200p imported) &&
	test_expect_code 1 cix gc -d "$root" 2>err && grep -q "still alive" err &&
	cix store --check-validity "$root" &&
	victim=$(for p in $(cix gc --list-dead); do
		test -n "$(cix store -q --referrers "$p")" && echo "$p" && break; done) &&
	test -n "$victim" &&
	test_expect_code 1 cix gc -d "$victim" 2>err && grep -q "still referenced" err &&
	cix store --check-validity "$victim"
'

test_expect_success '-d deletes a dead path with its dead referrers given too' '
	leaf=$(for p in $(cix gc --list-dead); do
		test -z "$(cix store -q --referrers "$p")" && echo "$p" && break; done) &&
	test -n "$leaf" && test -e "$leaf" &&
	cix gc -d "$leaf" 2>err && grep -q "1 store paths deleted" err &&
	test_must_fail cix store --check-validity "$leaf" && test_path_is_missing "$leaf"
'

test_expect_success 'cix gc deletes all the dead paths, and nothing alive' '
	cix gc --list-live >live0 && cix gc --list-dead >dead0 &&
	cix gc 2>err && grep -q "^freed .* MiB ($(wc -l <dead0) store paths deleted)" err &&
	cix gc --list-live >live1 && test_cmp live0 live1 &&
	cix gc --list-dead >dead1 && test_line_count = 0 dead1 &&
	for p in $(cat dead0); do test ! -e "$p" || return 1; done &&
	cix store --verify --check-contents &&
	ls store | grep -v "\.lock$" | sed "s|^|$SD/|" | sort >present &&
	test_cmp live1 present
'

test_expect_success NIX 'Nix keeps the same paths' '
	nixs --gc >/dev/null 2>&1 &&
	nixs -q --requisites $(cat live1) | sort -u >nkept && test_cmp live1 nkept &&
	test $(ls nixreal | grep -cv "^\.") = $(wc -l <live1)
'

test_expect_success 'removing the root makes the rest garbage' '
	rm state/gcroots/top &&
	cix gc --list-live >live && test_line_count = 0 live &&
	cix gc 2>/dev/null && test "$(ls store)" = ""
'

test_expect_success '-C MIN stops once MIN bytes are freed' '
	gen-closure "$SD" 400 7 2>/dev/null >c.exp &&
	cix store --import <c.exp >/dev/null &&
	cix gc -C 20KiB 2>err &&
	n=$(cix gc --list-dead | wc -l) && test $n -gt 0 && test $n -lt 400 &&
	cix gc --collect-garbage=1k 2>/dev/null &&
	test $(cix gc --list-dead | wc -l) -lt $n &&
	test_expect_code 2 cix gc -C 12XB 2>err && grep -q "invalid amount" err &&
	test_expect_code 2 cix gc --collect-garbage=-1 2>err && grep -q "invalid amount" err &&
	test_expect_code 2 cix gc --list-dead --list-live 2>err && grep -q "one action" err &&
	cix gc 2>/dev/null && test "$(ls store)" = ""
'

test_expect_success 'roots pointing outside the store are neither followed nor deleted' '
	mkdir -p canary/sub && echo keep >canary/sub/file &&
	ln -s "$PWD/canary" state/gcroots/outside &&
	ln -s /etc state/gcroots/etc && ln -s / state/gcroots/slash &&
	p=$(cix store --add canary) && ln -s "$p/sub" state/gcroots/into-sub &&
	cix gc --list-live >live && echo "$p" >expect && test_cmp expect live &&
	cix gc 2>/dev/null && test -e "$p" &&
	test "$(cat canary/sub/file)" = keep && test -e /etc/passwd &&
	rm state/gcroots/into-sub && cix gc 2>/dev/null && test ! -e "$p" &&
	test "$(cat canary/sub/file)" = keep
'

test_expect_success 'leftovers: an invalid tree deeper than PATH_MAX, a symlink to a canary' '
	leftover=$SD/00000000000000000000000000000000-deep &&
	mkdir "$leftover" &&
	(cd "$leftover" && perl -e "for (1..2200) { mkdir q(d) or die; chdir q(d) or die } open(F, q(>f)) or die") &&
	ln -s "$PWD/canary" "$leftover/d/escape" &&
	ln -s "$PWD/canary/sub/file" "$leftover/filelink" &&
	cix gc 2>/dev/null &&
	test_path_is_missing "$leftover" &&
	test "$(cat canary/sub/file)" = keep
'

test_expect_success 'kill -9 in the middle of a collection: no valid path is damaged, the next one finishes' '
	gen-closure "$SD" 3000 11 2>/dev/null >k.exp &&
	cix store --import <k.exp >k.imported &&
	keep=$(sed -n 1500p k.imported) && ln -s "$keep" state/gcroots/keep &&
	for delay in 0.05 0.15 0.3; do
		cix gc >/dev/null 2>&1 &
		pid=$! && sleep $delay && kill -9 $pid 2>/dev/null
		wait $pid 2>/dev/null
		cix store --verify --check-contents || return 1
		for p in $(cix gc --list-live); do test -e "$p" || return 1; done
	done &&
	cix gc 2>/dev/null &&
	cix gc --list-dead >dead && test_line_count = 0 dead &&
	cix store -qR "$keep" | sort >expect && cix gc --list-live >live && test_cmp expect live &&
	ls store | grep -v "\.lock$" | sed "s|^|$SD/|" | sort >present && test_cmp live present &&
	rm state/gcroots/keep && cix gc 2>/dev/null
'

# More dead paths than a batch (4,096): the files of one batch are removed
# on a thread of their own while the next batch's rows are deleted.
test_expect_success 'a collection in several batches: every dead path gone, the live ones whole' '
	gen-closure "$SD" 10000 5 2>/dev/null >b.exp &&
	cix store --import <b.exp >b.imported &&
	ln -s "$(sed -n 2000p b.imported)" state/gcroots/b &&
	cix gc --list-dead | sort >dead.before &&
	test $(wc -l <dead.before) -gt 4096 &&
	cix gc 2>gc.err &&
	grep "($(wc -l <dead.before) store paths deleted)" gc.err &&
	cix gc --list-dead >dead && test_line_count = 0 dead &&
	for p in $(cat dead.before); do test ! -e "$p" || return 1; done &&
	cix gc --list-live | sort >live &&
	ls store | grep -v "\.lock$" | sed "s|^|$SD/|" | sort >present && test_cmp live present &&
	cix store --verify --check-contents &&
	rm state/gcroots/b && cix gc 2>/dev/null
'

test_expect_success 'two collectors at once' '
	cix store --import <k.exp >/dev/null &&
	ln -s "$(sed -n 10p k.imported)" state/gcroots/ten &&
	{ cix gc >gc1.out 2>&1 & } && { cix gc >gc2.out 2>&1 & } && wait &&
	cix gc --list-dead >dead && test_line_count = 0 dead &&
	cix store --verify --check-contents &&
	rm state/gcroots/ten && cix gc 2>/dev/null
'

test_expect_success DAEMON 'a connected client'"'"'s temporary root lives as long as its connection' '
	echo temp >tempfile && p=$(cix store --add tempfile) &&
	cix gc --list-dead >dead && grep -qx "$p" dead &&
	{ perl "$CIX_SRC_DIR/t/lib-temp-root-client.pl" "$CIX_STATE_DIR/test-daemon.sock" "$p" \
		release >client.out & } &&
	for i in $(seq 100); do grep -q rooted client.out && break; sleep 0.1; done &&
	grep -q rooted client.out &&
	cix gc 2>/dev/null && test -e "$p" && cix store --check-validity "$p" &&
	touch release && wait &&
	for i in $(seq 100); do cix gc --list-dead | grep -qx "$p" && break; sleep 0.1; done &&
	cix gc 2>/dev/null && test ! -e "$p"
'

test_expect_success DAEMON,NOBODY 'an unprivileged user collects garbage and sees only its own roots' '
	echo nobody >nbfile && p=$(cix store --add nbfile) &&
	chmod 755 "$TRASH_DIRECTORY" &&
	runuser -u nobody -- env CIX_DAEMON_SOCKET="$CIX_STATE_DIR/test-daemon.sock" \
		"$CIX_BUILD_DIR/cix" gc --list-roots >nbroots &&
	test_line_count = 0 nbroots &&
	ln -s "$p" state/gcroots/rootsroot &&
	cix gc --list-roots >roots && grep -qx "$CIX_STATE_DIR/gcroots/rootsroot" roots &&
	rm state/gcroots/rootsroot &&
	runuser -u nobody -- env CIX_DAEMON_SOCKET="$CIX_STATE_DIR/test-daemon.sock" \
		"$CIX_BUILD_DIR/cix" gc 2>nberr &&
	test ! -e "$p"
'

# A static program builds the test's package slowly: it sleeps for the
# seconds given, then writes $out/done (or the program $out/bin/NAME).
cat >slow.c <<'EOF'
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>
int main(int argc, char **argv)
{
	const char *out = getenv("out");
	char p[4096];
	sleep(argc > 1 ? (unsigned)atoi(argv[1]) : 1);
	mkdir(out, 0755);
	if (argc > 2) {   /* a program: $out/bin/NAME */
		snprintf(p, sizeof(p), "%s/bin", out);
		mkdir(p, 0755);
		snprintf(p, sizeof(p), "%s/bin/%s", out, argv[2]);
	} else {
		snprintf(p, sizeof(p), "%s/done", out);
	}
	FILE *f = fopen(p, "w");
	if (!f || fputs("done\n", f) < 0 || fclose(f))
		return 1;
	return argc > 2 && chmod(p, 0755);
}
EOF
gcc -static -O2 -o slow slow.c 2>/dev/null && test_set_prereq STATIC
P=$TRASH_DIRECTORY/pkgs
CIX_SCHEME_PATH=$CIX_SCHEME_PATH:$P
export CIX_SCHEME_PATH
mkdir -p "$P/gnu/packages"
cat >"$P/gnu/packages/gct.scm" <<EOF
(define-module (gnu packages gct)
  #:use-module (guix packages)
  #:use-module (guix build-system trivial))
(define-public slowpoke
  (package
    (name "slowpoke") (version "1")
    (build-system trivial-build-system)
    (inputs \`(("slow" ,(local-file "$TRASH_DIRECTORY/slow" "slow"))))
    (arguments \`(#:implicit-inputs? #f #:builder ((input "slow") "4")))
    (synopsis "s") (description "d") (home-page "h") (license #f)))
(define (quick n)
  (package
    (name (string-append "quick" n)) (version "1")
    (build-system trivial-build-system)
    (inputs \`(("slow" ,(local-file "$TRASH_DIRECTORY/slow" "slow"))))
    (arguments \`(#:implicit-inputs? #f #:builder ((input "slow") "0" ,(string-append "quick" n))))
    (synopsis "s") (description "d") (home-page "h") (license #f)))
(define-public quick1 (quick "1"))
(define-public quick2 (quick "2"))
(define-public quick3 (quick "3"))
EOF

test_expect_success STATIC 'a collection during a build: it is not blocked, and its inputs and outputs survive' '
	cix build -q slowpoke >out 2>err &
	pid=$! &&
	for i in $(seq 100); do grep -qs slowpoke state/temproots/* && break; sleep 0.1; done &&
	grep -qs slowpoke state/temproots/* &&
	src=$(ls -d "$SD"/*-slow) &&
	cix gc 2>gcerr &&
	kill -0 $pid && test -e "$src" && cix store --check-validity "$src" &&
	wait $pid &&
	test "$(cat "$(cat out)/done")" = done &&
	cix store --check-validity "$(cat out)"
'

test_expect_success STATIC 'indirect roots: cix build -r keeps the result while the link exists' '
	cix build -q -r result slowpoke >out &&
	test "$(readlink result)" = "$(cat out)" &&
	cix gc 2>/dev/null && test -e "$(cat out)" &&
	cix gc --list-roots >roots && grep -qx "$PWD/result" roots &&
	rm result && cix gc 2>/dev/null && test ! -e "$(cat out)"
'

test_expect_success 'collections during imports: no valid path loses its files or references' '
	gen-closure "$SD" 500 21 2>/dev/null >i.exp &&
	{ for i in 1 2 3 4 5 6; do cix gc >/dev/null 2>&1 || exit 1; done & } &&
	for i in 1 2 3 4 5 6; do cix store --import <i.exp >/dev/null || return 1; done &&
	wait &&
	cix store --verify --check-contents &&
	cix gc 2>/dev/null && test "$(ls store)" = ""
'

test_expect_success '--optimize hard-links identical files' '
	mkdir o1 o2 && echo same >o1/f && echo same >o2/f &&
	a=$(cix store --add o1) && b=$(cix store --add o2) &&
	ln -s "$a" state/gcroots/o1 && ln -s "$b" state/gcroots/o2 &&
	cix gc --optimize 2>err &&
	test "$(stat -c %i "$a/f")" = "$(stat -c %i "$b/f")" &&
	rm state/gcroots/o1 state/gcroots/o2 && cix gc 2>/dev/null &&
	test "$(ls store)" = "" && test "$(ls -A store/.links 2>/dev/null)" = ""
'

test_expect_success STATIC 'collections during profile switches: every generation stays whole' '
	{ for i in $(seq 10); do cix gc >/dev/null 2>&1 || exit 1; done & } &&
	for p in quick1 quick2 quick3 quick1; do
		cix package -i $p 2>/dev/null || return 1
	done &&
	wait &&
	cix package -r quick1 -r quick2 2>/dev/null &&
	cix gc 2>/dev/null &&
	cix store --verify --check-contents &&
	for g in $(ls state/profiles/per-user/*/ | grep -- "-link$"); do
		d=$(readlink -f state/profiles/per-user/*/$g) &&
		cix store --check-validity "$d" &&
		for q in $(cix store -qR "$d"); do test -e "$q" || return 1; done || return 1
	done &&
	test -x "$HOME/.cix-profile/bin/quick3"
'

test_done
