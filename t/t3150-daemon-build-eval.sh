#!/bin/sh
# t3150-daemon-build-eval.sh - t4030-build-eval, cix build through cix-daemon
# SPDX-License-Identifier: GPL-3.0-or-later
CIX_TEST_DAEMON=1 exec "$(dirname "$0")/t4030-build-eval.sh" "$@"
