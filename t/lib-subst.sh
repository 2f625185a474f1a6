# lib-subst.sh - binary caches in tests: two packages, cix publish, a second machine
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Source after test-lib.sh. Sets up a store of the trash directory and its
# configuration; two packages, sublib and subapp (which refers to sublib),
# built by a static program (prerequisite STATIC); start_publish NAME
# OPTION... starts cix publish (its URL in NAME.url), stop_publish NAME
# stops it; on2 CMD... runs CMD on a second machine, a mount namespace
# (prerequisite MOUNTNS) with an empty store at the same path and its own
# state, configuration, logs and cache (fresh2 empties them).

T=$TRASH_DIRECTORY
test_private_store
test_private_conf_dir
XDG_CACHE_HOME=$T/cache
export XDG_CACHE_HOME
P=$T/pkgs
CIX_SCHEME_PATH=$CIX_SCHEME_PATH:$P
command -v curl >/dev/null && test_set_prereq CURL
command -v unshare >/dev/null && [ "$(id -u)" = 0 ] &&
	unshare -m --propagation private true 2>/dev/null && test_set_prereq MOUNTNS

[ -x "$MKPKG" ] && test_set_prereq STATIC
# mkpkg also as a bootstrap item (subboot): named by its hash only.
MKPKG_HASH=$(cix hash -r "$MKPKG" 2>/dev/null)
mkdir -p "$P/gnu/packages"
cat >"$P/gnu/packages/sub.scm" <<EOF
(define-module (gnu packages sub)
  #:use-module (guix packages)
  #:use-module (guix build-system trivial))
(define-public sublib
  (package
    (name "sublib") (version "1")
    (build-system trivial-build-system)
    (inputs \`(("mkpkg" ,(local-file "$MKPKG" "mkpkg"))))
    (arguments \`(#:implicit-inputs? #f #:builder ((input "mkpkg") "sublib" "1")))
    (synopsis "s") (description "d") (home-page "h") (license #f)))
(define-public subapp
  (package
    (name "subapp") (version "2")
    (build-system trivial-build-system)
    (inputs \`(("mkpkg" ,(local-file "$MKPKG" "mkpkg")) ("lib" ,sublib)))
    (arguments \`(#:implicit-inputs? #f
                  #:builder ((input "mkpkg") "subapp" "2" (input "lib"))))
    (synopsis "s") (description "d") (home-page "h") (license #f)))
(define-public subboot
  (package
    (name "subboot") (version "3")
    (build-system trivial-build-system)
    (inputs \`(("mkpkg" ,(bootstrap-item "mkpkg" (base32 "$MKPKG_HASH") #t))))
    (arguments \`(#:implicit-inputs? #f #:builder ((input "mkpkg") "subboot" "3")))
    (synopsis "s") (description "d") (home-page "h") (license #f)))
;; The same seed in a package that no cache has: built where it is asked for.
(define-public subboot2
  (package
    (inherit subboot) (name "subboot2")
    (arguments \`(#:implicit-inputs? #f #:builder ((input "mkpkg") "subboot2" "3")))))
EOF

start_publish () {
	name=$1
	shift
	cix publish --port 0 --listen 127.0.0.1 "$@" 2>"$name.log" &
	echo $! >"$name.pid"
	for _ in $(seq 100); do
		grep -q "^publishing" "$name.log" 2>/dev/null && break
		sleep 0.1
	done
	sed -n 's/^publishing .* on \(http:.*\)\/$/\1/p' "$name.log" >"$name.url"
	test -s "$name.url"
}

stop_publish () {
	kill "$(cat "$1.pid")" 2>/dev/null
	wait "$(cat "$1.pid")" 2>/dev/null
	true
}

# on2 CMD...: CMD on the second machine: an empty store (store2) at the
# same path, its own state (state2) and configuration (conf2).
on2 () {
	CIX_STATE_DIR=$T/state2 CIX_CONF_DIR=$T/conf2 CIX_LOG_DIR=$T/log2 \
	XDG_CACHE_HOME=$T/cache2 unshare -m --propagation private \
		sh -c 'mount --bind "$0/store2" "$CIX_STORE_DIR" && exec "$@"' "$T" "$@"
}

fresh2 () {
	chmod -R u+w store2 2>/dev/null
	rm -rf store2 state2 log2 cache2 && mkdir -p store2 state2 conf2 log2
}

# built2: how many builds the second machine ran (their logs).
built2 () {
	find log2 -type f | wc -l
}

# on2d CMD...: CMD on the second machine while its cix-daemon runs, with
# the daemon options of $T/dopts.
on2d () {
	on2 sh -c '
		rm -f "$CIX_STATE_DIR/sock"
		cix-daemon --listen "$CIX_STATE_DIR/sock" $(cat "$0/dopts") 2>>"$0/daemon2.log" &
		pid=$!
		for i in $(seq 100); do [ -S "$CIX_STATE_DIR/sock" ] && break; sleep 0.1; done
		CIX_DAEMON_SOCKET=$CIX_STATE_DIR/sock "$@"
		status=$?
		kill $pid; wait $pid 2>/dev/null
		exit $status' "$T" "$@"
}
