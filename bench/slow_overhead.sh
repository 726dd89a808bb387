#!/bin/bash
# SPDX-License-Identifier: MIT
# What -o slow (with no request slow) and -o top cost a warm grep -r over
# a few thousand small files through osprof-fs (cache=never: every request
# reaches the daemon), against the same mount without them; and, with
# slow=0 (every request logged: its name, path and the ring's mutex), what
# logging one slow request costs. Four mounts of one tree run at once;
# each round greps each once, in a rotating order, so drift touches all
# alike. Prints every mount's median and the ratios of medians. Run on
# demand (never a test), on a quiet machine:
#
#   bench/slow_overhead.sh [BUILD_DIR] [ROUNDS] [FILES]
set -euo pipefail
build=${1:-build}
rounds=${2:-11}
files=${3:-4000}
fs=$(realpath "$build/fs/osprof-fs")
top=$(mktemp -d /tmp/osprof-slow-bench.XXXXXX)
names=(plain slow100ms top slow0)
opts=("" "-o slow=100ms" "-o top" "-o slow=0")

cleanup() {
	for n in "${names[@]}"; do
		fusermount3 -u "$top/$n" 2>/dev/null || true
	done
	for p in $(jobs -p); do kill "$p" 2>/dev/null || true; done
	wait 2>/dev/null || true
	rm -rf "$top"
}
trap cleanup EXIT

mkdir -p "$top/tree"
for ((i = 0; i < files; i++)); do
	d="$top/tree/d$((i % 50))"
	mkdir -p "$d"
	head -c $((512 + i % 3000)) /dev/urandom | base64 > "$d/f$i"
done
for i in 0 1 2 3; do
	mkdir "$top/${names[$i]}"
	# Foreground daemons, so that the trap can kill them by their pid.
	# shellcheck disable=SC2086
	"$fs" "$top/tree" "$top/${names[$i]}" -f ${opts[$i]} &
done
for n in "${names[@]}"; do
	for _ in $(seq 100); do mountpoint -q "$top/$n" && break; sleep 0.05; done
	grep -r zzzz "$top/$n" >/dev/null || true # warm
done

ms() { local t0 t1; t0=$(date +%s%N); grep -r zzzz "$1" >/dev/null || true; t1=$(date +%s%N); echo $(((t1 - t0) / 1000)); }
declare -A t
for ((r = 0; r < rounds; r++)); do
	for k in 0 1 2 3; do
		n=${names[$(((r + k) % 4))]}
		t[$n]+="$(ms "$top/$n") "
	done
done
median() { tr ' ' '\n' | grep . | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
echo "warm grep -r over $files files, $rounds rounds each, interleaved; $(nproc) CPUs"
declare -A med
for n in "${names[@]}"; do
	med[$n]=$(echo "${t[$n]}" | median)
	printf '  %-10s median %8d us   (runs:%s)\n' "$n" "${med[$n]}" " ${t[$n]}"
done
awk -v a="${med[slow100ms]}" -v b="${med[plain]}" 'BEGIN {printf "  slow=100ms / plain: %.3f\n", a / b}'
awk -v a="${med[top]}" -v b="${med[plain]}" 'BEGIN {printf "  top / plain:        %.3f\n", a / b}'
# Requests per grep: the plain mount's count over its greps (warm + rounds).
reqs=$(python3 -c 'import json,sys; print(sum(o["count"] for o in json.load(open(sys.argv[1]))["ops"]) // (int(sys.argv[2]) + 1))' "$top/plain/.osprof/stats.json" "$rounds")
awk -v a="${med[slow0]}" -v b="${med[plain]}" -v n="$reqs" 'BEGIN {printf "  slow=0 / plain:     %.3f; %d requests a grep: %.2f us more per logged request\n", a / b, n, (a - b) / n}'
