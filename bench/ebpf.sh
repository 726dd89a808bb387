#!/bin/bash
# SPDX-License-Identifier: MIT
# The cost of the eBPF layers, run on demand as root (never a test): every
# figure from osprof-bench, configurations interleaved A B A B ... in one
# run; ratios are of medians.
#
#   bench/ebpf.sh [--tree DIR] [--build DIR] [--max-runs N] [--hw PCT]
#                 [--only events|grep|randread|trace]
#
# Measures, as issue 9 asks:
#   - events: the cost of one traced event, per BPF program: with
#     kernel.bpf_stats_enabled=1 the kernel times every program run
#     (run_time_ns / run_cnt in bpftool prog show), over a grep and random
#     reads through a mount with every layer on;
#   - grep: warm grep -r through cache=never mounts: no eBPF layer (the
#     baseline), the kernel layers (fuse, lower, block, irq: those this
#     osprof-fs has), and all layers (the syscall layer added: it runs on
#     every system call of every process, so its cost is reported apart);
#   - randread: 4 KiB buffered random reads of a 256 MiB file, same mounts;
#   - trace: osprof-trace (when built) around grep -r on the native tree,
#     against grep alone.
# Default tree: build/workload/linux-source-* (scripts/run.sh unpacks it).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
bench_args ebpf.sh 3,22 "$@"
[ "$(id -u)" -eq 0 ] || { echo "ebpf.sh: the eBPF layers need root" >&2; exit 2; }
trace=$build/trace/osprof-trace
bench_need ebpf.sh "$fs" "$ob" "$rr"
bench_start

pattern=osprof_pattern_that_is_not_there
grepcmd() { echo "grep -r $pattern $1; [ \$? -eq 1 ]"; }

# The kernel layers this osprof-fs has: each tried on a scratch mount.
kernel_layers=""
mkdir -p "$work/probe"
for l in fuse lower block irq; do
  if "$fs" "$tree" "$work/probe" -o "layers=$l" 2>/dev/null; then
    kernel_layers=${kernel_layers:+$kernel_layers:}$l
    fusermount3 -u "$work/probe"
  fi
done
[ -n "$kernel_layers" ] || { echo "ebpf.sh: no eBPF layer loads here" >&2; exit 1; }
echo "osprof eBPF benchmark: tree $tree ($(find "$tree" -type f | wc -l) files)"
echo "build $build; kernel layers $kernel_layers; osprof-bench --hw $hw --max-runs $max_runs; $(nproc) CPUs"

mount_fs none "$tree" -o layers=none
mount_fs kern "$tree" -o "layers=$kernel_layers"
mount_fs all "$tree" -o layers=all
mkdir -p "$work/rlower"
dd if=/dev/urandom of="$work/rlower/file" bs=1M count=256 status=none
mount_fs rnone "$work/rlower" -o layers=none
mount_fs rkern "$work/rlower" -o "layers=$kernel_layers"
mount_fs rall "$work/rlower" -o layers=all
rflags="--procs 1 --ops 20000 --seed 7"

if want events; then
  echo
  echo "=== ns per traced event, per program (kernel.bpf_stats_enabled=1)"
  old=$(sysctl -n kernel.bpf_stats_enabled)
  sysctl -q kernel.bpf_stats_enabled=1
  before=$(bpftool prog show -j)
  grep -r "$pattern" "$work/all" >/dev/null || true
  "$rr" "$work/rall/file" $rflags >/dev/null
  after=$(bpftool prog show -j)
  sysctl -q kernel.bpf_stats_enabled="$old"
  # Programs of this run's daemons: obp_*; deltas, summed by name.
  python3 - "$before" "$after" <<'PY'
import json, sys
def runs(text):
    out = {}
    for p in json.loads(text):
        n = p.get("name", "")
        if n.startswith("obp_"):
            t, c = out.get((p["id"], n), (0, 0))
            out[(p["id"], n)] = (p.get("run_time_ns", 0), p.get("run_cnt", 0))
    return out
b, a = runs(sys.argv[1]), runs(sys.argv[2])
tot = {}
for k, (t, c) in a.items():
    t0, c0 = b.get(k, (0, 0))
    name = k[1]
    T, C = tot.get(name, (0, 0))
    tot[name] = (T + t - t0, C + c - c0)
for name, (t, c) in sorted(tot.items()):
    if c:
        print(f"{name:24s} {c:12d} runs {t / c:8.1f} ns per run")
PY
fi
if want grep; then
  compare "warm grep -r, cache=never: no eBPF layer, kernel layers ($kernel_layers), all layers" \
    --config none="$(grepcmd "$work/none")" \
    --config kernel="$(grepcmd "$work/kern")" \
    --config all="$(grepcmd "$work/all")"
fi
if want randread; then
  compare "random reads, 1 process, buffered 4 KiB: no eBPF layer, kernel layers, all layers" \
    --config none="$rr $work/rnone/file $rflags --size 4096" \
    --config kernel="$rr $work/rkern/file $rflags --size 4096" \
    --config all="$rr $work/rall/file $rflags --size 4096"
fi
if want trace && [ -x "$trace" ]; then
  compare "grep -r on the native tree: alone, under osprof-trace" \
    --config native="$(grepcmd "$tree")" \
    --config traced="$trace -o $work/trace.json -- sh -c '$(grepcmd "$tree")'"
fi
