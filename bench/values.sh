#!/bin/bash
# SPDX-License-Identifier: MIT
# What -o values costs a workload: a warm `grep -r zzz` over FILES small
# files through osprof-fs without (A) and with -o values (B), both mounted
# over one lower directory, run interleaved (A B, B A, ...) for ROUNDS
# rounds after one warm-up each; prints every time, the medians and B/A. Both daemons
# are always unmounted. Run as root or a FUSE user; not a test:
#   bench/values.sh BUILDDIR [FILES] [ROUNDS]
set -euo pipefail
build=$(realpath "$1") files=${2:-3000} rounds=${3:-9}
tmp=$(mktemp -d /tmp/osprof-values-bench.XXXXXX)
cleanup() {
  fusermount3 -u "$tmp/a" 2>/dev/null || true
  fusermount3 -u "$tmp/b" 2>/dev/null || true
  rm -rf "$tmp"
}
trap cleanup EXIT
mkdir -p "$tmp/lower" "$tmp/a" "$tmp/b"
for i in $(seq 1 "$files"); do
  d=$tmp/lower/d$((i % 30))
  mkdir -p "$d"
  head -c $((1024 + (i * 7919) % 7168)) /dev/urandom | base64 > "$d/f$i"
done
"$build/fs/osprof-fs" "$tmp/lower" "$tmp/a"
"$build/fs/osprof-fs" "$tmp/lower" "$tmp/b" -o values
run() { # elapsed seconds of one grep
  local t0 t1
  t0=$(date +%s%N)
  grep -r zzzqqqzzz "$1" >/dev/null || true
  t1=$(date +%s%N)
  echo "scale=4; ($t1 - $t0) / 1000000000" | bc
}
run "$tmp/a" >/dev/null; run "$tmp/b" >/dev/null
a=() b=()
for r in $(seq 1 "$rounds"); do
  # A B, then B A: neither always runs right after the other.
  if [ $((r % 2)) -eq 1 ]; then
    a+=("$(run "$tmp/a")"); b+=("$(run "$tmp/b")")
  else
    b+=("$(run "$tmp/b")"); a+=("$(run "$tmp/a")")
  fi
  echo "round $r: off ${a[-1]} s, values ${b[-1]} s"
done
median() { printf '%s\n' "$@" | sort -g | awk '{v[NR]=$1} END {print (NR%2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }
ma=$(median "${a[@]}") mb=$(median "${b[@]}")
echo "files $files, rounds $rounds: median off $ma s, values $mb s, ratio $(echo "scale=4; $mb / $ma" | bc)"
grep -c . "$tmp/b/.osprof/values.json" >/dev/null
