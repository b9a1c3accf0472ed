#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# `make deb`: the Debian packages cfilter-dkms and cfilter, with their
# source package, built with debhelper from debian/ and written to dist/
# (emptied first): the two .deb files, the .dsc and its tarball, the
# .changes and the .buildinfo.
#
# dpkg-buildpackage writes beside the tree it builds and cleans that tree
# first, so it runs in a copy: of the files git tracks, as they are in the
# work tree (outside git, of every file but .cache/ and dist/), so that
# what is built is what a clone has, and builds here are left alone.
set -eu
cd "$(dirname "$0")/../.."

scripts/deps.sh

version=$(dpkg-parsechangelog -S Version)
work=$(mktemp -d "${TMPDIR:-/tmp}/cfilter-deb.XXXXXX")
trap 'rm -rf "$work"' EXIT
tree=$work/cfilter-$version
mkdir "$tree"

if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	# A file deleted but not yet committed is left out.
	git ls-files | while IFS= read -r f; do
		if [ -e "$f" ]; then
			printf '%s\n' "$f"
		fi
	done | tar -cf - -T - | tar -xf - -C "$tree"
else
	tar -cf - --exclude=./.cache --exclude=./dist . | tar -xf - -C "$tree"
fi

echo "==== dpkg-buildpackage cfilter $version (log: dist/build.log)"
rm -rf dist
mkdir dist
(cd "$tree" && dpkg-buildpackage -us -uc) >dist/build.log 2>&1 || {
	tail -n 40 dist/build.log >&2
	echo "deb: dpkg-buildpackage failed: see dist/build.log" >&2
	exit 1
}
for f in "$work"/cfilter*_"$version"*; do
	mv "$f" dist/
done
ls -l dist
