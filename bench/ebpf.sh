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
#   - grep: warm grep -r through cache=never mounts: no layer beside fs
#     (the baseline); fuse, block and irq; the kernel layers (those and
#     lower, which the daemon times itself); all layers (the syscall
#     layer added: it runs programs on every system call of every process,
#     sys_enter/exit, so it is reported apart);
#   - randread: 4 KiB buffered random reads of a 256 MiB file, same mounts;
#   - syscall: what any system call on the machine pays while the
#     programs on sys_enter/exit are loaded (layer syscall, or lower from
#     eBPF), for a process they do not trace: 4 KiB page-cache preads on
#     the native file, alone and beside a mount with -o lower_source=ebpf;
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

# One mount at a time, made before each run and unmounted after it (not
# timed): the kernel-wide programs (system calls, block, irq) of one
# configuration's mount must not run during another's.
mkdir -p "$work/m" "$work/rlower"
dd if=/dev/urandom of="$work/rlower/file" bs=1M count=256 status=none
nolower=$(echo "$kernel_layers" | tr ':' '\n' | grep -vx lower | paste -sd: -)
# setup LOWER: mount LOWER at $work/m with the layers of $OSPROF_CONFIG.
setup() {
  echo "case \$OSPROF_CONFIG in none) l=none ;; kernel) l=$kernel_layers ;;" \
       "nolower) l=$nolower ;; *) l=all ;; esac;" \
       "$fs $1 $work/m -o layers=\$l"
}
cleanup="fusermount3 -u $work/m"
rflags="--procs 1 --ops 20000 --seed 7"

if want events; then
  echo
  echo "=== ns per traced event, per program (kernel.bpf_stats_enabled=1), all layers"
  "$fs" "$work/rlower" "$work/m" -o layers=all
  mkdir -p "$work/m2"
  "$fs" "$tree" "$work/m2" -o layers=fuse
  old=$(sysctl -n kernel.bpf_stats_enabled)
  sysctl -q kernel.bpf_stats_enabled=1
  before=$(bpftool prog show -j)
  grep -r "$pattern" "$work/m2" >/dev/null || true
  "$rr" "$work/m/file" $rflags >/dev/null
  after=$(bpftool prog show -j)
  sysctl -q kernel.bpf_stats_enabled="$old"
  fusermount3 -u "$work/m2"
  fusermount3 -u "$work/m"
  # Programs named obp_*: the deltas of run time and count, by name.
  python3 - "$before" "$after" <<'PY'
import json, sys
def runs(text):
    return {(p["id"], p["name"]): (p.get("run_time_ns", 0), p.get("run_cnt", 0))
            for p in json.loads(text) if p.get("name", "").startswith("obp_")}
b, a = runs(sys.argv[1]), runs(sys.argv[2])
tot = {}
for k, (t, c) in a.items():
    t0, c0 = b.get(k, (0, 0))
    T, C = tot.get(k[1], (0, 0))
    tot[k[1]] = (T + t - t0, C + c - c0)
for name, (t, c) in sorted(tot.items()):
    if c:
        print(f"{name:24s} {c:12d} runs {t / c:8.1f} ns per run")
PY
fi
if want grep; then
  compare "warm grep -r, cache=never: no eBPF layer, $nolower, $kernel_layers, all layers" \
    --setup "$(setup "$tree")" --cleanup "$cleanup" \
    --config none="$(grepcmd "$work/m")" \
    --config nolower="$(grepcmd "$work/m")" \
    --config kernel="$(grepcmd "$work/m")" \
    --config all="$(grepcmd "$work/m")"
fi
if want randread; then
  compare "random reads, 1 process, buffered 4 KiB: no eBPF layer, $nolower, $kernel_layers, all layers" \
    --setup "$(setup "$work/rlower")" --cleanup "$cleanup" \
    --config none="$rr $work/m/file $rflags --size 4096" \
    --config nolower="$rr $work/m/file $rflags --size 4096" \
    --config kernel="$rr $work/m/file $rflags --size 4096" \
    --config all="$rr $work/m/file $rflags --size 4096"
fi
if want syscall; then
  sflags="--procs 1 --ops 400000 --seed 7 --size 4096"
  compare "4 KiB page-cache preads of the native file, not traced: alone, beside a mount with eBPF's lower" \
    --setup "[ \$OSPROF_CONFIG = native ] || $fs $work/rlower $work/m -o layers=lower,lower_source=ebpf" \
    --cleanup "fusermount3 -u $work/m 2>/dev/null; true" \
    --config native="$rr $work/rlower/file $sflags" \
    --config beside_lower="$rr $work/rlower/file $sflags"
fi
if want trace && [ -x "$trace" ]; then
  # The workload runs in a cgroup of its own, traced there by an
  # osprof-trace started before the run (its loading is not timed).
  cg=$(findmnt -t cgroup2 -n -o TARGET | head -n 1)
  if [ -z "$cg" ]; then
    echo "ebpf.sh: no cgroup v2 mount: osprof-trace not measured" >&2
  else
    mkdir -p "$cg/osprof-bench-$$"
    cgdir="$cg/osprof-bench-$$"
    tsetup="if [ \$OSPROF_CONFIG = traced ]; then $trace --cgroup $cgdir -o $work/trace.json >/dev/null 2>$work/trace.err & echo \$! > $work/trace.pid;
            until grep -q tracing $work/trace.err; do sleep 0.01; done; fi"
    tcleanup="if [ -s $work/trace.pid ]; then kill \$(cat $work/trace.pid); while kill -0 \$(cat $work/trace.pid) 2>/dev/null; do sleep 0.01; done; : > $work/trace.pid; fi"
    incg="echo \$\$ > $cgdir/cgroup.procs; $(grepcmd "$tree")"
    compare "grep -r on the native tree: alone, under osprof-trace --cgroup" \
      --setup "$tsetup" --cleanup "$tcleanup" \
      --config native="$incg" --config traced="$incg"
    rmdir "$cgdir" 2>/dev/null || true
  fi
fi
