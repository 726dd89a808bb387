#!/bin/bash
# SPDX-License-Identifier: MIT
# The peer benchmark (issue 12), run on demand (never a test): osprof-fs
# against libfuse's own passthrough_ll example, compiled here at run time
# from Debian's libfuse3-dev (nothing of libfuse is in this repository),
# both mounted side by side on the same tree, at equal caching:
#   osprof-fs -o cache=never  vs passthrough_ll -o cache=never
#   osprof-fs -o cache=auto   vs passthrough_ll (default, auto)
#   osprof-fs -o cache=always vs passthrough_ll -o cache=always
# osprof-fs runs with -o layers=none (the fs layer alone; bench/ebpf.sh
# measures the eBPF layers). Every figure comes from osprof-bench, the
# configurations interleaved A B A B ... in one run; per workload the
# medians, the ratio to native and, for osprof-fs, to the peer at equal
# caching, and each daemon's CPU seconds (utime + stime from /proc) per run
# and per request: osprof-fs counts its requests; the peer, which counts
# none, is charged per request of osprof-fs at the same caching (marked *:
# the kernel sends both about the same requests).
# The peer runs with -o xattr, so both pass extended attributes through, as
# passthrough_hp always does: without it passthrough_ll answers ENOSYS to the
# first getxattr, the kernel stops asking, and the peer is spared the
# GETXATTR of security.capability that the kernel sends before every
# buffered write (file_remove_privs: FUSE clears SB_NOSEC, and libfuse 3.14
# cannot ask for FUSE_HANDLE_KILLPRIV_V2, which would set it again).
#
#   bench/peer.sh [--tree DIR] [--build DIR] [--max-runs N] [--hw PCT]
#                 [--only grep|cold|find|randread|postmark] [--libfuse DIR]
#
# --libfuse DIR: a libfuse source tree (its master has passthrough and
# io_uring); its passthrough_hp, built in the scratch directory, mounted
# beside them too: hp-never (--nocache), hp-always (as it comes: cached
# for a day, passthrough on), hp-always-nopt (--nopassthrough) and
# hp-always-ur (-o io_uring, as root, under tests/fs/with_uring.sh),
# with a /hp column: the ratio to the best hp row's median.
#
# Workloads: warm and cold (caches dropped before each run) grep -r, find
# -printf, osprof-randread buffered and O_DIRECT on a 256 MiB file, and
# osprof-postmark (create/append/read/delete small files) in a scratch
# lower directory. passthrough_ll keeps an O_PATH descriptor open per inode
# the kernel knows: on a tree with more inodes than its open-file limit it
# fails with EMFILE, which is printed, not hidden.
# Default tree: build/workload/linux-source-* (scripts/run.sh unpacks it).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
all_args=("$@")
libfuse=""
args=()
while [ $# -gt 0 ]; do
  case "$1" in
    --libfuse) libfuse=$(realpath "$2"); shift 2 ;;
    *) args+=("$1"); shift ;;
  esac
done
bench_args peer.sh 3,33 "${args[@]}"
# hp-always-ur's io_uring needs the fuse module's enable_uring: Y for this
# run, under tests/fs/with_uring.sh's machine-wide lock, put back at exit.
if [ -n "$libfuse" ] && [ -z "${PEER_URING:-}" ]; then
  [ "$(id -u)" -eq 0 ] || { echo "peer.sh: --libfuse's io_uring row needs root (enable_uring)" >&2; exit 2; }
  PEER_URING=1 exec "$top/tests/fs/with_uring.sh" "$0" "${all_args[@]}"
fi
pm=$build/bench/osprof-postmark
bench_need peer.sh "$fs" "$ob" "$rr" "$pm"

bench_start
pids=()
peer_cleanup() {
  local m p i
  for m in "${mounts[@]}"; do
    fusermount3 -u "$m" 2>/dev/null || fusermount3 -uz "$m" 2>/dev/null || true
  done
  for p in "${pids[@]}"; do
    for i in 1 2 3 4 5 6 7 8 9 10; do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
    kill "$p" 2>/dev/null || true
    wait "$p" 2>/dev/null || true
  done
  # What the daemons said (passthrough_ll of libfuse 3.14 warns of its
  # unset max_threads), once per line and daemon.
  for m in "${mounts[@]}"; do
    [ -s "$m.log" ] && grep -v '^FUSE_INIT: ' "$m.log" | sort | uniq -c | sed "s|^|stderr of ${m##*/}: |" | head -n 5
  done
  # Never through a mount still there: it would delete the lower tree.
  rm -rf --one-file-system "$work"
}
trap peer_cleanup EXIT

peer=$work/passthrough_ll
bench_peer peer.sh "$peer"
hps=()
if [ -n "$libfuse" ]; then
  hp=$work/libfuse/example/passthrough_hp
  bench_hp peer.sh "$libfuse" "$work/libfuse"
  hps=(hp-never hp-always hp-always-nopt hp-always-ur)
fi

# start NAME PID_VAR CMD...: run a daemon in the foreground (-f, in CMD) in
# the background, wait for its mount at $work/NAME; pid[NAME] is its pid.
declare -A pid
start() {
  local name=$1
  shift
  mkdir -p "$work/$name"
  "$@" 2> "$work/$name.log" &
  pid[$name]=$!
  pids+=("$!")
  mounts+=("$work/$name")
  for _ in $(seq 100); do
    mountpoint -q "$work/$name" && return 0
    kill -0 "${pid[$name]}" 2>/dev/null || break
    sleep 0.05
  done
  echo "peer.sh: $name did not mount: $*" >&2
  cat "$work/$name.log" >&2
  exit 1
}
# mount_pair PREFIX LOWER: osprof-fs and passthrough_ll on LOWER in every
# caching mode, at $work/PREFIX{osp,peer}-MODE.
mount_pair() {
  local p=$1 lower=$2 mode
  for mode in never auto always; do
    start "${p}osp-$mode" "$fs" "$lower" "$work/${p}osp-$mode" -f -o "cache=$mode,layers=none"
    if [ $mode = auto ]; then   # passthrough_ll's default
      start "${p}peer-$mode" "$peer" -f -o "source=$(bench_fuse_opt "$lower"),xattr" "$work/${p}peer-$mode"
    else
      start "${p}peer-$mode" "$peer" -f -o "source=$(bench_fuse_opt "$lower"),xattr,cache=$mode" "$work/${p}peer-$mode"
    fi
  done
  local name a
  for name in "${hps[@]}"; do
    a=(--foreground)
    case $name in hp-never*) a+=(--nocache) ;; esac
    case $name in *-nopt) a+=(--nopassthrough) ;; *-ur) a+=(-o io_uring) ;; esac
    FUSE_INIT_STATUS=1 start "$p$name" "$hp" "${a[@]}" "$lower" "$work/$p$name"
    # A stat waits for INIT's answer, after libfuse's status lines.
    stat "$work/$p$name" > /dev/null
    case $name in
      *-ur) grep -q '^FUSE_INIT: io_uring=on' "$work/$p$name.log" ||
              { echo "peer.sh: $name: no io_uring ($(grep -o 'io_uring=off[^ ]*' "$work/$p$name.log" | head -n 1))" >&2; exit 1; } ;;
    esac
  done
}
# configs PREFIX CMD: the --config options of native (CMD with DIR for the
# directory, on the lower one) and the six mounts; CMD is a function name.
configs() {
  local p=$1 fn=$2 lower=$3 mode side
  cfg=(--config native="$($fn "$lower")")
  for mode in never auto always; do
    for side in osp peer; do
      cfg+=(--config "$side-$mode=$($fn "$work/$p$side-$mode")")
    done
  done
  local name
  for name in "${hps[@]}"; do
    cfg+=(--config "$name=$($fn "$work/$p$name")")
  done
}
tck=$(getconf CLK_TCK)

# pcompare TITLE PREFIX OPS OSPROF-BENCH-ARGS...: run osprof-bench (failed
# runs recorded, not fatal), print its elapsed lines and comparisons, then
# per configuration the median, IOPS when OPS > 0 (reads per run), the
# runs ok and failed, the ratios to native and to the peer at equal caching
# and the daemon's CPU seconds per run (the warm-up run counted in).
pcompare() {
  local title=$1 p=$2 ops=$3 name
  shift 3
  echo
  echo "=== $title"
  declare -A before reqs0
  for name in osp-never peer-never osp-auto peer-auto osp-always peer-always "${hps[@]}"; do
    before[$name]=$(bench_cputicks "${pid[$p$name]}")
  done
  for name in osp-never osp-auto osp-always; do
    reqs0[$name]=$(bench_requests "$work/$p$name")
  done
  rm -f "$work/last.csv"
  # One warm-up run of each configuration here, not osprof-bench's
  # --warmup: a failed warm-up (EMFILE) would stop it, -k or not.
  local a
  for a in "$@"; do
    case "$a" in *=*) sh -c "${a#*=}" > /dev/null 2>&1 || true ;; esac
  done
  "$ob" -q -k --min-runs "$(( max_runs < 5 ? max_runs : 5 ))" --max-runs "$max_runs" --hw "$hw" \
    --csv "$work/last.csv" "$@" > "$work/last.txt" 2> "$work/last.err" || true
  grep -E '^stopped|:elapsed |failed' "$work/last.txt" || true
  grep -E 'vs .*, elapsed:' "$work/last.txt" || true
  if grep -q 'Too many open files' "$work/last.err"; then
    grep 'Too many open files' "$work/last.err" | grep -oE "$work/[a-z]+-[a-z]+" |
      sed "s|^$work/.||" | sort | uniq -c |
      sed 's/^ *\([0-9]*\) \(.*\)/EMFILE: \2: \1 "Too many open files" errors on stderr/'
  fi
  grep -v 'Too many open files' "$work/last.err" | sed 's/^/  stderr: /' | sort | uniq -c | head -n 8 || true
  [ -s "$work/last.csv" ] || { echo "osprof-bench wrote no CSV"; return 0; }
  : > "$work/cpu"
  for name in osp-never peer-never osp-auto peer-auto osp-always peer-always "${hps[@]}"; do
    local nreq=-
    case $name in osp-*) nreq=$(( $(bench_requests "$work/$p$name") - ${reqs0[$name]} )) ;; esac
    echo "$name $(( $(bench_cputicks "${pid[$p$name]}") - ${before[$name]} )) $nreq" >> "$work/cpu"
  done
  awk -F, -v ops="$ops" -v tck="$tck" -v warm=1 '
    FNR == NR { cpu[$1] = $2; req[$1] = $3; next }   # the CPU ticks file (space-separated)
    $2 ~ /^[0-9]+$/ { runs[$1]++; if ($3 != "ok") bad[$1]++ }
    $2 == "median" && $3 == "" && $4 != "" { med[$1] = $4 }
    $2 == "median" { if (!($1 in seen)) { seen[$1] = 1; order[++n] = $1 } }
    END {
      # /hp (with --libfuse): the ratio to the best passthrough_hp row.
      hp = ""
      for (i = 1; i <= n; i++)
        if (order[i] ~ /^hp-/ && med[order[i]] != "" && (hp == "" || med[order[i]] < med[hp])) hp = order[i]
      printf "%-14s %10s %10s %5s %5s %9s %9s%s %10s %8s %10s\n", "config", "median s", "IOPS", "runs", "fail", "/native", "/peer", (hp == "" ? "" : sprintf(" %9s", "/hp")), "CPU s/run", "req/run", "CPU us/req"
      for (i = 1; i <= n; i++) {
        c = order[i]; m = med[c]
        ms = (m == "") ? "-" : sprintf("%.4f", m)
        io = (ops > 0 && m != "") ? sprintf("%.0f", ops / m) : "-"
        rn = (med["native"] != "" && m != "") ? sprintf("%.3f", m / med["native"]) : "-"
        pe = c; sub(/^osp-/, "peer-", pe)
        rp = (c ~ /^osp-/ && med[pe] != "" && m != "") ? sprintf("%.3f", m / med[pe]) : ""
        cp = (c in cpu) ? sprintf("%.4f", cpu[c] / tck / (runs[c] + warm)) : "-"
        # Requests: osprof-fs counts its own; the peer is charged per
        # request of osprof-fs at its caching mode (marked *).
        os = c; sub(/^(peer|hp)-/, "osp-", os); sub(/-(nopt|ur)$/, "", os)
        rr = (req[os] != "" && req[os] != "-") ? req[os] / (runs[os] + warm) : 0
        rq = (c ~ /^osp-/ && rr > 0) ? sprintf("%.0f", rr) : "-"
        up = (c in cpu && rr > 0) ? sprintf("%.1f%s", cpu[c] / tck / (runs[c] + warm) / rr * 1e6, c ~ /^(peer|hp)-/ ? "*" : "") : "-"
        rh = (hp == "") ? "" : sprintf(" %9s", (c != hp && m != "") ? sprintf("%.3f", m / med[hp]) : "-")
        printf "%-14s %10s %10s %5d %5d %9s %9s%s %10s %8s %10s\n", c, ms, io, runs[c], bad[c] + 0, rn, rp, rh, cp, rq, up
      }
    }' FS=' ' "$work/cpu" FS=, "$work/last.csv"
}

nfiles=$(find "$tree" | wc -l)
echo "osprof peer benchmark: osprof-fs vs libfuse's passthrough_ll -o xattr ($(pkg-config --modversion fuse3)), tree $tree ($nfiles inodes)"
echo "build $build; osprof-bench --hw $hw --max-runs $max_runs; $(nproc) CPUs"
lim=$(ulimit -n)
hlim=$(ulimit -Hn)
if [ "$nfiles" -ge "$lim" ]; then
  echo "WARNING: the tree has $nfiles inodes, over the open-file limit ($lim, hard $hlim):"
  echo "  passthrough_ll keeps one O_PATH descriptor per inode the kernel knows and will fail with"
  echo "  EMFILE on this tree; its failed runs are counted in the 'fail' column (osprof-fs keeps at"
  echo "  most fd_cache descriptors and knows inodes by file handle)"
else
  echo "open-file limit $lim (hard $hlim) > $nfiles inodes: passthrough_ll (one descriptor per inode) fits"
fi

findcmd() { printf '%s' "find $(shq "$1") -printf '%s\\n' >/dev/null"; }
if want grep || want cold || want find; then
  mount_pair t "$tree"
  if want grep; then
    configs t grepcmd "$tree"
    pcompare "warm grep -r" t 0 "${cfg[@]}"
  fi
  if want cold; then
    configs t grepcmd "$tree"
    pcompare "cold grep -r (caches dropped before each run)" t 0 --cold "${cfg[@]}"
  fi
  if want find; then
    configs t findcmd "$tree"
    pcompare "warm find -printf %s" t 0 "${cfg[@]}"
  fi
fi

if want randread || want postmark; then
  # A lower directory of our own: a 256 MiB file, and room for postmark.
  mkdir -p "$work/lower"
  want randread && dd if=/dev/urandom of="$work/lower/file" bs=1M count=256 status=none
  mount_pair s "$work/lower"
  if want randread; then
    ops=20000
    for mode in buffered direct; do
      flags="--procs 1 --ops $ops --seed 7"
      [ "$mode" = buffered ] || flags="$flags --direct --size 4096"
      rrcmd() { printf '%s %s %s >/dev/null' "$(shq "$rr")" "$(shq "$1/file")" "$flags"; }
      configs s rrcmd "$work/lower"
      pcompare "random reads (osprof-randread, 1 process, $ops reads), $mode" s "$ops" "${cfg[@]}"
    done
  fi
  if want postmark; then
    pmcmd() { printf '%s %s --files 500 --tx 2000 >/dev/null' "$(shq "$pm")" "$(shq "$1")"; }
    configs s pmcmd "$work/lower"
    pcompare "postmark-like (osprof-postmark: 500 files, 2000 transactions; IOPS: none, see its own output)" s 0 "${cfg[@]}"
  fi
fi
