#!/bin/sh
# t5101-daemon-gc.sh - t5100-gc, every cix gc, store and build command through cix-daemon
# SPDX-License-Identifier: GPL-3.0-or-later
CIX_TEST_DAEMON=1 exec "$(dirname "$0")/t5100-gc.sh" "$@"
