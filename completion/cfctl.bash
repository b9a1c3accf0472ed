# SPDX-License-Identifier: GPL-2.0
# bash completion for cfctl(8): commands, each command's options, entry
# kinds for add, del and test, protocols for match, network interfaces for
# attach and detach, files for load, replace, snapshot and restore. Needs bash only, not the
# bash-completion package. Install as
# /usr/share/bash-completion/completions/cfctl, or source it.

_cfctl()
{
	local cur=${COMP_WORDS[COMP_CWORD]}
	local prev=${COMP_WORDS[COMP_CWORD-1]}
	local verbs="add allow del test match load replace save snapshot restore
		crowdsec list info clear stats status attach detach"
	local verb="" opts i nwords=0

	# The command is the first word after cfctl's own options.
	for ((i = 1; i < COMP_CWORD; i++)); do
		case ${COMP_WORDS[i]} in
		-*) ;;
		*) verb=${COMP_WORDS[i]}; break ;;
		esac
	done
	# Words of the command's argument before the one being completed.
	for ((i++; i < COMP_CWORD; i++)); do
		[[ ${COMP_WORDS[i]} == -* ]] || ((nwords++))
	done

	if [[ -z $verb ]]; then
		if [[ $cur == -* ]]; then
			mapfile -t COMPREPLY < <(compgen -W \
				"-h --help -v --verbose -j --json -V --version" -- "$cur")
		else
			mapfile -t COMPREPLY < <(compgen -W "$verbs" -- "$cur")
		fi
		return
	fi

	case $verb in
	add | allow | del) opts="-n --dry-run" ;;
	load | replace)	opts="-n --dry-run --skip-bad --normalize" ;;
	snapshot | restore) opts="-n --dry-run" ;;
	list | info | status) opts="-j --json" ;;
	stats)		opts="-j --json --watch -i --interval --count" ;;
	clear)		opts="-n --dry-run" ;;
	attach)		opts="-n --dry-run -m --mode --match-dst" ;;
	detach)		opts="-n --dry-run" ;;
	*)		opts="" ;;
	esac
	opts="-h --help -v --verbose $opts"

	if [[ $verb == attach && ($prev == -m || $prev == --mode) ]]; then
		mapfile -t COMPREPLY < <(compgen -W "native generic tc" -- "$cur")
		return
	fi
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
