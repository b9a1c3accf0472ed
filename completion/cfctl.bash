# SPDX-License-Identifier: GPL-2.0
# bash completion for cfctl(8): commands, each command's options, entry
# kinds for add, del and test, protocols for match, network interfaces for
# attach and detach, files for load, replace, snapshot and restore, the
# filter's sources after -s. Needs bash only, not the bash-completion
# package. Install as /usr/share/bash-completion/completions/cfctl, or
# source it.

_cfctl()
{
	local cur=${COMP_WORDS[COMP_CWORD]}
	local prev=${COMP_WORDS[COMP_CWORD-1]}
	local verbs="add allow del test match load replace save snapshot restore
		crowdsec list info flush clear stats status attach detach"
	local verb="" opts i nwords=0

	# The command is the first word after cfctl's own options.
	for ((i = 1; i < COMP_CWORD; i++)); do
		case ${COMP_WORDS[i]} in
		-*) ;;
		*) verb=${COMP_WORDS[i]}; break ;;
		esac
	done
	# Words of the command's argument before the one being completed,
	# less the options and their values.
	for ((i++; i < COMP_CWORD; i++)); do
		case ${COMP_WORDS[i]} in
		-s | --source | -t | --timeout | --from | -m | --mode | -i | --interval | \
		--count | --format | --textfile)
			((i++)) ;;
		-*) ;;
		*) ((nwords++)) ;;
		esac
	done

	if [[ -z $verb ]]; then
		if [[ $cur == -* ]]; then
			mapfile -t COMPREPLY < <(compgen -W \
				"-h --help -v --verbose -j --json -q --quiet -V --version" -- "$cur")
		else
			mapfile -t COMPREPLY < <(compgen -W "$verbs" -- "$cur")
		fi
		return
	fi

	case $verb in
	add | allow)	opts="-q --quiet -n --dry-run -s --source -t --timeout --from --cap-timeout" ;;
	del)		opts="-q --quiet -n --dry-run -s --source -a --all-sources" ;;
	test)		opts="-j --json -q --quiet -s --source --exact" ;;
	match)		opts="-j --json -q --quiet" ;;
	save)		opts="-s --source" ;;
	crowdsec)	opts="-s --source --types" ;;
	load | replace)	opts="-q --quiet -n --dry-run --skip-bad --normalize --nomatch-allows -s --source -t --timeout" ;;
	snapshot | restore) opts="-n --dry-run" ;;
	list)		opts="-j --json -s --source -a --all-sources" ;;
	flush)		opts="-q --quiet -n --dry-run -s --source" ;;
	info | status)	opts="-j --json" ;;
	stats)		opts="-j --json --watch -i --interval --count --format --textfile" ;;
	clear)		opts="-q --quiet -n --dry-run" ;;
	attach)		opts="-n --dry-run -m --mode --match-dst --force --priority" ;;
	detach)		opts="-n --dry-run" ;;
	*)		opts="" ;;
	esac
	opts="-h --help -v --verbose $opts"

	if [[ $verb == attach && ($prev == -m || $prev == --mode) ]]; then
		mapfile -t COMPREPLY < <(compgen -W "native generic tc" -- "$cur")
		return
	fi
	if [[ $verb == stats && $prev == --format ]]; then
		mapfile -t COMPREPLY < <(compgen -W "text prometheus" -- "$cur")
		return
	fi
	if [[ $verb == stats && $prev == --textfile ]]; then
		mapfile -t COMPREPLY < <(compgen -f -- "$cur")
		compopt -o filenames 2>/dev/null
		return
	fi
	if [[ $verb == crowdsec && $prev == --types ]]; then
		mapfile -t COMPREPLY < <(compgen -W "ban ban,captcha ban,captcha,throttle" -- "$cur")
		return
	fi
	# The sources the filter has; a new one is typed whole.
	if [[ $prev == -s || $prev == --source ]]; then
		mapfile -t COMPREPLY < <(compgen -W "$(cfctl info 2>/dev/null |
			sed -n 's/^source \([^:]*\):.*/\1/p')" -- "$cur")
		return
	fi
	[[ $prev == -t || $prev == --timeout || $prev == --from ]] && return
	if [[ $cur == -* ]]; then
		mapfile -t COMPREPLY < <(compgen -W "$opts" -- "$cur")
		return
	fi
	case $verb in
	add | del | test)
		# An entry starts with its kind (or is a plain source address).
		((nwords == 0)) && mapfile -t COMPREPLY < <(compgen -W \
			"src dst allow tcp udp icmp icmp6" -- "$cur")
		;;
	match)
		# SRC DST, then the protocol of a flow.
		((nwords == 2)) && mapfile -t COMPREPLY < <(compgen -W \
			"tcp udp icmp icmp6" -- "$cur")
		;;
	attach | detach)
		mapfile -t COMPREPLY < <(compgen -W \
			"$(ls /sys/class/net 2>/dev/null)" -- "$cur")
		;;
	load | replace)
		# Files, and - for the standard input.
		mapfile -t COMPREPLY < <(compgen -f -- "$cur")
		[[ -z $cur || $cur == - ]] && COMPREPLY+=(-)
		compopt -o filenames 2>/dev/null
		;;
	snapshot | restore)
		mapfile -t COMPREPLY < <(compgen -f -- "$cur")
		compopt -o filenames 2>/dev/null
		;;
	esac
}

complete -F _cfctl cfctl
