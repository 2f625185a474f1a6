# stages.sh - read distro/commencement-stages (sourced by scripts/run and
# scripts/distro-check)
# SPDX-License-Identifier: GPL-3.0-or-later
#
# stages FILE: prints "STAGE WHAT..." for each stage, in order.
# stage_args WHAT...: the arguments of `cix build' that build them, one per
# line: a package's name as it is, @VAR as -e and its expression.
stages () {
	sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$1"
}
stage_args () {
	local w
	for w in "$@"; do
		case $w in
		@*) printf '%s\n' -e "(@@ (gnu packages commencement) ${w#@})" ;;
		*) printf '%s\n' "$w" ;;
		esac
	done
}
