#!/bin/sh
# t3101-daemon-nar-hash-pipe.sh - t0012-nar-hash-pipe, the store commands through cix-daemon
# SPDX-License-Identifier: GPL-3.0-or-later
CIX_TEST_DAEMON=1 exec "$(dirname "$0")/t0012-nar-hash-pipe.sh" "$@"
