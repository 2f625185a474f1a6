#!/bin/sh
# t3110-daemon-store-import-export.sh - t1020-store-import-export, every cix store command through cix-daemon
# SPDX-License-Identifier: GPL-3.0-or-later
CIX_TEST_DAEMON=1 exec "$(dirname "$0")/t1020-store-import-export.sh" "$@"
