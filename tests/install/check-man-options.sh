#!/bin/bash
# SPDX-License-Identifier: MIT
# Keeps the manual pages from going stale: every long option (--name) that
# a program's --help lists, every "-o name" of osprof-fs and every command
# of osprof-report (with its own --help) must be in the program's page.
#   check-man-options.sh MANDIR PROGRAM...
set -uo pipefail
mandir=$1
shift
fail=0

# The page's source as plain text: roff's \- is -, font escapes dropped.
page_text() {
	sed -e 's/\\-/-/g' -e 's/\\f[BIRP]//g' -e 's/\\e/\\/g' "$1"
}

# has TEXT WORD: WORD appears in TEXT, not as the prefix of a longer name.
has() {
	grep -qE -- "(^|[^a-z0-9_-])$2([^a-z0-9_-]|\$)" <<<"$1"
}

# check PAGE WHAT HELP: every --option and line-leading "-o name" in HELP
# appears in PAGE.
check() {
	local page=$1 what=$2 help=$3 text opt
	text=$(page_text "$page")
	for opt in $(printf '%s\n' "$help" | grep -oE -- '--[a-z][a-z0-9-]*' | sort -u); do
		if ! has "$text" "$opt"; then
			echo "${page##*/}: $opt ($what) is not documented" >&2
			fail=1
		fi
	done
	for opt in $(printf '%s\n' "$help" | sed -nE 's/^ *-o ([a-z_]+).*/\1/p' | sort -u); do
		if ! has "$text" "-o $opt"; then
			echo "${page##*/}: -o $opt ($what) is not documented" >&2
			fail=1
		fi
	done
}

for prog in "$@"; do
	name=${prog##*/}
	page=$mandir/$name.1
	if [ ! -f "$page" ]; then
		echo "$name: no manual page $page" >&2
		fail=1
		continue
	fi
	if ! help=$("$prog" --help 2>&1); then
		echo "$name --help failed" >&2
		fail=1
		continue
	fi
	check "$page" "$name --help" "$help"
	if [ "$name" = osprof-report ]; then
		cmds=$(printf '%s\n' "$help" | sed -n '/^Commands:/,/^$/s/^  \([a-z]\+\)  .*/\1/p')
		[ -n "$cmds" ] || { echo "osprof-report --help lists no commands" >&2; fail=1; }
		for cmd in $cmds; do
			if ! grep -q "^\.SS $cmd\b" "$page"; then
				echo "${page##*/}: command $cmd has no section" >&2
				fail=1
			fi
			if ! sub=$("$prog" "$cmd" --help 2>&1); then
				echo "$name $cmd --help failed" >&2
				fail=1
				continue
			fi
			check "$page" "$name $cmd --help" "$sub"
		done
	fi
done
[ "$fail" = 0 ] && echo "every option of $# programs is in its manual page"
exit "$fail"
