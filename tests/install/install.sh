#!/bin/bash
# SPDX-License-Identifier: MIT
# `meson install` into a temporary DESTDIR, then each piece checked: the
# programs, libosprof (soname, symlinks, only osp_ symbols), its headers
# and pkg-config file, a program built against it through pkg-config and
# run, the manual pages through man -l with warnings on, the bash
# completions (loaded and asked), the docs and their links, and the
# module's DKMS sources.
# meson.build passes the directories as environment variables.
#   install.sh BUILDDIR SOURCEDIR
set -uo pipefail
build=$1
src=$2
: "${PREFIX:?}" "${BINDIR:?}" "${LIBDIR:?}" "${INCLUDEDIR:?}" "${MANDIR:?}"
: "${DATADIR:?}" "${BASHCOMPDIR:?}" "${VERSION:?}" "${SOVERSION:?}"
: "${CC:=cc}" "${SANITIZE:=none}"
# A sanitized libosprof (b_sanitize) needs its runtime in the program too.
san=()
[ "$SANITIZE" = none ] || san=(-fsanitize="$SANITIZE")
fail=0
bad() {
	echo "FAIL: $*" >&2
	fail=1
}

dest=$(mktemp -d /tmp/osprof-install.XXXXXX) || exit 1
trap 'rm -rf "$dest"' EXIT
if ! meson install -C "$build" --destdir "$dest" --no-rebuild --quiet >"$dest.log" 2>&1; then
	cat "$dest.log" >&2
	rm -f "$dest.log"
	echo "FAIL: meson install --destdir" >&2
	exit 1
fi
rm -f "$dest.log"
d=$dest

progs=(osprof-fs osprof-report osprof-bench osprof-randread osprof-trace osprof-exporter)
for p in "${progs[@]}"; do
	[ -x "$d$BINDIR/$p" ] || bad "program $BINDIR/$p"
done
# Each says its name and version alike ("osprof-fs 0.1.0, FUSE library ..."
# adds libfuse's), and the installed programs run.
for p in "${progs[@]}"; do
	v=$("$d$BINDIR/$p" --version 2>&1) || bad "installed $p --version failed: $v"
	[[ $v == "$p $VERSION" || $v == "$p $VERSION, "* ]] || bad "$p --version says '$v'"
done

# libosprof: libosprof.so -> .so.SOVERSION -> .so.VERSION, soname .so.SOVERSION.
lib=$d$LIBDIR/libosprof.so
[ "$(readlink "$lib")" = "libosprof.so.$SOVERSION" ] || bad "$LIBDIR/libosprof.so is not a link to libosprof.so.$SOVERSION"
[ "$(readlink "$lib.$SOVERSION")" = "libosprof.so.$VERSION" ] || bad "libosprof.so.$SOVERSION is not a link to libosprof.so.$VERSION"
[ -f "$lib.$VERSION" ] && [ ! -L "$lib.$VERSION" ] || bad "libosprof.so.$VERSION is not a file"
soname=$(readelf -d "$lib.$VERSION" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
[ "$soname" = "libosprof.so.$SOVERSION" ] || bad "soname is '$soname', not libosprof.so.$SOVERSION"
# (grep -q would end a pipe early: pipefail would take that for a failure.)
syms=$(readelf --dyn-syms -W "$lib.$VERSION" |
	awk '$7 != "UND" && $7 != "ABS" && ($5 == "GLOBAL" || $5 == "WEAK") { print $8 }')
others=$(grep -v '^osp_' <<<"$syms")
[ -z "$others" ] || bad "libosprof exports symbols outside osp_: $(echo $others)"
# Only what a public header declares (a function or an object).
pub=$(cat "$src"/core/include/osprof/*.h)
for sym in $(sed 's/@.*//' <<<"$syms" | grep '^osp_'); do
	grep -qE "[ *]$sym(\(|\[|;)" <<<"$pub" || bad "libosprof exports $sym, which no public header declares"
done
grep -qx 'osp_hist_record@@OSPROF_0' <<<"$syms" || bad "osp_hist_record is not exported at version OSPROF_0"

# Headers: exactly the public ones.
want=$(cd "$src/core/include/osprof" && ls *.h)
have=$(cd "$d$INCLUDEDIR/osprof" 2>/dev/null && ls)
[ "$want" = "$have" ] || bad "installed headers ($(echo $have)) are not core/include/osprof's ($(echo $want))"
for h in $want; do
	cmp -s "$src/core/include/osprof/$h" "$d$INCLUDEDIR/osprof/$h" || bad "header $h differs"
done

# pkg-config, and a program of someone else's built with it alone.
pc=$d$LIBDIR/pkgconfig/osprof.pc
[ -f "$pc" ] || bad "$LIBDIR/pkgconfig/osprof.pc"
export PKG_CONFIG_PATH=$d$LIBDIR/pkgconfig PKG_CONFIG_SYSROOT_DIR=$d
[ "$(pkg-config --modversion osprof)" = "$VERSION" ] || bad "pkg-config --modversion osprof"
if flags=$(pkg-config --cflags --libs osprof); then
	# shellcheck disable=SC2086
	if "$CC" -std=gnu11 -Wall -Wextra -Werror "${san[@]}" -o "$d/use_libosprof" \
		"$src/tests/install/use_libosprof.c" $flags -Wl,-rpath,"$d$LIBDIR"; then
		grep -q "NEEDED.*\[libosprof.so.$SOVERSION\]" <<<"$(readelf -d "$d/use_libosprof")" ||
			bad "use_libosprof does not need libosprof.so.$SOVERSION"
		# meson test points LD_LIBRARY_PATH at the build tree's library.
		unset LD_LIBRARY_PATH
		grep -q "libosprof.so.$SOVERSION => $d$LIBDIR/" <<<"$(ldd "$d/use_libosprof")" ||
			bad "use_libosprof does not load the installed libosprof: $(ldd "$d/use_libosprof" | grep libosprof)"
		out=$("$d/use_libosprof" "$d/p.json") || bad "use_libosprof failed"
		[ "$out" = "layer fs op read count 5 max 250000" ] || bad "use_libosprof printed '$out'"
		grep -q '"format": *"osprof"' "$d/p.json" || bad "use_libosprof's JSON has no \"format\": \"osprof\""
		"$d$BINDIR/osprof-report" show "$d/p.json" >/dev/null || bad "osprof-report show of use_libosprof's JSON"
	else
		bad "use_libosprof.c does not compile with pkg-config's flags ($flags)"
	fi
else
	bad "pkg-config --cflags --libs osprof"
fi
unset PKG_CONFIG_PATH PKG_CONFIG_SYSROOT_DIR

# Manual pages: one per program and osprof(5), formatted without a warning.
pages=()
for p in "${progs[@]}"; do
	pages+=("$d$MANDIR/man1/$p.1")
done
pages+=("$d$MANDIR/man5/osprof.5")
for page in "${pages[@]}"; do
	if [ ! -f "$page" ]; then
		bad "manual page ${page#"$d"}"
		continue
	fi
	warn=$(LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -l "$page" 2>&1 >/dev/null)
	rc=$?
	[ "$rc" = 0 ] && [ -z "$warn" ] || bad "man -l ${page##*/}: exit $rc: $warn"
	grep -q '^NAME' <<<"$(LC_ALL=C.UTF-8 MANWIDTH=80 man -l "$page" 2>/dev/null)" || bad "man -l ${page##*/} shows no NAME"
done

# Bash completion: a script per program, which completes when loaded.
for p in "${progs[@]}"; do
	f=$d$BASHCOMPDIR/$p
	[ -f "$f" ] || { bad "completion ${f#"$d"}"; continue; }
	bash -n "$f" || bad "completion $p does not parse"
done
if [ -f /usr/share/bash-completion/bash_completion ]; then
	# complete LINE: what bash-completion offers for LINE (cursor at its end).
	complete_line() {
		PATH=$d$BINDIR:$PATH bash -c '
			. /usr/share/bash-completion/bash_completion
			compopt() { :; }  # outside a real completion it would fail
			. "$1"
			COMP_LINE=$2; COMP_POINT=${#2}
			read -ra COMP_WORDS <<<"$2"
			[[ $2 == *" " ]] && COMP_WORDS+=("")
			COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
			_osprof "${COMP_WORDS[0]}" "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
			echo "${COMPREPLY[*]}"' _ "$d$BASHCOMPDIR/${1%% *}" "$1" 2>&1
	}
	got=$(complete_line "osprof-report com")
	[ "$got" = compare ] || bad "completion of 'osprof-report com' gave '$got'"
	got=$(complete_line "osprof-report compare --thr")
	[ "$got" = --threshold ] || bad "completion of 'osprof-report compare --thr' gave '$got'"
	got=$(complete_line "osprof-fs /a /b -o cac")
	[ "$got" = cache= ] || bad "completion of 'osprof-fs /a /b -o cac' gave '$got'"
	got=$(complete_line "osprof-randread --se")
	[ "$got" = "--seconds --seed" ] || bad "completion of 'osprof-randread --se' gave '$got'"
fi

# Docs: the README and every docs/ page (and picture) as in the source,
# laid out as there, and every relative link among them resolving, to a
# heading where it names one (GitHub's anchors: lower case, punctuation
# dropped, spaces as -).
doc=$d$DATADIR/doc/osprof
for f in README.md CONTRIBUTING.md; do
	cmp -s "$src/$f" "$doc/$f" || bad "doc $DATADIR/doc/osprof/$f"
done
for f in "$src"/docs/*; do
	cmp -s "$f" "$doc/docs/${f##*/}" || bad "doc $DATADIR/doc/osprof/docs/${f##*/}"
done
anchors() {
	awk '/^```/ { fence = !fence; next } !fence && /^#+ / { sub(/^#+ +/, ""); print }' "$1" |
		tr '[:upper:]' '[:lower:]' | sed -E 's/[^a-z0-9 _-]//g; s/ /-/g'
}
for md in "$doc/README.md" "$doc"/docs/*.md; do
	[ -f "$md" ] || continue
	while read -r link; do
		case "$link" in http://* | https://* | mailto:*) continue ;; esac
		path=${link%%#*}
		target=$md
		[ -z "$path" ] || target=$(dirname "$md")/$path
		if [ ! -e "$target" ]; then
			bad "doc ${md#"$doc/"}: link $link: no ${target#"$doc/"}"
		elif [ "$path" != "$link" ] && ! grep -qxF -- "${link#*#}" <<<"$(anchors "$target")"; then
			bad "doc ${md#"$doc/"}: link $link: no such heading"
		fi
	done < <(grep -oE '\]\([^) ]+\)|src="[^"]+"' "$md" | sed -E 's/^(\]\(|src=")//; s/[)"]$//')
done

# The module's sources for DKMS: every file kbuild needs, and dkms.conf
# naming this version.
ksrc=$d$PREFIX/src/osprof-$VERSION
grep -qx "PACKAGE_VERSION=\"$VERSION\"" "$ksrc/dkms.conf" 2>/dev/null ||
	bad "${ksrc#"$d"}/dkms.conf with PACKAGE_VERSION=\"$VERSION\""
for f in Kbuild Makefile "$src"/kmod/*.c "$src"/kmod/*.h; do
	f=${f##*/}
	cmp -s "$src/kmod/$f" "$ksrc/$f" || bad "module source ${ksrc#"$d"}/$f"
done
for o in $(sed -n 's/\\$//; /^osprof-y/,/^[^ \t]/p' "$src/kmod/Kbuild" | grep -oE '[a-z_]+\.o'); do
	[ -f "$ksrc/${o%.o}.c" ] || bad "Kbuild's $o has no ${o%.o}.c under ${ksrc#"$d"}"
done
# Built as DKMS builds it (dkms.conf's MAKE), when kernel headers are here.
if kdir=$(make -s --no-print-directory -C "$ksrc" print-kdir 2>/dev/null); then
	make=$(sed -n 's/^MAKE\[0\]="\(.*\)"$/\1/p' "$ksrc/dkms.conf")
	make=${make//'${kernel_source_dir}'/$kdir}
	# shellcheck disable=SC2086
	if ! (cd "$ksrc" && $make) >"$d/kmod.log" 2>&1 || [ ! -f "$ksrc/osprof.ko" ]; then
		tail -20 "$d/kmod.log" >&2
		bad "osprof.ko does not build from ${ksrc#"$d"} with dkms.conf's MAKE ($make)"
	fi
else
	echo "no kernel headers: osprof.ko not built from the installed sources"
fi

[ "$fail" = 0 ] && echo "installed into a DESTDIR: every piece in place and working"
exit "$fail"
