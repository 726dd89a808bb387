# SPDX-License-Identifier: MIT
# bash completion for the osprof programs, installed once per program name.
# Options come from each program's own --help, so they never go stale;
# osprof-report completes its commands (from its --help) first, osprof-fs
# the names after -o (in a comma list, the last). An option that takes one
# of a few words completes those words, for the program or command it
# belongs to: the lists below, which tests/install/check-completion.sh
# holds against what each program accepts (and every other option against
# offering no words at all).
# shellcheck disable=SC2207,SC2016 # bash-completion's idioms: compgen's
# words into COMPREPLY, and -W's text expanded by compgen itself.

# The options "$@ --help" lists: on each line that starts with an option
# (an Examples block's lines aside: they start with options too), its
# --long options, or its short one when it has none.
_osprof_opts()
{
	"$@" --help 2>/dev/null | awk '
		/^Examples:/ { skip = 1; next }
		skip && /^$/ { skip = 0; next }
		skip || !/^ +-/ { next }
		{
			line = $0; n = 0
			while (match(line, /--[a-z][a-z0-9.-]*/)) {
				print substr(line, RSTART, RLENGTH); n++
				line = substr(line, RSTART + RLENGTH)
			}
			if (!n && match($0, /^ +-[A-Za-z0-9]([ ,]|$)/))
				print substr($0, index($0, "-"), 2)
		}' | sort -u
}

# osprof-fs's -o names ("name=" when it takes a value), from its --help.
_osprof_fs_o_names()
{
	"$1" --help 2>/dev/null | awk '/^ +-/' |
		grep -oE -- '-o [a-z_]+=?' | sed 's/^-o //' | sort -u
}

# osprof-report's commands, from its --help.
_osprof_report_cmds()
{
	"$1" --help 2>/dev/null | sed -n '/^Commands:/,/^$/s/^  \([a-z]\+\)  .*/\1/p'
}

# The words an option of PROGRAM [COMMAND] takes, when they are a few;
# nothing for any other option.
_osprof_words()
{
	local layers='fuse fs syscall lower block irq'
	local methods='emd chi2 jeffrey l1 l2 intersect ops latency'
	case $1 in
	osprof-report/show/--format | osprof-report/show/-F) echo 'text json' ;;
	osprof-report/compare/--format | osprof-report/compare/-f) echo 'png svg pdf json' ;;
	osprof-report/plot/--format | osprof-report/plot/-f) echo 'png svg pdf' ;;
	osprof-report/export/--format | osprof-report/export/-F) echo 'json csv openmetrics' ;;
	osprof-report/compare/--method | osprof-report/compare/-m | \
	osprof-report/html/--method | osprof-report/html/-m) echo "$methods" ;;
	osprof-report/plot/--timeline-clock | osprof-report/plot/-t) echo 'elapsed wall' ;;
	# A fraction, or off.
	osprof-report/compare/--count-change | osprof-report/compare/-C | \
	osprof-report/compare/--latency-change | osprof-report/compare/-L) echo 'off' ;;
	osprof-report/show/--layer | osprof-report/show/-l | \
	osprof-report/compare/--layer | osprof-report/compare/-l | \
	osprof-report/plot/--layer | osprof-report/plot/-l | \
	osprof-report/html/--layer | osprof-report/html/-l | \
	osprof-report/export/--layer | osprof-report/export/-l | \
	osprof-report/merge/--layer | osprof-report/merge/-l) echo "$layers" ;;
	osprof-trace//--layers | osprof-trace//-L) echo 'fuse syscall block irq all' ;;
	esac
}

# COMPREPLY: the words of $1 that complete $2, the last element of a
# comma-separated list (the elements before it kept: a comma does not
# break words for readline, as = and : do).
_osprof_reply()
{
	local last=${2##*,}
	COMPREPLY=($(compgen -P "${2:0:$((${#2} - ${#last}))}" -W "$1" -- "$last"))
}

_osprof()
{
	local cur prev words cword
	_init_completion -s || return

	local prog=${words[0]##*/} sub="" w
	case $prog in
	osprof-report)
		if ((cword == 1)); then
			COMPREPLY=($(compgen -W '$(_osprof_report_cmds "$1") --help --version' -- "$cur"))
			return
		fi
		sub=${words[1]}
		w=$(_osprof_words "$prog/$sub/$prev")
		if [[ -n $w ]]; then
			_osprof_reply "$w" "$cur"
			return
		fi
		case $sub/$prev in
		plot/--output | plot/-o | compare/--plot | compare/-p)
			_filedir -d
			return ;;
		esac
		if [[ $sub == top && $cur != -* ]]; then
			_filedir -d
			return
		fi
		;;
	osprof-fs)
		if [[ $prev == -o ]]; then
			compopt -o nospace
			_osprof_reply "$(_osprof_fs_o_names "$1")" "$cur"
			return
		fi
		;;
	osprof-trace)
		w=$(_osprof_words "$prog//$prev")
		if [[ -n $w ]]; then
			_osprof_reply "$w" "$cur"
			return
		fi
		case $prev in
		--pid | -p)
			_pids
			return ;;
		--cgroup | -c | --mount | -m)
			_filedir -d
			return ;;
		--)
			_command_offset "$cword"
			return ;;
		esac
		;;
	esac

	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W '$(_osprof_opts "$1" $sub)' -- "$cur"))
		return
	fi
	_filedir
}
complete -F _osprof osprof-fs osprof-report osprof-bench osprof-randread \
	osprof-trace osprof-exporter
