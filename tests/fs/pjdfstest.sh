#!/bin/bash
# SPDX-License-Identifier: MIT
# Run the POSIX conformance suite pjdfstest through osprof-fs, once per
# caching mode: mount a fresh lower directory on the local disk with
# allow_other, run prove -rv over pjdfstest's tests from a directory inside
# the mount (as pjdfstest asks), then unmount and reap the daemon whatever
# happened. pjdfstest is not part of osprof: pass a built checkout (its
# pjdfstest binary and tests/) and the osprof-fs binary. Mode "native" runs
# the suite on the lower file system itself, for a baseline. Needs root.
#
#   tests/fs/pjdfstest.sh PJDFSTEST_DIR OSPROF_FS [MODE...]
#
# MODE is never, auto, always or native (default: never auto always).
# Prints one line per mode, "mode tests failed files"; the prove -v logs
# go to $PJD_LOGS (default: a new temporary directory, named on stderr).
set -uo pipefail
[ $# -ge 2 ] || { sed -n 's/^#   //p' "$0" >&2; exit 2; }
pjd=$(realpath "$1") fs=$(realpath "$2"); shift 2
modes=("$@"); [ ${#modes[@]} -gt 0 ] || modes=(never auto always)
[ -x "$pjd/pjdfstest" ] && [ -d "$pjd/tests" ] || { echo "no built pjdfstest in $pjd" >&2; exit 2; }
[ "$(id -u)" -eq 0 ] || { echo "pjdfstest needs root" >&2; exit 2; }
logs=${PJD_LOGS:-$(mktemp -d /tmp/osprof-pjd-logs.XXXXXX)}
mkdir -p "$logs"; echo "logs in $logs" >&2
lower="" mnt="" pid=""

cleanup() {   # unmount, reap the daemon, remove the directories
  if [ -n "$pid" ]; then
    for _ in 1 2 3 4 5 6 7 8 9 10; do
      mountpoint -q "$mnt" || break
      fusermount3 -u "$mnt" 2>/dev/null || sleep 1
    done
    mountpoint -q "$mnt" && fusermount3 -uz "$mnt"
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -0 "$pid" 2>/dev/null && kill -9 "$pid"
    wait "$pid" 2>/dev/null
  fi
  [ -n "$mnt" ] && rmdir "$mnt" 2>/dev/null
  [ -n "$lower" ] && rm -rf "$lower"
  lower="" mnt="" pid=""
}
trap cleanup EXIT
trap 'exit 130' INT TERM

status=0
for mode in "${modes[@]}"; do
  lower=$(mktemp -d /var/tmp/osprof-pjd-lower.XXXXXX)
  mnt=$(mktemp -d /tmp/osprof-pjd-mnt.XXXXXX)
  chmod 755 "$lower"
  top=$lower
  if [ "$mode" != native ]; then
    "$fs" "$lower" "$mnt" -f -o allow_other -o "cache=$mode" 2>"$logs/$mode.daemon" &
    pid=$!
    for _ in $(seq 100); do mountpoint -q "$mnt" && break; sleep 0.1; done
    mountpoint -q "$mnt" || { echo "$mode: mount failed" >&2; status=1; cleanup; continue; }
    top=$mnt
  fi
  start=$(date +%s)
  mkdir "$top/pjd" && (cd "$top/pjd" && prove -rv "$pjd/tests") >"$logs/$mode.log" 2>&1
  secs=$(( $(date +%s) - start ))
  tests=$(sed -n 's/^Files=[0-9]*, Tests=\([0-9]*\),.*/\1/p' "$logs/$mode.log")
  failed=$(sed -n 's/.*Failed: \([0-9]*\))$/\1/p' "$logs/$mode.log" | awk '{s+=$1} END {print s+0}')
  # Files with failed tests, a non-zero exit or a parse error (not those
  # listed only for passing TODO tests).
  bad=$(awk '/\(Wstat: /{f=$1; w=$3; n=$0; sub(/.*Failed: /, "", n)
        if (n + 0 > 0 || w != "0") print f; next}
        /Parse errors:/ {print f}' "$logs/$mode.log" | sort -u)
  files=$(grep -c . <<<"$bad")
  echo "$mode ${tests:-0} $failed $files"
  echo "$mode: ${secs}s; failing: $(echo $bad)" >&2
  [ "$failed" -eq 0 ] && [ "$files" -eq 0 ] && [ -n "$tests" ] || status=1
  cleanup
done
exit $status
