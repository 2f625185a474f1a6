#!/bin/sh
# t5001-daemon-profile-build.sh - t5000-profile-build, every cix store command through cix-daemon
# SPDX-License-Identifier: GPL-3.0-or-later
CIX_TEST_DAEMON=1 exec "$(dirname "$0")/t5000-profile-build.sh" "$@"
