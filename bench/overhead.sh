#!/bin/bash
# SPDX-License-Identifier: MIT
# The overhead benchmark of osprof-fs, run on demand (never a test): every
# figure comes from osprof-bench, configurations interleaved A B A B ... in
# one run, so drift hits all alike; ratios are of medians, each comparison
# with osprof-bench's 95% confidence interval of the difference of means.
#
#   bench/overhead.sh [--tree DIR] [--build DIR] [--max-runs N] [--hw PCT]
#                     [--only grep|randread|cold|record]
#
# Measures, as issue 2 and 4 ask:
#   - the cost of one recording (osprof-record-cost);
#   - warm grep -r: native vs osprof-fs profiling off vs on, with the default
#     caching (cache=never) and with kernel caching (cache=auto, always,
#     where the polling loop serves);
#   - cold grep -r (caches dropped before every run): native vs off vs on;
#   - random reads (osprof-randread, fixed --ops): 1 and 2 processes, buffered
#     and O_DIRECT, native vs off vs on.
# Default tree: build/workload/linux-source-* (scripts/run.sh unpacks it).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
bench_args overhead.sh 3,19 "$@"
bench_need overhead.sh "$fs" "$ob" "$rr" "$build/bench/osprof-record-cost"
bench_start


echo "osprof overhead benchmark: tree $tree ($(find "$tree" -type f | wc -l) files)"
echo "build $build; osprof-bench --hw $hw --max-runs $max_runs; $(nproc) CPUs"

if want record; then
  echo
  echo "=== one recording"
  "$build/bench/osprof-record-cost" --records 20000000
  "$build/bench/osprof-record-cost" --records 20000000 --res 8 | grep thread
fi

# The fs layer alone: bench/ebpf.sh measures the eBPF layers.
mount_fs on "$tree" -o layers=none
mount_fs off "$tree" -o noprofile,layers=none
# grep -r natively and through the two cache=never mounts, warm and cold.
grep_never=(--config native="$(grepcmd "$tree")"
            --config off="$(grepcmd "$work/off")"
            --config on="$(grepcmd "$work/on")")
if want grep; then
  compare "warm grep -r, cache=never (default): native, profiling off, on" \
    "${grep_never[@]}"
  for mode in auto always; do
    mount_fs "kc_on_$mode" "$tree" -o "cache=$mode,layers=none"
    mount_fs "kc_off_$mode" "$tree" -o "cache=$mode,noprofile,layers=none"
    compare "warm grep -r, cache=$mode (kernel caching, the polling loop): native, profiling off, on" \
      --config native="$(grepcmd "$tree")" \
      --config off="$(grepcmd "$work/kc_off_$mode")" \
      --config on="$(grepcmd "$work/kc_on_$mode")"
  done
fi
if want cold; then
  compare "cold grep -r (caches dropped before each run), cache=never" \
    --cold "${grep_never[@]}"
fi
if want randread; then
  # A 256 MiB file in a lower directory of our own, read at random.
  mkdir -p "$work/rlower"
  dd if=/dev/urandom of="$work/rlower/file" bs=1M count=256 status=none
  mount_fs ron "$work/rlower" -o layers=none
  mount_fs roff "$work/rlower" -o noprofile,layers=none
  for procs in 1 2; do
    for mode in buffered direct; do
      flags="--procs $procs --ops 20000 --seed 7"
      [ "$mode" = buffered ] || flags="$flags --direct --size 4096"
      compare "random reads, $procs process(es), $mode: native, profiling off, on" \
        --config native="$rr $work/rlower/file $flags" \
        --config off="$rr $work/roff/file $flags" \
        --config on="$rr $work/ron/file $flags"
    done
  done
fi
