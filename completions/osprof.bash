# SPDX-License-Identifier: MIT
# bash completion for the osprof programs, installed once per program name.
# Options come from each program's own --help (bash-completion's
# _parse_help), so they never go stale; osprof-report completes its
# commands first, osprof-fs the names after -o.

_osprof_fs_o_names()
{
	"$1" --help 2>/dev/null |
		sed -n 's/^ *-o \([a-z_]*\)\(=*\).*/\1\2/p' | sort -u
}

_osprof()
{
	local cur prev words cword
	_init_completion -s || return

	local prog=${words[0]##*/} sub=""
	case $prog in
	osprof-report)
		if ((cword == 1)); then
			COMPREPLY=($(compgen -W 'show plot compare html export merge top --help' -- "$cur"))
			return
		fi
		sub=${words[1]}
		case $prev in
		--format | -F | -f)
			COMPREPLY=($(compgen -W 'text json csv openmetrics png svg pdf' -- "$cur"))
			return ;;
		--method | -m)
			COMPREPLY=($(compgen -W 'emd chi2 jeffrey l1 l2 intersect ops latency' -- "$cur"))
			return ;;
		--layer | -l)
			COMPREPLY=($(compgen -W 'fuse fs syscall lower block irq' -- "$cur"))
			return ;;
		esac
		;;
	osprof-fs)
		if [[ $prev == -o ]]; then
			compopt -o nospace
			COMPREPLY=($(compgen -W '$(_osprof_fs_o_names "$1")' -- "$cur"))
			return
		fi
		;;
	osprof-trace)
		case $prev in
		--layers | -L)
			COMPREPLY=($(compgen -W 'fuse syscall block irq all' -- "$cur"))
			return ;;
		--pid | -p)
			_pids
			return ;;
		--cgroup | -c | --mount | -m)
			_filedir -d
			return ;;
		--)
			_command_offset $cword
			return ;;
		esac
		;;
	esac

	if [[ $cur == -* ]]; then
		if [[ -n $sub ]]; then
			COMPREPLY=($(compgen -W '$(_parse_help "$1" "$sub --help")' -- "$cur"))
		else
			COMPREPLY=($(compgen -W '$(_parse_help "$1")' -- "$cur"))
		fi
		[[ ${COMPREPLY-} == *= ]] && compopt -o nospace
		return
	fi
	_filedir
}
complete -F _osprof osprof-fs osprof-report osprof-bench osprof-randread \
	osprof-trace osprof-exporter
