#!/bin/sh
# t3120-daemon-store-realise.sh - t2010-store-realise, every cix store command through cix-daemon
# SPDX-License-Identifier: GPL-3.0-or-later
CIX_TEST_DAEMON=1 exec "$(dirname "$0")/t2010-store-realise.sh" "$@"
