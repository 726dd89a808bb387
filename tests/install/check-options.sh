#!/bin/bash
# SPDX-License-Identifier: MIT
# Keeps the manual pages and the docs pages from going stale against
# --help. Every option a program's --help lists (and each osprof-report
# command's own --help) must be in the program's manual page (man), or in
# the options table of its docs page (docs): on the lines of --help that
# start with an option, the short option leading the line, every --long
# one and, for osprof-fs, every "-o name". A docs table is the one under a
# line "<!-- options: PROGRAM [COMMAND] -->": every option its first
# column names must be in that --help too.
#   check-options.sh man MANDIR PROGRAM...
#   check-options.sh docs DOCSDIR PROGRAM...
set -uo pipefail
mode=$1
dir=$2
shift 2
fail=0
bad() {
	echo "$*" >&2
	fail=1
}

# The page as plain text: rendered by man, unjustified and unhyphenated,
# else its source with roff's \- as - and font escapes dropped.
page_text() {
	if command -v man >/dev/null; then
		LC_ALL=C MANWIDTH=10000 man --nj --nh -l "$1" 2>/dev/null
	else
		sed -e 's/\\-/-/g' -e 's/\\f[BIRP]//g' -e 's/\\e/\\/g' "$1"
	fi
}

# has TEXT WORD: WORD appears in TEXT, not as part of a longer name.
has() {
	grep -qE -- "(^|[^A-Za-z0-9_-])$2([^A-Za-z0-9_-]|\$)" <<<"$1"
}

# options HELP: the options HELP lists, one a line. Only its option lines
# count (its examples and prose name other programs' options too); "-o
# name" only where -o takes names (osprof-fs's mount options), not a file.
options() {
	local lines
	lines=$(printf '%s\n' "$1" | grep -E -- '^ +-')
	printf '%s\n' "$lines" | grep -oE -- '--[a-z][a-z0-9.-]*'
	printf '%s\n' "$lines" | sed -nE 's/^ +(-[A-Za-z0-9])([ ,].*)?$/\1/p'
	if grep -qE -- '^ +-o [a-z_]+' <<<"$lines"; then
		printf '%s\n' "$lines" | grep -oE -- '-o [a-z_]+'
	fi
}

# named COLUMN: the options a docs table's first column names.
named() {
	printf '%s\n' "$1" | grep -oE -- '--[a-z][a-z0-9.-]*|-o [a-z_]+'
	printf '%s\n' "$1" | grep -oE -- '(^|[^A-Za-z0-9-])-[A-Za-z0-9]([^A-Za-z0-9_-]|$)' |
		grep -oE -- '-[A-Za-z0-9]'
}

# table FILE TAG: the first column of the table under <!-- options: TAG -->,
# without its header.
table() {
	awk -v tag="<!-- options: $2 -->" '
		$0 == tag { on = 1; next }
		on && /^\|/ { split($0, c, "|"); print c[2]; next }
		on { exit }' "$1" | tail -n +3
}

# missing OPTS TEXT MESSAGE: MESSAGE, its %s the option, for each of OPTS
# (one a line) that TEXT lacks.
missing() {
	local text=$2 msg=$3 opt
	while read -r opt; do
		if [ -n "$opt" ] && ! has "$text" "$opt"; then
			bad "${msg//%s/$opt}"
		fi
	done < <(printf '%s\n' "$1" | sort -u)
}

# one NAME WHAT HELP [COMMAND]: HELP against NAME's page.
one() {
	local name=$1 what=$2 help=$3 cmd=${4:-} page tag col
	if [ "$mode" = man ]; then
		page=$dir/$name.1
		missing "$(options "$help")" "$(page_text "$page")" "${page##*/}: %s ($what) is not documented"
		return
	fi
	page=$(grep -lE -- "^<!-- options: $name( [a-z]+)? -->\$" "$dir"/*.md 2>/dev/null | head -n 1)
	if [ -z "$page" ]; then
		bad "$name: no page in $dir has <!-- options: $name -->"
		return
	fi
	tag=$name${cmd:+ $cmd}
	col=$(table "$page" "$tag")
	if [ -z "$col" ]; then
		# A program of commands: its own --help against the whole page.
		if [ "$name" = osprof-report ] && [ -z "$cmd" ]; then
			missing "$(options "$help")" "$(cat "$page")" "${page##*/}: %s ($what) is not documented"
		else
			bad "${page##*/}: no options table under <!-- options: $tag -->"
		fi
		return
	fi
	missing "$(options "$help")" "$col" "${page##*/} (table $tag): %s ($what) is not documented"
	missing "$(named "$col")" "$help" "${page##*/} (table $tag): %s is not in $what"
}

case "$mode" in
man | docs) ;;
*)
	echo "usage: check-options.sh man|docs DIR PROGRAM..." >&2
	exit 2
	;;
esac
for prog in "$@"; do
	name=${prog##*/}
	if [ "$mode" = man ] && [ ! -f "$dir/$name.1" ]; then
		bad "$name: no manual page $dir/$name.1"
		continue
	fi
	if ! help=$("$prog" --help 2>&1); then
		bad "$name --help failed"
		continue
	fi
	one "$name" "$name --help" "$help"
	if [ "$name" = osprof-report ]; then
		cmds=$(printf '%s\n' "$help" | sed -n '/^Commands:/,/^$/s/^  \([a-z]\+\)  .*/\1/p')
		[ -n "$cmds" ] || bad "osprof-report --help lists no commands"
		for cmd in $cmds; do
			if [ "$mode" = man ] && ! grep -q "^\.SS $cmd\b" "$dir/$name.1"; then
				bad "$name.1: command $cmd has no section"
			fi
			if ! sub=$("$prog" "$cmd" --help 2>&1); then
				bad "$name $cmd --help failed"
				continue
			fi
			one "$name" "$name $cmd --help" "$sub" "$cmd"
		done
	fi
done
if [ "$fail" = 0 ]; then
	case "$mode" in
	man) echo "every option of $# programs' --help is in its manual page" ;;
	docs) echo "every option of $# programs' --help is in its docs page's table, and the other way round" ;;
	esac
fi
exit "$fail"
