#!/bin/bash
# SPDX-License-Identifier: MIT
# Keeps the bash completion (completions/osprof.bash) true to the
# programs. It is run as bash runs it, with bash-completion's functions,
# in an empty directory (so no file name ever answers), for every program
# and every osprof-report command:
#  - for "-" it offers the options --help lists: on its option lines (an
#    Examples block aside) every --long one, and each short one on a line
#    with no long one; nothing else. osprof-report's commands are those
#    of its --help, osprof-fs's names after -o those of its "-o name" lines;
#  - after an option that takes one of a few words, exactly the words the
#    program accepts among those the completion offers and those --help
#    says beside the option (its line and what follows, the lines naming
#    it, a "Layers:" heading for --layers): each one is tried on the
#    program ("OPTION WORD --help" must succeed; osprof-report's --layer,
#    which any word passes, on a run holding every layer);
#  - after every other option, no words (process ids after a PID); a
#    flag is never tried with a word (osprof-bench would run it).
#   check-completion.sh COMPLETION PROGRAM...
set -uo pipefail
comp_file=$1
shift
progs=()
for p in "$@"; do
	progs+=("$(realpath "$p")") # the checks run in a directory of their own
done
fail=0
bad() {
	echo "$*" >&2
	fail=1
}
# flat LINES: the lines on one, blank-separated.
flat() {
	# shellcheck disable=SC2086
	echo $1
}

bashcomp=${BASH_COMPLETION:-/usr/share/bash-completion/bash_completion}
if [ ! -f "$bashcomp" ]; then
	echo "no bash-completion ($bashcomp): nothing to check"
	exit 77
fi
# bash-completion reads unset variables: no set -u while it runs.
set +u
# shellcheck disable=SC1090
source "$bashcomp"
# shellcheck disable=SC1090
source "$comp_file"
# Outside a completion compopt can only fail; what it sets is not checked.
# shellcheck disable=SC2317
compopt() { :; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/empty" "$tmp/run"
# A run with every layer, for osprof-report's --layer.
for layer in fs fuse syscall lower block irq; do
	cat >"$tmp/run/$layer.json" <<EOF
{"format": "osprof", "version": 1, "layer": "$layer", "resolution": 1, "unit": "ns",
 "clock": {"source": "tsc", "cycles_per_ns": 1.0},
 "ops": [{"name": "read", "count": 1, "sum": 100, "min": 100, "max": 100, "buckets": [[7, 1]]}]}
EOF
done
cd "$tmp/empty" || exit 1

# comp WORD...: what the completion offers for WORD... (the last being
# completed), one a line, sorted.
comp() {
	COMP_WORDS=("$@")
	COMP_CWORD=$(($# - 1))
	COMP_LINE="$*"
	COMP_POINT=${#COMP_LINE}
	COMPREPLY=()
	_osprof "$1" "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
	printf '%s\n' "${COMPREPLY[@]}" | sed '/^$/d' | sort -u
}

# option_lines HELP: the lines of HELP that start with an option, an
# Examples block's aside.
option_lines() {
	printf '%s\n' "$1" | sed '/^Examples:/,/^$/d' | grep -E -- '^ +-'
}

# listed HELP: the options completion must offer, one a line, sorted.
listed() {
	local lines
	lines=$(option_lines "$1")
	{
		grep -oE -- '--[a-z][a-z0-9.-]*' <<<"$lines"
		grep -vE -- '--[a-z]' <<<"$lines" | sed -nE 's/^ +(-[A-Za-z0-9])([ ,].*)?$/\1/p'
	} | sort -u
}

# said HELP OPTION: the words --help says beside OPTION (lower-case words
# of letters, digits and _ that start with a letter), one a line.
said() {
	local help=$1 opt=$2 heading
	heading="$(tr '[:lower:]' '[:upper:]' <<<"${opt:2:1}")${opt:3}:"
	printf '%s\n' "$help" | awk -v opt="$opt" -v heading="$heading" '
		index($0, heading) == 1 { print; next }
		on && (/^ +-/ || /^$/) { on = 0 }
		on { print; next }
		/^ +-/ && index($0, opt) { on = 1 }
		index($0, opt) { print }' |
		grep -oE '[A-Za-z0-9_]+' | grep -E '^[a-z][a-z0-9_]*$' | sort -u
}

# takes PROG CMD OPT WORD: whether PROG [CMD] takes WORD as OPT's value.
takes() {
	local prog=$1 cmd=$2 opt=$3 word=$4
	if [ "${prog##*/}" = osprof-report ] && [ "$opt" = --layer ]; then
		"$prog" show --layer "$word" "$tmp/run" >/dev/null 2>&1
	else
		# shellcheck disable=SC2086
		"$prog" $cmd "$opt" "$word" --help >/dev/null 2>&1
	fi
}

# The words after each option of PROG [CMD] (HELP its --help).
check_values() {
	local prog=$1 cmd=$2 help=$3 name=${1##*/} what line opt short o w offered cand want
	what="$name${cmd:+ $cmd}"
	while read -r line; do
		opt=$(grep -oE -- '--[a-z][a-z0-9.-]*' <<<"$line" | head -n 1)
		short=$(sed -nE 's/^ *(-[A-Za-z0-9])[ ,].*/\1/p' <<<"$line")
		[ -n "$opt" ] || continue
		# osprof-fs's options are libfuse's to parse (--help first).
		[ "$name" = osprof-fs ] && continue
		# What the program takes, the same for each spelling (-F, --format).
		want=""
		cand=$( (said "$help" "$opt"
			for o in "$opt" $short; do
				# shellcheck disable=SC2086
				comp "$prog" $cmd "$o" ""
			done) | grep -E '^[a-z]' | sort -u)
		# A flag (no argument after it on its line) takes no word, and is
		# never tried: the word would be a command to run (osprof-bench).
		if grep -qE -- "$opt [^ ]" <<<"$line" &&
			! takes "$prog" "$cmd" "$opt" zz-not-a-word; then
			want=$(while read -r w; do
				[ -n "$w" ] && takes "$prog" "$cmd" "$opt" "$w" && echo "$w"
			done <<<"$cand")
		fi
		for o in "$opt" $short; do
			# shellcheck disable=SC2086
			offered=$(comp "$prog" $cmd "$o" "")
			if [ "$offered" != "$want" ] &&
				grep -qE -- "$opt PID( |$)" <<<"$line" && ! grep -qvE '^[0-9]+$' <<<"$offered"; then
				continue # process ids
			fi
			[ "$offered" = "$want" ] ||
				bad "$what $o: completion offers [$(flat "$offered")], the program takes [$(flat "$want")]"
		done
	done < <(option_lines "$help")
}

# check PROG [CMD]: the options offered, and the words after each.
check() {
	local prog=$1 cmd=${2:-} help what offered want
	what="${prog##*/}${cmd:+ $cmd}"
	# shellcheck disable=SC2086
	if ! help=$("$prog" $cmd --help 2>&1); then
		bad "$what --help failed"
		return
	fi
	# shellcheck disable=SC2086
	offered=$(comp "$prog" $cmd -)
	want=$(listed "$help")
	[ "$offered" = "$want" ] ||
		bad "$what: completion offers [$(flat "$offered")] for -, --help lists [$(flat "$want")]"
	check_values "$prog" "$cmd" "$help"
}

for prog in "${progs[@]}"; do
	name=${prog##*/}
	case $name in
	osprof-report)
		help=$("$prog" --help 2>&1)
		cmds=$(printf '%s\n' "$help" | sed -n '/^Commands:/,/^$/s/^  \([a-z]\+\)  .*/\1/p' | sort)
		[ -n "$cmds" ] || bad "$name --help lists no commands"
		offered=$(comp "$prog" "" | grep -v '^-')
		[ "$offered" = "$cmds" ] ||
			bad "$name: completion offers commands [$(flat "$offered")], --help lists [$(flat "$cmds")]"
		for o in $(comp "$prog" -); do
			"$prog" "$o" >/dev/null 2>&1 || bad "$name: completion offers $o, which it refuses"
		done
		for cmd in $cmds; do
			check "$prog" "$cmd"
		done
		;;
	osprof-fs)
		check "$prog"
		help=$("$prog" --help 2>&1)
		want=$(option_lines "$help" | grep -oE -- '-o [a-z_]+=?' | sed 's/^-o //' | sort -u)
		offered=$(comp "$prog" -o "")
		[ "$offered" = "$want" ] ||
			bad "$name: completion offers [$(flat "$offered")] after -o, --help lists [$(flat "$want")]"
		;;
	*)
		check "$prog"
		;;
	esac
done
if [ "$fail" = 0 ]; then
	echo "the completion of $# programs offers what each --help lists and each takes"
fi
exit "$fail"
