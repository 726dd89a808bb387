# SPDX-License-Identifier: MIT
# What bench/*.sh share (sourced, not run): a scratch directory removed at
# exit with every mount made in it unmounted, mounts of osprof-fs, and
# compare(), which runs osprof-bench on interleaved configurations.
# Expects $fs (osprof-fs), $ob (osprof-bench), $max_runs and $hw set.

work=$(mktemp -d /tmp/osprof-bench.XXXXXX)
mounts=()
cleanup() {
  for m in "${mounts[@]}"; do fusermount3 -u "$m" 2>/dev/null || true; done
  sleep 0.2
  rm -rf "$work"
}
trap cleanup EXIT
# mount NAME LOWER [osprof-fs options...]: a mount at $work/NAME
mount_fs() {
  local name=$1 lower=$2
  shift 2
  mkdir -p "$work/$name"
  "$fs" "$lower" "$work/$name" "$@"
  mounts+=("$work/$name")
}

# compare TITLE ARGS...: run osprof-bench on the configurations given as
# --config options (the first is the baseline), print its table's elapsed
# lines, its comparison lines, and the ratio of each configuration's median
# elapsed time (osprof-bench's CSV summary row) to the baseline's.
compare() {
  local title=$1
  shift
  echo
  echo "=== $title"
  "$ob" -q --min-runs 5 --max-runs "$max_runs" --hw "$hw" --warmup 1 \
    --csv "$work/last.csv" "$@" > "$work/last.txt" || true
  grep -E '^stopped|:elapsed ' "$work/last.txt" || true
  grep -A0 -E 'vs .*, elapsed:' "$work/last.txt" || true
  # Summary rows: NAME,median,,ELAPSED,... (ELAPSED empty without a good run).
  awk -F, '$2 == "median" && $3 == "" && $4 != "" { name[++n] = $1; m[n] = $4 }
    END {
      for (i = 1; i <= n; i++)
        printf "median %-12s %10.4f s   ratio to %s: %.3f\n", name[i], m[i], name[1], m[i] / m[1]
    }' "$work/last.csv"
}

