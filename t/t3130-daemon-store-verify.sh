#!/bin/sh
# t3130-daemon-store-verify.sh - t1010-store-verify, every cix store command through cix-daemon
# SPDX-License-Identifier: GPL-3.0-or-later
CIX_TEST_DAEMON=1 exec "$(dirname "$0")/t1010-store-verify.sh" "$@"
