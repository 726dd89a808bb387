#!/bin/bash
# SPDX-License-Identifier: MIT
# The main job: install, build, mount a profiled view of DIR (default: the
# Linux sources from Debian's linux-source package, OSprof's own
# workload), run grep -r and random reads through it, print
# .osprof/stats, where the time goes and the layered view of the eBPF
# layers around it (as root on a kernel with BTF), render a report,
# unmount.
#
#   scripts/run.sh [DIR] [--out OUTDIR]
#
# Nothing is written into DIR. The report (text, charts, HTML) and the
# JSON profile go to OUTDIR (default build/demo).
set -euo pipefail
cd "$(dirname "$0")/.."
top=$PWD
dir=""
out="$top/build/demo"
while [ $# -gt 0 ]; do
  case "$1" in
    --out) out=$(realpath -m "$2"); shift 2 ;;
    -h|--help) sed -n '3,13p' "$0"; exit 0 ;;
    *) [ -z "$dir" ] || { echo "run.sh: one directory at most" >&2; exit 2; }
       dir=$(realpath "$1"); shift ;;
  esac
done
if [ -z "$dir" ]; then
  scripts/deps.sh demo
else
  scripts/deps.sh build
  [ -d "$dir" ] || { echo "run.sh: $dir is not a directory" >&2; exit 2; }
fi
[ -d build ] || meson setup build -Dtests=false >/dev/null
ninja -C build >/dev/null
if [ -z "$dir" ]; then
  tarball=$(ls /usr/src/linux-source-*.tar.xz | sort -V | tail -n 1)
  name=$(basename "$tarball" .tar.xz)
  dir="$top/build/workload/$name"
  if [ ! -d "$dir" ]; then
    echo "osprof: unpacking $tarball (once)" >&2
    mkdir -p "$top/build/workload"
    tar xf "$tarball" -C "$top/build/workload"
  fi
fi
mkdir -p "$out"
rm -f "$out"/profile*.json   # this run's layers only
mnt=$(mktemp -d /tmp/osprof-mnt.XXXXXX)
daemon_pid=""
cleanup() {
  fusermount3 -u "$mnt" 2>/dev/null || true
  [ -z "$daemon_pid" ] || wait "$daemon_pid" 2>/dev/null || true
  rmdir "$mnt" 2>/dev/null || true
}
trap cleanup EXIT
build/fs/osprof-fs "$dir" "$mnt" -f --dump "$out/profile.json" &
daemon_pid=$!
for _ in $(seq 100); do
  grep -q " $mnt fuse.osprof-fs " /proc/mounts && break
  sleep 0.1
done
grep -q " $mnt fuse.osprof-fs " /proc/mounts || { echo "run.sh: osprof-fs did not mount" >&2; exit 1; }

echo "== grep -r through $mnt (two passes: the first may read the disk)" >&2
for pass in 1 2; do
  start=$(date +%s%N)
  grep -r osprof_string_that_is_not_there "$mnt" >/dev/null || true
  echo "   pass $pass: $(( ($(date +%s%N) - start) / 1000000 )) ms" >&2
done
big=$(find "$dir" -type f -size +1M -printf '%s %P\n' 2>/dev/null | sort -n | tail -n 1 | cut -d' ' -f2-)
if [ -n "$big" ]; then
  echo "== random reads of $big: buffered, then O_DIRECT" >&2
  build/bench/osprof-randread "$mnt/$big" --procs 2 --size 512 --seconds 3
  build/bench/osprof-randread "$mnt/$big" --procs 2 --size 4096 --direct --seconds 3 ||
    echo "   (O_DIRECT is not supported by the lower file system here)" >&2
else
  echo "== no file over 1 MiB in $dir: random reads skipped" >&2
fi
echo "== $mnt/.osprof/stats" >&2
cat "$mnt/.osprof/stats"
if [ -e "$mnt/.osprof/fuse" ]; then
  echo "== the layers around it, from eBPF: where the time goes, what FUSE adds per operation" >&2
  build/report/osprof-report show "$mnt" --where --layered --top 6
else
  echo "== (no eBPF layers: $(grep '^ebpf' "$mnt/.osprof/ctl" | tr '\n' ' '))" >&2
fi
fusermount3 -u "$mnt"
wait "$daemon_pid" || true
daemon_pid=""
echo "== report" >&2
# --dump wrote the fs layer to profile.json and each eBPF layer beside it.
set_=$(ls "$out"/profile*.json | paste -sd, -)
build/report/osprof-report show "$set_" --top 5 >/dev/null
build/report/osprof-report plot "$set_" -o "$out/charts" >/dev/null
build/report/osprof-report html "$set_" -o "$out/report.html"
echo "profile: $out/profile.json (and one file per eBPF layer beside it)" >&2
echo "charts:  $out/charts/" >&2
echo "report:  $out/report.html" >&2
