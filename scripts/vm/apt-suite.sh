# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
#
# A private apt configuration for one of Debian's other suites, sourced by
# kernel.sh and debug-kernel.sh: the system's sources, lists and package
# cache are never touched. The caller sets SUITE (trixie, forky, ...) and
# APT_DIR (.cache/apt-<suite>/: the suite's sources, lists and package
# cache) and defines die and log.

# apt_suite CMD ARGS...: apt-get or apt-cache on the suite alone.
apt_suite() {
	cmd=$1
	shift
	"$cmd" -q -o Dir::Etc::SourceList=/dev/null \
		-o Dir::Etc::SourceParts="$APT_DIR/sources" \
		-o Dir::State::Lists="$APT_DIR/lists" \
		-o Dir::State::Status=/dev/null \
		-o Dir::Cache="$APT_DIR/cache" \
		-o APT::Sandbox::User=root "$@"
}

# Reads the suite's package lists once (APT_DIR/updated records it). A
# stable suite has -updates and -security; testing (forky) has neither
# that carries kernels.
update_suite_lists() {
	[ -f "$APT_DIR/updated" ] && return 0
	keyring=/usr/share/keyrings/debian-archive-keyring.gpg
	[ -f "$keyring" ] || die "$keyring missing: apt-get install debian-archive-keyring"
	mkdir -p "$APT_DIR/sources" "$APT_DIR/lists/partial" \
		"$APT_DIR/cache/archives/partial"
	case $SUITE in
	forky) suites=$SUITE security= ;;
	*) suites="$SUITE $SUITE-updates" security=$SUITE-security ;;
	esac
	{
		printf 'Types: deb\nURIs: http://deb.debian.org/debian\n'
		printf 'Suites: %s\nComponents: main\nSigned-By: %s\n' "$suites" "$keyring"
		[ -z "$security" ] ||
			printf '\nTypes: deb\nURIs: http://deb.debian.org/debian-security\nSuites: %s\nComponents: main\nSigned-By: %s\n' \
				"$security" "$keyring"
	} >"$APT_DIR/sources/$SUITE.sources"
	log "reading $SUITE's package lists"
	apt_suite apt-get update >/dev/null ||
		die "apt-get update for $SUITE failed (network? see the output above)"
	touch "$APT_DIR/updated"
}
