#!/bin/sh
# t3140-daemon-gen-closure.sh - t1030-gen-closure, every cix store command through cix-daemon
# SPDX-License-Identifier: GPL-3.0-or-later
CIX_TEST_DAEMON=1 exec "$(dirname "$0")/t1030-gen-closure.sh" "$@"
