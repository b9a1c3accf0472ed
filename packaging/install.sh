#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# `make install` and `make uninstall` (the Makefile sets the variables).
#
#   install.sh install KO [MODULES_INSTALL...]
#	installs cfctl, its man page and bash completion, the systemd unit,
#	its helper and the example configuration files, fail2ban's cfilter
#	action, CrowdSec's bouncer feed and its example configuration, then
#	cfilter.ko
#	(the module KO, built for the kernel its vermagic names) into
#	/lib/modules/<kernel>/updates by running the kbuild command
#	MODULES_INSTALL, then depmod unless DESTDIR is set.
#   install.sh uninstall
#	removes what the installs into the same DESTDIR and PREFIX put
#	there, as their manifest lists it.
#
# The manifest (PREFIX/share/cfilter/install-manifest) has a line for each
# file installed ("f PATH") and each folder the installs created ("d PATH"),
# paths as on the target system. It is rewritten after each step, so that
# an install cut short can be undone too. Uninstall removes the files, then those
# folders if they are empty: folders that were there before stay.
#
# Environment: DESTDIR (staging root, may be empty), PREFIX, SBINDIR,
# MANDIR, BASHCOMPDIR, LIBEXECDIR, UNITDIR, DOCDIR, FAIL2BAN_ACTIONDIR.
set -eu

SRC=$(cd "$(dirname "$0")/.." && pwd)
DESTDIR=${DESTDIR:-}
MANIFEST=$PREFIX/share/cfilter/install-manifest
NEW=

die() {
	echo "install: $*" >&2
	exit 1
}

# Adds line $1 to the manifest, rewritten at once: an install cut short
# still leaves a manifest of what it did, for uninstall.
record() {
	echo "$1" >>"$NEW"
	if [ -d "$DESTDIR$(dirname "$MANIFEST")" ]; then
		sort -u "$NEW" >"$DESTDIR$MANIFEST"
	fi
}

# Creates folder $1 (a target path) and records each folder it creates.
make_dir() {
	[ -d "$DESTDIR$1" ] && return
	make_dir "$(dirname "$1")"
	mkdir "$DESTDIR$1"
	record "d $1"
}

# put MODE SOURCE TARGET
put() {
	make_dir "$(dirname "$3")"
	record "f $3"
	install -m "$1" "$2" "$DESTDIR$3"
	echo "  INSTALL $DESTDIR$3"
}

# put_paths MODE SOURCE.in TARGET: SOURCE with the paths chosen at install
# time in place of @SBINDIR@ and @LIBEXECDIR@.
put_paths() {
	sed -e "s|@SBINDIR@|$SBINDIR|g" -e "s|@LIBEXECDIR@|$LIBEXECDIR|g" \
		"$2" >"$NEW.subst"
	put "$1" "$NEW.subst" "$3"
	rm -f "$NEW.subst"
}

# Field vermagic of a module's .modinfo: "<kernel release> SMP ...".
module_kernel() {
	objcopy -O binary --only-section=.modinfo "$1" /dev/stdout |
		tr '\0' '\n' | sed -n 's/^vermagic=\([^ ]*\).*/\1/p'
}

put_module() {
	ko=$1
	shift
	kver=$(module_kernel "$ko")
	[ -n "$kver" ] || die "$ko has no vermagic: is it a kernel module?"
	make_dir "/lib/modules/$kver/updates"
	record "f /lib/modules/$kver/updates/cfilter.ko"
	"$@"
	[ -f "$DESTDIR/lib/modules/$kver/updates/cfilter.ko" ] ||
		die "kbuild's modules_install left no $DESTDIR/lib/modules/$kver/updates/cfilter.ko"
	if [ -z "$DESTDIR" ]; then
		depmod "$kver" || die "depmod $kver failed"
	fi
}

# What an earlier install put there stays listed: uninstall removes it
# too (a module for another kernel, say).
do_install() {
	[ $# -ge 1 ] || die "usage: install.sh install KO [MODULES_INSTALL...]"
	[ -f "$1" ] || die "$1 not found: run make"
	mkdir -p "$DESTDIR/"
	NEW=$(mktemp)
	trap 'rm -f "$NEW" "$NEW.subst"' EXIT
	if [ -f "$DESTDIR$MANIFEST" ]; then
		cat "$DESTDIR$MANIFEST" >>"$NEW"
	fi
	make_dir "$(dirname "$MANIFEST")"
	record "f $MANIFEST"
	echo "  INSTALL $DESTDIR$MANIFEST (what make uninstall removes)"

	put 755 "$SRC/user/cfctl" "$SBINDIR/cfctl"
	put 644 "$SRC/docs/cfctl.8" "$MANDIR/man8/cfctl.8"
	put 644 "$SRC/packaging/bash-completion/cfctl" "$BASHCOMPDIR/cfctl"
	put 755 "$SRC/packaging/cfilter-boot" "$LIBEXECDIR/cfilter/cfilter-boot"
	put_paths 644 "$SRC/packaging/cfilter.service.in" "$UNITDIR/cfilter.service"
	put 644 "$SRC/packaging/modprobe-cfilter.conf" "$DOCDIR/modprobe-cfilter.conf"
	put 644 "$SRC/packaging/interfaces.example" "$DOCDIR/interfaces.example"
	put 644 "$SRC/packaging/fail2ban/action.d/cfilter.conf" \
		"$FAIL2BAN_ACTIONDIR/cfilter.conf"
	put_paths 755 "$SRC/packaging/crowdsec/cfilter-crowdsec.in" \
		"$LIBEXECDIR/cfilter/cfilter-crowdsec"
	put_paths 644 "$SRC/packaging/crowdsec/crowdsec-custom-bouncer.yaml.in" \
		"$DOCDIR/crowdsec-custom-bouncer.yaml"
	put_module "$@"
	if [ -z "$DESTDIR" ] && [ -d /run/systemd/system ]; then
		systemctl daemon-reload
		echo "install: to start cfilter now and at every boot: systemctl enable --now cfilter"
	fi
}

do_uninstall() {
	[ -f "$DESTDIR$MANIFEST" ] ||
		die "no $DESTDIR$MANIFEST: nothing installed with DESTDIR='$DESTDIR' PREFIX=$PREFIX"
	if [ -z "$DESTDIR" ] && systemctl -q is-enabled cfilter 2>/dev/null; then
		die "cfilter.service is enabled: run systemctl disable --now cfilter first"
	fi
	# The manifest lists itself: read it from a copy.
	NEW=$(mktemp)
	trap 'rm -f "$NEW"' EXIT
	cp "$DESTDIR$MANIFEST" "$NEW"
	while read -r kind path; do
		[ "$kind" = f ] || continue
		rm -f "$DESTDIR$path"
		echo "  REMOVE  $DESTDIR$path"
		case $path in
		/lib/modules/*/updates/cfilter.ko)
			kver=${path#/lib/modules/}
			kver=${kver%%/*}
			if [ -z "$DESTDIR" ]; then
				depmod "$kver" || echo "install: depmod $kver failed" >&2
			fi
			;;
		esac
	done <"$NEW"
	# Deepest first, so that a folder is empty once its own are gone.
	grep '^d ' "$NEW" | cut -c3- | sort -r | while read -r dir; do
		rmdir "$DESTDIR$dir" 2>/dev/null ||
			echo "install: $DESTDIR$dir kept: not empty"
	done
	if [ -z "$DESTDIR" ] && [ -d /run/systemd/system ]; then
		systemctl daemon-reload
	fi
}

case ${1:-} in
install)
	shift
	do_install "$@"
	;;
uninstall)
	do_uninstall
	;;
*)
	die "usage: install.sh install KO [MODULES_INSTALL...] | install.sh uninstall"
	;;
esac
