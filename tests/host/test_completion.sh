#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# cfctl's bash completion (packaging/bash-completion/cfctl) against cfctl
# itself: it offers exactly the commands `cfctl --help` lists, and for each
# command every option its usage line names. The completion keeps its own
# lists; this is what keeps them true when cfctl gains a command or option.
set -uo pipefail
cd "$(dirname "$0")/../.."

CFCTL=${CFCTL:-user/cfctl}
n=0 failed=0

ok() {
	n=$((n + 1))
	if [ "$1" = 0 ]; then
		echo "ok $n $2"
	else
		echo "not ok $n $2"
		failed=$((failed + 1))
	fi
}

# shellcheck source=/dev/null
. packaging/bash-completion/cfctl

# What the completion offers for the words "$@", the last being completed.
complete_words() {
	COMP_WORDS=(cfctl "$@")
	COMP_CWORD=$#
	COMPREPLY=()
	_cfctl
	printf '%s\n' "${COMPREPLY[@]}" | sort -u
}

[ -x "$CFCTL" ] || make -s -C user >/dev/null || exit 1

# The commands: the first word of each line under "Commands:" in --help.
verbs=$("$CFCTL" --help | sed -n '/^Commands:/,/^$/s/^  \([a-z]\+\) .*/\1/p' | sort -u)
offered=$(complete_words "")
if [ "$verbs" = "$offered" ]; then
	ok 0 "the commands offered are cfctl --help's ($(echo "$verbs" | wc -l))"
else
	ok 1 "the commands offered are cfctl --help's"
	diff <(echo "$verbs") <(echo "$offered") | sed 's/^/# /'
fi

for verb in $verbs; do
	# The options of the command's usage line (its first line).
	want=$("$CFCTL" "$verb" --help | head -n 1 |
		grep -oE -- '(^|[[ |])--?[A-Za-z][A-Za-z-]*' | sed 's/^[[ |]//' | sort -u)
	got=$(complete_words "$verb" -)
	missing=$(comm -23 <(echo "$want") <(echo "$got") | tr '\n' ' ')
	if [ -z "$missing" ]; then
		ok 0 "cfctl $verb: every option of its usage is offered"
	else
		ok 1 "cfctl $verb: every option of its usage is offered"
		echo "# not offered: $missing"
	fi
done

echo "1..$n"
echo "# completion: $((n - failed)) passed, $failed failed"
[ "$failed" = 0 ]
