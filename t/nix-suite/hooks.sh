# hooks.sh - the end of the Nix suite's common.sh in cix's harness
# SPDX-License-Identifier: GPL-3.0-or-later
#
# t/nix-suite/run puts this into the generated common.sh, after the
# suite's own functions: the daemon of the tests is the harness's
# ($NIX_SUITE_MODE: Nix's nix-daemon or cix-daemon, started by
# $NIX_SUITE_DAEMON), on the suite's socket and directories, as the
# suite's startDaemon would start Nix's. restartDaemon stays the suite's.

startDaemon() {
    if [[ "${NIX_REMOTE:-}" == daemon ]]; then
        return
    fi
    pidDaemon=$("$NIX_SUITE_DAEMON" start) || fail "the harness cannot start the $NIX_SUITE_MODE daemon"
    trap "killDaemon" EXIT
    export NIX_REMOTE=daemon
}

killDaemon() {
    "$NIX_SUITE_DAEMON" stop "$pidDaemon"
    trap "" EXIT
}

# Every test runs against the daemon, as Nix's own daemon runs do
# (with NIX_DAEMON_PACKAGE); a script that the test runs with
# NIX_REMOTE_=daemon shares its daemon.
if [[ -n "${NIX_SUITE_MODE:-}" && "${NIX_REMOTE:-}" != daemon ]]; then
    startDaemon
fi
