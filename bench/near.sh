#!/bin/bash
# SPDX-License-Identifier: MIT
# The near-native benchmark (issue 20), run on demand as root (never a
# test): osprof-fs with its default eBPF layers loaded (profiling on), in
# each caching mode, without and with kernel passthrough and FUSE over
# io_uring, against native, against libfuse's passthrough_ll (compiled at
# run time from Debian's libfuse3-dev, as bench/peer.sh does) at equal
# caching, against libfuse's passthrough_hp built from a libfuse source
# tree (--libfuse), and against another build of osprof-fs (--base: main
# before a change), all interleaved A B A B ... by osprof-bench in one run.
#
#   bench/near.sh [--tree DIR] [--build DIR] [--base DIR] [--libfuse DIR]
#                 [--max-runs N] [--hw PCT] [--only LIST] [--configs LIST]
#                 [--quick]
#
#   --only LIST     workloads, comma-separated: grep, grep2, find, direct,
#                   cached, postmark, trace (default: all)
#   --configs LIST  configurations, comma-separated (native always runs);
#                   besides the default ones, osp-MODE-pt, -ur, base-MODE-*,
#                   then -pin (-o io_uring_pin, after -ur or -ptu), then
#                   -no (-o noopen; not under never, nor with pt or
#                   ptu), then -ro (-o ro), and _LAYERS after any osp or
#                   base one: -o layers=LAYERS (. between layers:
#                   osp-always-ur-no-ro_fuse.block.irq)
#   --base DIR      a build directory of another osprof-fs (and
#                   osprof-trace): rows base-MODE, and base-trace
#   --libfuse DIR   a libfuse source tree (its master has passthrough and
#                   io_uring): its passthrough_hp, built in the scratch
#                   directory, in rows hp-MODE, hp-always-nopt, -ur
#   --max-runs N    runs per configuration (default 7; at least 5 are made,
#                   3 with --quick, unless N is smaller)
#   --quick         /usr/include as the tree, a 256 MiB file, 1 s fio
#                   runs, PostMark 500 files 2,000 transactions, 3 runs
#
# Configurations: native; osp-MODE (MODE never, auto, always), osp-MODE-ptu
# (-o passthrough=require,io_uring=require), osp-always-pt and
# osp-always-ur (each alone), osp-always-no and osp-always-ur-no (-o
# noopen: opens answered by the kernel), osp-always-no-ro (-o noopen,ro:
# no GETATTR for a stale atime; postmark, which writes, skips -ro rows);
# base-MODE; peer-MODE (passthrough_ll -o xattr, its cache=MODE); hp-never
# and hp-always (passthrough_hp with --nocache, and as it comes:
# passthrough on), hp-always-nopt (--nopassthrough), hp-always-ur (-o
# io_uring), and -nopt, -ur, -nopt-ur after either mode. One mount at a
# time: each run's setup (not timed) mounts its configuration's daemon
# and runs the workload through it to warm every cache the mode keeps
# (grep and find twice, grep2 once), its cleanup unmounts (the syscall,
# block and irq programs of a mount run on every CPU's calls and
# interrupts, so two mounts would charge each other).
# Workloads: warm grep -r (its third pass) and find -printf over the
# tree; grep2, the second pass of grep -r after a fresh mount (the first
# pass's reads through the daemon leave each file's atime stale: the
# second asks GETATTR once a file, none on -ro); fio 4 KiB random reads
# (psync, one job, time-based) of one file, O_DIRECT and from the page
# cache (--invalidate=0; the setup reads the file through the mount);
# osprof-postmark (2,000 files, 8,000 transactions) in a lower directory
# of its own; osprof-trace -- grep -r (start-up included) and osprof-trace
# -- true (start-up alone) against a native warm grep. Per configuration:
# the median time (IOPS: fio's own figure per run), the 95% half-width of
# the mean, the ratios of medians to native, to the peer and to base at
# equal caching, Welch's 95% interval of the difference to base, and the
# daemon's CPU (utime + stime of its threads, from /proc) per run and per
# request it counted (the peers, which count none, per request of
# osprof-fs's plain mount at its caching: marked *, and only as good as
# the two send the same requests). With --libfuse, each row's ratio to
# the best hp row and Welch's interval against it, and a line: osprof-fs's
# best row against passthrough_hp's best (ahead, within the 95% interval,
# behind).
# io_uring needs the fuse module's enable_uring: the script sets it for
# its run under tests/fs/with_uring.sh's machine-wide lock, which puts
# the old value back at exit, also when killed.
# Default tree: include, fs, net, sound and kernel of the Linux sources
# (13,762 inodes), unpacked from /usr/src/linux-source-*.tar.xz
# (scripts/deps.sh bench installs it and fio) into the scratch directory;
# /usr/include without it.
set -euo pipefail

# near_fsopts CONFIG: osprof-fs's -o list for an osp- or base- row, its
# suffixes in the order the grammar of --configs fixes
# (osp-always-ur-no-ro_fuse.block: cache=always,io_uring=require,noopen,
# ro,layers=fuse:block).
near_fsopts() {
  local name=${1%%_*} s o
  local -a part
  IFS=- read -r -a part <<< "$name"
  o="cache=${part[1]}"
  for s in "${part[@]:2}"; do
    case $s in
      ptu) o="$o,passthrough=require,io_uring=require" ;;
      pt) o="$o,passthrough=require" ;;
      ur) o="$o,io_uring=require" ;;
      pin) o="$o,io_uring_pin" ;;
      no) o="$o,noopen" ;;
      ro) o="$o,ro" ;;
    esac
  done
  [ "$name" = "$1" ] || { s=${1#*_}; o="$o,layers=${s//./:}"; }
  printf '%s' "$o"
}

# --hook setup|cleanup WORKLOAD: osprof-bench's setup and cleanup of one
# run of $OSPROF_CONFIG, with the run's settings from the environment
# (NEAR_*). Mounts at $NEAR_WORK/m; the daemon's pid in $NEAR_WORK/pid.
if [ "${1:-}" = --hook ]; then
  step=$2 wl=$3 cfg=$OSPROF_CONFIG w=$NEAR_WORK
  m=$w/m
  case $wl in grep|grep2|find|trace) lower=$NEAR_TREE ;; *) lower=$w/lower ;; esac
  target=$m
  case ${cfg%%-*} in osp|base|peer|hp) ;; *) target=$lower ;; esac
  . "$(dirname "$0")/lib.sh"
  if [ "$step" = setup ]; then
    : > "$w/pid"
    ! mountpoint -q "$m" || { echo "near.sh: $m is still mounted" >&2; exit 1; }
    mode=${cfg%%_*} mode=${mode#*-} mode=${mode%%-*}   # osp-always-ptu_fuse.irq: always
    case $cfg in
      osp-*|base-*)
        bin=$NEAR_FS
        [ "${cfg%%-*}" = osp ] || bin=$NEAR_BASE_FS
        "$bin" "$lower" "$m" -o "$(near_fsopts "$cfg")" 2>> "$w/daemon.log" || { echo "near.sh: $cfg did not mount" >&2; exit 1; }
        awk '$1 == "pid" { print $2 }' "$m/.osprof/ctl" > "$w/pid" ;;
      peer-*|hp-*)
        if [ "${cfg%%-*}" = peer ]; then
          o="source=$(bench_fuse_opt "$lower"),xattr"
          [ "$mode" = auto ] || o="$o,cache=$mode"   # auto is passthrough_ll's default
          setsid "$NEAR_PEER" -f -o "$o" "$m" < /dev/null > "$w/peer.log" 2>&1 &
        else
          # passthrough_hp: its default caches for a day (always), and
          # --nocache not at all (never); passthrough unless --nopassthrough.
          # FUSE_INIT_STATUS: libfuse prints what the kernel granted.
          a=(--foreground)
          [ "$mode" = always ] || a+=(--nocache)
          case ${cfg%%_*} in *-nopt|*-nopt-ur) a+=(--nopassthrough) ;; esac
          case ${cfg%%_*} in *-ur) a+=(-o io_uring) ;; esac
          FUSE_INIT_STATUS=1 setsid "$NEAR_HP" "${a[@]}" "$lower" "$m" < /dev/null > "$w/peer.log" 2>&1 &
        fi
        echo $! > "$w/pid"
        for _ in $(seq 200); do
          mountpoint -q "$m" && break
          kill -0 "$(cat "$w/pid")" 2>/dev/null || break
          sleep 0.05
        done
        mountpoint -q "$m" || { cat "$w/peer.log" >> "$w/daemon.log"; echo "near.sh: $cfg did not mount" >&2; exit 1; }
        # A stat waits for INIT's answer, which comes after libfuse's
        # status lines.
        stat "$m" > /dev/null
        grep -v '^FUSE_INIT: ' "$w/peer.log" >> "$w/daemon.log" || true
        # -ur as osprof-fs's io_uring=require: fail rather than measure
        # the device read loop under the ring's name.
        case ${cfg%%_*} in
          hp-*-ur) grep -q '^FUSE_INIT: io_uring=on' "$w/peer.log" ||
                     { echo "near.sh: $cfg: no io_uring ($(grep -o 'io_uring=off[^ ]*' "$w/peer.log" | head -n 1))" >&2; exit 1; } ;;
        esac ;;
    esac
    # Warm, untimed: twice through the mount for grep and find, as a
    # workload run again finds it (a first pass's reads through the daemon
    # leave each file's atime stale: the second asks GETATTR once a file);
    # once for grep2, whose timed run is that second pass.
    case $wl in
      grep) grep -r "$NEAR_PATTERN" "$target" > /dev/null || true
            grep -r "$NEAR_PATTERN" "$target" > /dev/null || true ;;
      grep2) grep -r "$NEAR_PATTERN" "$target" > /dev/null || true ;;
      find) find "$target" -printf '%s\n' > /dev/null
            find "$target" -printf '%s\n' > /dev/null ;;
      cached) cat "$target/file" > /dev/null ;;
    esac
    p=$(cat "$w/pid")
    [ -z "$p" ] || echo "$(bench_cputicks "$p") $(bench_requests "$m")" > "$w/before"
  else
    p=$(cat "$w/pid" 2>/dev/null || true)
    if [ -n "$p" ] && [ -s "$w/before" ]; then
      read -r t0 r0 < "$w/before"
      r1=$(bench_requests "$m")
      echo "$cfg $OSPROF_RUN $(( $(bench_cputicks "$p") - t0 )) $(( ${r1:-0} - ${r0:-0} ))" >> "$w/$wl.cpu"
    fi
    : > "$w/before"
    for _ in 1 2 3; do
      mountpoint -q "$m" || break
      fusermount3 -u "$m" 2>/dev/null || { sleep 0.5; fusermount3 -u "$m" 2>/dev/null; } || fusermount3 -uz "$m"
    done
    # The daemon gone before the next mount: its eBPF programs with it.
    if [ -n "$p" ]; then
      for _ in $(seq 100); do kill -0 "$p" 2>/dev/null || break; sleep 0.05; done
      kill -0 "$p" 2>/dev/null && { echo "near.sh: daemon $p of $cfg still running after unmount; killed" >&2; kill "$p"; }
    fi
    : > "$w/pid"
  fi
  exit 0
fi

. "$(dirname "$0")/lib.sh"
all_args=("$@")
base="" configs="" quick=0 maxr="" libfuse=""
args=()
while [ $# -gt 0 ]; do
  case "$1" in
    --base) base=$(realpath "$2"); shift 2 ;;
    --libfuse) libfuse=$(realpath "$2"); shift 2 ;;
    --configs) configs=$2; shift 2 ;;
    --quick) quick=1; shift ;;
    --max-runs) maxr=$2; args+=("$1" "$2"); shift 2 ;;
    *) args+=("$1"); shift ;;
  esac
done
bench_tree_later=1
bench_args near.sh 3,74 "${args[@]}"
# The configurations, checked before anything runs.
all=(native)
for mode in never auto always; do
  all+=("osp-$mode" "osp-$mode-ptu")
  [ $mode != always ] || all+=(osp-always-pt osp-always-ur osp-always-no osp-always-no-ro osp-always-ur-no)
  [ -z "$base" ] || all+=("base-$mode")
  all+=("peer-$mode")
  # passthrough_hp has no auto: it caches for a day or not at all.
  if [ -n "$libfuse" ] && [ $mode != auto ]; then
    all+=("hp-$mode")
    [ $mode != always ] || all+=(hp-always-nopt hp-always-ur)
  fi
done
cfgs=("${all[@]}")
if [ -n "$configs" ]; then
  cfgs=(native)
  IFS=, read -r -a sel <<< "$configs"
  for c in "${sel[@]}"; do
    [[ $c =~ ^((osp|base)-(never|auto|always)(-pt|-ur|-ptu)?(-pin)?(-no)?(-ro)?(_[a-z.]+)?|peer-(never|auto|always)|hp-(never|always)(-nopt|-ur|-nopt-ur)?|native)$ ]] ||
      { echo "near.sh: no configuration $c (see --help)" >&2; exit 2; }
    # What osprof-fs would refuse (exit 2, one line), refused here before
    # any run: noopen under never, or with passthrough.
    if [ -n "${BASH_REMATCH[5]}" ] && [[ ${BASH_REMATCH[4]} != *u* ]]; then
      echo "near.sh: $c: -pin (-o io_uring_pin) needs -ur or -ptu (-o io_uring)" >&2; exit 2
    fi
    if [ "${BASH_REMATCH[6]}" = -no ]; then
      [ "${BASH_REMATCH[3]}" != never ] ||
        { echo "near.sh: $c: -no (-o noopen) needs cache=auto or always (under never every request is to be seen)" >&2; exit 2; }
      [[ ${BASH_REMATCH[4]} != -pt* ]] ||
        { echo "near.sh: $c: -no (-o noopen) and ${BASH_REMATCH[4]} (-o passthrough) exclude each other: passthrough's backing file is given only in an OPEN reply" >&2; exit 2; }
    fi
    [ "${c%%-*}" != base ] || [ -n "$base" ] || { echo "near.sh: $c needs --base" >&2; exit 2; }
    [ "${c%%-*}" != hp ] || [ -n "$libfuse" ] || { echo "near.sh: $c needs --libfuse" >&2; exit 2; }
    [ "$c" = native ] || cfgs+=("$c")
  done
fi
[ "$(id -u)" -eq 0 ] || { echo "near.sh: the eBPF layers, passthrough and io_uring need root" >&2; exit 2; }
# Again under tests/fs/with_uring.sh: enable_uring Y for this run, under
# its machine-wide lock, and put back at the end, also when killed.
if [ -z "${NEAR_URING:-}" ]; then
  NEAR_URING=1 exec "$top/tests/fs/with_uring.sh" "$0" "${all_args[@]}"
fi
pm=$build/bench/osprof-postmark
trace=$build/trace/osprof-trace
bench_need near.sh "$fs" "$ob" "$pm"
command -v fio > /dev/null || { echo "near.sh: no fio: scripts/deps.sh bench installs it" >&2; exit 2; }
if [ -n "$base" ]; then
  bench_need near.sh "$base/fs/osprof-fs"
fi
[ -n "$maxr" ] || max_runs=$(( quick ? 3 : 7 ))
min_runs=$(( quick ? 3 : 5 ))
min_runs=$(( max_runs < min_runs ? max_runs : min_runs ))
[ "$min_runs" -ge 2 ] || min_runs=2
max_runs=$(( max_runs < min_runs ? min_runs : max_runs ))
if [ $quick = 1 ]; then
  file_mib=256 fio_s=1 pm_files=500 pm_tx=2000
else
  file_mib=1024 fio_s=3 pm_files=2000 pm_tx=8000
fi

bench_start
peer=$work/passthrough_ll
bench_peer near.sh "$peer"
hp=""
if [ -n "$libfuse" ]; then
  hp=$work/libfuse/example/passthrough_hp
  bench_hp near.sh "$libfuse" "$work/libfuse"
fi
# The peer keeps a descriptor per inode it knows: as many as the tree's.
ulimit -n "$(ulimit -Hn)"

if [ -z "$tree" ]; then
  src=$(ls /usr/src/linux-source-*.tar.xz 2>/dev/null | sort -V | tail -n 1 || true)
  if [ $quick = 0 ] && [ -n "$src" ]; then
    d=$(basename "$src" .tar.xz)
    mkdir -p "$work/tree"
    tar -xJf "$src" -C "$work/tree" --strip-components=1 \
      "$d/include" "$d/fs" "$d/net" "$d/sound" "$d/kernel"
    sync
    tree=$work/tree treename="$d/{include,fs,net,sound,kernel}"
  else
    tree=/usr/include treename=/usr/include
  fi
else
  treename=$tree
fi
nino=$(find "$tree" | wc -l)
mkdir -p "$work/lower" "$work/m"
mounts+=("$work/m")   # unmounted at exit (lib.sh) if a run left it

export NEAR_WORK=$work NEAR_TREE=$tree NEAR_FS=$fs NEAR_PEER=$peer NEAR_HP=$hp NEAR_PATTERN=$pattern
export NEAR_BASE_FS=${base:+$base/fs/osprof-fs}
tck=$(getconf CLK_TCK)
echo "osprof near-native benchmark: $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) CPUs, Linux $(uname -r)"
echo "build $build$([ -z "$base" ] || echo "; base $base"); peer passthrough_ll -o xattr (libfuse $(pkg-config --modversion fuse3)), fio $(fio --version)"
[ -z "$hp" ] || echo "hp: passthrough_hp of $libfuse (libfuse $hp_version, meson release build)"
echo "tree $treename ($nino inodes); file ${file_mib} MiB; fio ${fio_s} s a run; postmark $pm_files files $pm_tx transactions"
echo "osprof-bench: $min_runs to $max_runs runs a configuration, --hw $hw; enable_uring $(cat /sys/module/fuse/parameters/enable_uring)"
echo "configurations: ${cfgs[*]}"
t_start=$(date +%s)

# run WORKLOAD KIND TITLE CMD: osprof-bench over the configurations, CMD
# a function printing a configuration's command given its directory and
# name; then the table (analyze, below).
run() {
  local wl=$1 kind=$2 title=$3 fn=$4 c dir
  local cargs=()
  echo
  echo "=== $title"
  for c in "${cfgs[@]}"; do
    # A read-only mount takes no workload that writes.
    if [ "$wl" = postmark ] && [[ ${c%%_*} == *-ro ]]; then
      echo "near.sh: $c skipped for $wl: a read-only mount cannot take its writes"
      continue
    fi
    dir=$work/m
    if [ "$c" = native ]; then
      case $wl in grep|grep2|find) dir=$tree ;; *) dir=$work/lower ;; esac
    fi
    cargs+=(--config "$c=$($fn "$dir" "$c")")
  done
  rm -f "$work/$wl.cpu" "$work/$wl.iops"
  local t0=$SECONDS hooks=()
  # osprof-trace's rows mount nothing.
  [ "$wl" = trace ] || hooks=(--setup "bash $(shq "$0") --hook setup $wl"
                              --cleanup "bash $(shq "$0") --hook cleanup $wl")
  "$ob" -q -k --min-runs "$min_runs" --max-runs "$max_runs" --hw "$hw" "${hooks[@]}" \
    --csv "$work/$wl.csv" "${cargs[@]}" > "$work/$wl.txt" 2> "$work/$wl.err" || true
  grep -E '^stopped|failed' "$work/$wl.txt" || true
  sort "$work/$wl.err" | uniq -c | sed 's/^/  stderr: /' | head -n 8
  analyze "$wl" "$kind" "$title"
  echo "($(( SECONDS - t0 )) s)"
}

grepc() { grepcmd "$1"; }
findc() { printf '%s' "find $(shq "$1") -printf '%s\\n' >/dev/null"; }
# fio: its IOPS (field 8 of --minimal's read part) appended per run.
fioc() {
  local direct=$1 dir=$2 c=$3 wl=direct
  [ "$direct" = 1 ] || wl=cached
  printf 'fio --name=near --filename=%s --rw=randread --bs=4k --ioengine=psync --direct=%s --invalidate=0 --time_based --runtime=%s --randrepeat=1 --minimal > %s && awk -F";" %s %s >> %s' \
    "$(shq "$dir/file")" "$direct" "$fio_s" "$work/$wl.out" \
    "$(shq "{ print \"$c\", ENVIRON[\"OSPROF_RUN\"], \$8 }")" "$work/$wl.out" "$work/$wl.iops"
}
directc() { fioc 1 "$@"; }
cachedc() { fioc 0 "$@"; }
pmc() { printf '%s %s --files %s --tx %s >/dev/null' "$(shq "$pm")" "$(shq "$1")" "$pm_files" "$pm_tx"; }

# analyze WORKLOAD time|iops TITLE: the table of one workload; each row
# also into $work/summary for the last table.
analyze() {
  python3 - "$work" "$1" "$2" "$3" "$tck" <<'PY'
import math, os, statistics as st, sys
work, wl, kind, title, tck = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5])
T = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
     2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
     2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042]
def t975(df):  # Student's t, 97.5th percentile; df rounded down (wider)
    df = int(df)
    return T[df - 1] if 1 <= df <= 30 else (2.0 if df <= 60 else 1.98 if df <= 120 else 1.96)
vals, fails, order = {}, {}, []
for line in open(f"{work}/{wl}.csv").read().splitlines()[1:]:
    f = line.split(",")
    if not f[1].isdigit():
        continue
    if f[0] not in order:
        order.append(f[0])
    if f[2] != "ok":
        fails[f[0]] = fails.get(f[0], 0) + 1
    elif kind == "time":
        vals.setdefault(f[0], []).append(float(f[3]))
if kind == "iops" and os.path.exists(f"{work}/{wl}.iops"):
    for line in open(f"{work}/{wl}.iops"):
        c, run, v = line.split()
        if run != "0":
            vals.setdefault(c, []).append(float(v))
cpu = {}
if os.path.exists(f"{work}/{wl}.cpu"):
    for line in open(f"{work}/{wl}.cpu"):
        c, run, ticks, reqs = line.split()
        t, r, n = cpu.get(c, (0, 0, 0))
        cpu[c] = (t + int(ticks), r + int(reqs), n + 1)
def summ(v):
    n = len(v)
    m = st.mean(v)
    hw = t975(n - 1) * st.stdev(v) / math.sqrt(n) if n > 1 else float("nan")
    return n, st.median(v), m, hw
def welch(a, b):  # 95% interval of mean(a) - mean(b), as % of mean(b)
    if len(a) < 2 or len(b) < 2:
        return None
    va, vb = st.variance(a) / len(a), st.variance(b) / len(b)
    se = math.sqrt(va + vb)
    d = st.mean(a) - st.mean(b)
    if se == 0:
        return (d, d)
    df = (va + vb) ** 2 / (va ** 2 / (len(a) - 1) + vb ** 2 / (len(b) - 1)) if va + vb else 1
    h = t975(df) * se
    return (100 * (d - h) / st.mean(b), 100 * (d + h) / st.mean(b))
S = {c: summ(v) for c, v in vals.items() if v}
unit = "s" if kind == "time" else "IOPS"
def verdict_of(ci):  # of a Welch interval (%): "slower" when worse, whatever the unit
    if not ci:
        return ""
    worse = ci[0] > 0 if kind == "time" else ci[1] < 0
    better = ci[1] < 0 if kind == "time" else ci[0] > 0
    return " slower" if worse else " faster" if better else " same"
def best(prefix):  # the configuration of the best median among PREFIX*
    cs = [c for c in order if c.startswith(prefix) and c in S]
    if not cs:
        return None
    return (min if kind == "time" else max)(cs, key=lambda c: S[c][1])
hpbest = best("hp-")
W = max([16] + [len(c) for c in order])
hphead = f" {'/hp':>6s} {'vs best hp, 95% CI':>18s}" if hpbest else ""
print(f"{'config':{W}s} {'median':>10s} {'hw95%':>6s} {'runs':>4s} {'fail':>4s} {'/native':>8s} {'/peer':>6s} {'/base':>6s} {'vs base, 95% CI':>18s}{hphead} {'req/run':>8s} {'CPU ms/run':>10s} {'CPU us/req':>10s}")
out = open(f"{work}/summary", "a")
for c in order:
    n, med, mean, hw = S.get(c, (0, float("nan"), float("nan"), float("nan")))
    mode = c.split("_")[0].split("-")[1] if "-" in c else ""
    def ratio(o):
        return S[c][1] / S[o][1] if c in S and o in S and o != c else None
    # base: the same configuration of the base build when it ran, else
    # its plain mount at equal caching
    twin = "base-" + c[len("osp-"):]
    bc = twin if twin in S else f"base-{mode}"
    rn, rp, rb = ratio("native"), ratio(f"peer-{mode}") if c.startswith(("osp-", "base-")) else None, \
        ratio(bc) if c.startswith("osp-") else None
    ci = welch(vals.get(c, []), vals.get(bc, [])) if c.startswith("osp-") else None
    verdict = verdict_of(ci)
    # Requests: the daemon's own count; a peer's (passthrough_ll's or
    # passthrough_hp's) charged per request of osprof-fs's plain mount
    # at its caching.
    peerlike = c.startswith(("peer-", "hp-"))
    rq = cpu.get(c, (0, 0, 0))
    rc = cpu.get(f"osp-{mode}", (0, 0, 0)) if peerlike else rq
    rpr = rc[1] / rc[2] if rc[2] else 0
    # (none where it counted too few to divide by: a cached run's)
    us = (f"{rq[0] / tck / rq[2] / rpr * 1e6:.1f}" + ("*" if peerlike else "")) if rq[2] and rpr >= 50 else "-"
    ms = f"{rq[0] / tck / rq[2] * 1e3:.0f}" if rq[2] else "-"
    fmt = (lambda x: "-" if x is None else f"{x:.3f}")
    medtxt = f"{med:.4f}" if kind == "time" else f"{med:.0f}"
    hwtxt = f"{100 * hw / mean:.1f}" if n > 1 else "-"
    citxt = f"{ci[0]:+.0f}%..{ci[1]:+.0f}%{verdict}" if ci else ""
    hpcols = ""
    if hpbest:
        hci = welch(vals.get(c, []), vals[hpbest]) if c != hpbest else None
        hpcols = f" {fmt(ratio(hpbest)):>6s} {(f'{hci[0]:+.0f}%..{hci[1]:+.0f}%' + verdict_of(hci)) if hci else '':>18s}"
    print(f"{c:{W}s} {medtxt:>10s} {hwtxt:>6s} {n:4d} {fails.get(c, 0):4d} {fmt(rn):>8s} {fmt(rp):>6s} {fmt(rb):>6s} {citxt:>18s}{hpcols} {(f'{rpr:.0f}' + ('*' if peerlike else '') if rpr else '-'):>8s} {ms:>10s} {us:>10s}")
    out.write(f"{wl} {kind} {c} {medtxt} {hwtxt} {fmt(rn)} {fmt(rp)} {citxt.replace(' ', '_') or '-'}\n")
print(f"({unit}; /native, /peer, /base{', /hp' if hpbest else ''}: ratios of medians, {'time: lower' if kind == 'time' else 'IOPS: higher'} is better; hw95%: the 95% half-width of the mean, in % of it)")
# The row against libfuse's best: osprof-fs's best configuration against
# passthrough_hp's best, by median; Welch's interval says whether the
# difference of means is more than the noise.
ospbest = best("osp-")
if hpbest and ospbest:
    ci = welch(vals[ospbest], vals[hpbest])
    v = verdict_of(ci).strip()
    word = {"faster": "ahead", "same": "within the 95% interval", "slower": "behind"}.get(v, "not compared")
    print(f"best osprof-fs {ospbest} {S[ospbest][1]:.{4 if kind == 'time' else 0}f} against best passthrough_hp {hpbest} "
          f"{S[hpbest][1]:.{4 if kind == 'time' else 0}f}: x{S[ospbest][1] / S[hpbest][1]:.3f}"
          + (f", 95% CI of the difference {ci[0]:+.1f}%..{ci[1]:+.1f}%: {word}" if ci else ""))
PY
}

want grep && run grep time "warm grep -r (third pass)" grepc
want grep2 && run grep2 time "grep -r, second pass after a fresh mount" grepc
want find && run find time "warm find -printf %s" findc
if want direct || want cached; then
  dd if=/dev/urandom of="$work/lower/file" bs=1M count="$file_mib" status=none
  sync
  want direct && run direct iops "4 KiB random reads, O_DIRECT (fio IOPS, ${fio_s} s a run)" directc
  want cached && run cached iops "4 KiB random reads from the page cache (fio --invalidate=0 IOPS, ${fio_s} s a run)" cachedc
fi
want postmark && run postmark time "PostMark-like (osprof-postmark, $pm_files files, $pm_tx transactions)" pmc
if want trace && [ -x "$trace" ]; then
  save=("${cfgs[@]}")
  cfgs=(native trace trace-true)
  [ -z "$base" ] || [ ! -x "$base/trace/osprof-trace" ] || cfgs+=(base-trace)
  tracec() {
    case $2 in
      native) grepcmd "$tree" ;;
      trace-true) printf '%s -o %s -- true 2>/dev/null' "$(shq "$trace")" "$work/trace.json" ;;
      trace) printf '%s -o %s -- grep -r %s %s 2>/dev/null; [ $? -eq 1 ]' "$(shq "$trace")" "$work/trace.json" "$(shq "$pattern")" "$(shq "$tree")" ;;
      base-trace) printf '%s -o %s -- grep -r %s %s 2>/dev/null; [ $? -eq 1 ]' "$(shq "$base/trace/osprof-trace")" "$work/trace.json" "$(shq "$pattern")" "$(shq "$tree")" ;;
    esac
  }
  run trace time "osprof-trace -- grep -r on the native tree (start-up included; trace-true: osprof-trace -- true)" tracec
  cfgs=("${save[@]}")
fi

echo
echo "=== summary: ratio to native (time: x native, lower is better; IOPS: x native, higher is better), median of native"
python3 - "$work/summary" <<'PY'
import sys
rows, cols = {}, []
for line in open(sys.argv[1]):
    wl, kind, c, med, hw, rn, rp, ci = line.split()
    rows.setdefault(wl, {})[c] = (med, rn)
    if c not in cols:
        cols.append(c)
head = ["workload"] + [c.replace("osp-", "") for c in cols]
W = [max(9, len(h)) for h in head]  # a column as wide as its name
print(" ".join(f"{x:>{w}s}" for x, w in zip(head, W)))
for wl, r in rows.items():
    cells = [r["native"][0] if "native" in r else "-"]
    cells += [r[c][1] if c in r else "" for c in cols[1:]]
    print(" ".join(f"{x:>{w}s}" for x, w in zip([wl] + cells, W)))
PY
echo "(took $(( $(date +%s) - t_start )) s)"
