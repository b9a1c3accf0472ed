#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# doc-examples.sh README.md cfctl.8: the commands the documents show, for
# test_docs.sh and tests/system/run.sh to run as written. Prints one block
# per example: a line "@@ WHERE: TITLE", then its commands. From the
# README, each block of "Using it on a real host" before its subsections
# (titled "Using it on a real host N"); from the man page, each .EX block
# of EXAMPLES (roff escapes undone), titled with the first line of the
# text before it.

set -eu
[ $# = 2 ] || { echo "usage: $0 README.md cfctl.8" >&2; exit 2; }

awk '
/^## Using it on a real host/ { want = 1; next }
want && /^##/ { exit }
want && /^```sh/ { print "@@ README: Using it on a real host " ++n; inblock = 1; next }
inblock && /^```/ { inblock = 0; next }
inblock { print }
' "$1"

awk '
/^\.SH EXAMPLES/ { ex = 1; next }
ex && /^\.SH/ { exit }
!ex { next }
/^\.EX/ { print "@@ cfctl.8: " title; inblock = 1; title = ""; next }
/^\.EE/ { inblock = 0; next }
inblock { gsub(/\\-/, "-"); gsub(/\\\(dq/, "\""); print; next }
/^\.(PP|RS|RE)/ { next }
title == "" { t = $0; sub(/^\.[A-Z]+ /, "", t); title = t }
' "$2"
