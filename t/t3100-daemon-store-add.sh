#!/bin/sh
# t3100-daemon-store-add.sh - t1000-store-add, every cix store command through cix-daemon
# SPDX-License-Identifier: GPL-3.0-or-later
CIX_TEST_DAEMON=1 exec "$(dirname "$0")/t1000-store-add.sh" "$@"
