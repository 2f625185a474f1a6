# debian-source.sh - apt's access to Debian's source packages, for scripts
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Sourced by bash scripts (scripts/fill-mirror, t/nix-suite/run). After
# debian_source_setup, the array debian_apt_opts holds the apt-get options
# that reach Debian's source indices:
#
#   none, when the system's apt has deb-src entries; else a private apt
#   configuration made from the system's own entries (each "deb" becomes
#   "deb-src"; the system's configuration is not changed), whose indices
#   live in ${XDG_CACHE_HOME:-$HOME/.cache}/cix/apt-src.
#
# debian_source_setup UPDATE LOG: make the private configuration when it is
# needed; run `apt-get update` on it when UPDATE is not empty or when it
# has no indices yet (its output in LOG). Returns non-zero when the update
# fails.
#
# debian_source_setup UPDATE LOG SUITE: the same for another release of
# Debian (trixie, say), a private configuration of its own (in
# .../cix/apt-src-SUITE): the system's entries of its own release (not
# -updates, -security), with SUITE in its stead.
#
# debian_source_download DIR PACKAGE LOG: `apt-get source --download-only
# PACKAGE` into DIR (apt's output in LOG).

debian_apt_opts=()

# The deb-src entries of a one-line sources.list file, or of a deb822
# .sources file (kind "list" or "sources"), made from its deb entries: all
# of them, or with SUITE those of the system's own release, for SUITE.
debian_src_entries () {
	local kind=$1 file=$2 suite=$3 own
	own=$(. /etc/os-release 2>/dev/null && echo "${VERSION_CODENAME:-}")
	if [ -z "$suite" ]; then
		case $kind in
		list) sed -n 's/^[[:space:]]*deb\([[:space:]]\)/deb-src\1/p' "$file" ;;
		sources) sed 's/^Types:.*/Types: deb-src/' "$file" ;;
		esac
		return
	fi
	[ -n "$own" ] || return 0
	case $kind in
	list) awk -v own="$own" -v suite="$suite" '
		$1 == "deb" { d = ($2 ~ /^\[/) ? 4 : 3
			if ($d == own) { $1 = "deb-src"; $d = suite; print } }' "$file" ;;
	sources) awk -v own="$own" -v suite="$suite" 'BEGIN { RS = ""; ORS = "\n\n" }
		{
			n = split($0, l, "\n"); keep = 0; out = ""
			for (i = 1; i <= n; i++) {
				if (l[i] ~ /^Suites:/) {
					m = split(l[i], w, /[ \t]+/)
					for (j = 2; j <= m; j++) if (w[j] == own) keep = 1
					l[i] = "Suites: " suite
				} else if (l[i] ~ /^Types:/) {
					l[i] = "Types: deb-src"
				}
				out = out l[i] "\n"
			}
			if (keep) printf "%s\n", out
		}' "$file" ;;
	esac
}

debian_source_setup () {
	local update=$1 log=$2 suite=${3:-} cache SL SP f have_lists
	debian_apt_opts=()
	# shellcheck disable=SC2016 # $(IDENTIFIER) is apt's, not ours
	if [ -z "$suite" ] &&
	   apt-get indextargets --format '$(IDENTIFIER)' 2>/dev/null | grep -qx Sources; then
		return 0
	fi
	cache=${XDG_CACHE_HOME:-${HOME:-/root}/.cache}/cix/apt-src${suite:+-$suite}
	mkdir -p "$cache/lists/partial" "$cache/sources.list.d" || return 1
	eval "$(apt-config shell SL Dir::Etc::SourceList/f SP Dir::Etc::SourceParts/d)"
	: >"$cache/sources.list.new"
	if [ -f "${SL:-}" ]; then
		debian_src_entries list "$SL" "$suite" >"$cache/sources.list.new"
	fi
	rm -f "$cache"/sources.list.d/*
	for f in "${SP:-/nonexistent}"*.list "${SP:-/nonexistent}"*.sources; do
		[ -f "$f" ] || continue
		case $f in
		*.list) debian_src_entries list "$f" "$suite" >"$cache/sources.list.d/${f##*/}" ;;
		*.sources) debian_src_entries sources "$f" "$suite" >"$cache/sources.list.d/${f##*/}" ;;
		esac
	done
	mv -f "$cache/sources.list.new" "$cache/sources.list"
	debian_apt_opts=(-o "Dir::Etc::SourceList=$cache/sources.list"
		-o "Dir::Etc::SourceParts=$cache/sources.list.d"
		-o "Dir::State::Lists=$cache/lists"
		-o "Dir::Cache::pkgcache=" -o "Dir::Cache::srcpkgcache=")
	have_lists=
	for f in "$cache"/lists/*Sources*; do [ -f "$f" ] && have_lists=1; done
	if [ -n "$update" ] || [ -z "$have_lists" ]; then
		printf '%s: updating the source indices in %s\n' "${prog:-${0##*/}}" "$cache" >&2
		apt-get -q "${debian_apt_opts[@]}" update >"$log" 2>&1 || return 1
	fi
	return 0
}

debian_source_download () {
	(cd "$1" && apt-get -q "${debian_apt_opts[@]}" source --download-only "$2") >"$3" 2>&1
}
