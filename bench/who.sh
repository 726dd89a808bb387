#!/bin/bash
# SPDX-License-Identifier: MIT
# What knowing who and what costs (issue 11), run on demand (never a test):
# warm grep -r through osprof-fs with profiling on (the baseline) against
# the same with -o by=pid, -o slow=100ms (no request that slow: only the
# check), -o top, -o values, and all four together, interleaved A B A B
# ... by osprof-bench in one run; ratios of medians, each comparison with
# osprof-bench's 95% confidence interval of the difference of means. Then
# the per-request recording cost of each (osprof-by-cost, osprof-slow-cost,
# osprof-values-cost).
#
#   bench/who.sh [--tree DIR] [--build DIR] [--max-runs N] [--hw PCT]
#                [--only grep|record]
#
# Default tree: build/workload/linux-source-* (scripts/run.sh unpacks it).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
bench_args who.sh 3,14 "$@"
bench_need who.sh "$fs" "$ob"
bench_start


echo "osprof who-and-what benchmark: tree $tree ($(find "$tree" -type f | wc -l) files)"
echo "build $build; osprof-bench --hw $hw --max-runs $max_runs; $(nproc) CPUs"

if want record; then
  for b in by slow values; do
    if [ -x "$build/bench/osprof-$b-cost" ]; then
      echo
      echo "=== what -o $b adds to a request's recording, ns (osprof-$b-cost)"
      "$build/bench/osprof-$b-cost"
    fi
  done
fi

if want grep; then
  mount_fs on "$tree" -o layers=none
  mount_fs by "$tree" -o layers=none,by=pid
  mount_fs slow "$tree" -o layers=none,slow=100ms
  mount_fs top "$tree" -o layers=none,top
  mount_fs values "$tree" -o layers=none,values
  mount_fs all "$tree" -o layers=none,by=pid,slow=100ms,top,values
  compare "warm grep -r, cache=never: profiling on, and with by=pid, slow=100ms, top, values, all" \
    --config on="$(grepcmd "$work/on")" \
    --config by_pid="$(grepcmd "$work/by")" \
    --config slow="$(grepcmd "$work/slow")" \
    --config top="$(grepcmd "$work/top")" \
    --config values="$(grepcmd "$work/values")" \
    --config all="$(grepcmd "$work/all")"
fi
