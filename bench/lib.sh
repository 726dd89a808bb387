# SPDX-License-Identifier: MIT
# What bench/*.sh share (sourced, not run): their options, the default
# tree, a scratch directory removed at exit with every mount made in it
# unmounted, mounts of osprof-fs, and compare(), which runs osprof-bench on
# interleaved configurations.

# bench_args NAME HELP_LINES ARGS...: set top, build, tree, max_runs, hw and
# only from --tree, --build, --max-runs, --hw, --only; --help prints lines
# HELP_LINES (sed's "3,19") of the calling script. Then the tree: as
# given, else build/workload/linux-source-* (scripts/run.sh unpacks it),
# or left empty for the caller to choose when it set bench_tree_later.
bench_args() {
  local name=$1 help=$2
  shift 2
  top=$(cd "$(dirname "$0")/.." && pwd)
  build="$top/build"
  tree=""
  max_runs=10
  hw=3
  only=""
  while [ $# -gt 0 ]; do
    case "$1" in
      --tree) tree=$(realpath "$2"); shift 2 ;;
      --build) build=$(realpath "$2"); shift 2 ;;
      --max-runs) max_runs=$2; shift 2 ;;
      --hw) hw=$2; shift 2 ;;
      --only) only=$2; shift 2 ;;
      -h|--help) sed -n "${help}p" "$0"; exit 0 ;;
      *) echo "$name: unknown argument $1 (see --help)" >&2; exit 2 ;;
    esac
  done
  if [ -z "$tree" ] && [ -z "${bench_tree_later:-}" ]; then
    tree=$(ls -d "$top"/build/workload/linux-source-* 2>/dev/null | tail -n 1 || true)
    [ -n "$tree" ] || { echo "$name: no tree; run scripts/run.sh once or pass --tree" >&2; exit 2; }
  fi
  fs=$build/fs/osprof-fs
  ob=$build/bench/osprof-bench
  rr=$build/bench/osprof-randread
}

# bench_need NAME BINARY...: each must be built.
bench_need() {
  local name=$1
  shift
  for b in "$@"; do
    [ -x "$b" ] || { echo "$name: $b is not built (ninja -C $build)" >&2; exit 2; }
  done
}

# bench_start: the scratch directory $work, cleaned up at exit.
bench_start() {
  work=$(mktemp -d /tmp/osprof-bench.XXXXXX)
  mounts=()
  trap bench_cleanup EXIT
}
bench_cleanup() {
  local m
  # A mount still busy (Ctrl-C while a run is inside it) is detached
  # lazily; and rm never crosses into a mount: through one it would
  # delete the lower tree, which is the user's.
  for m in "${mounts[@]}"; do
    fusermount3 -u "$m" 2>/dev/null || fusermount3 -uz "$m" 2>/dev/null || true
  done
  sleep 0.2
  rm -rf --one-file-system "$work"
}

# want PART: --only names PART (it takes one name or a comma-separated list)
want() { [ -z "$only" ] || [[ ",$only," == *",$1,"* ]]; }
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


# shq WORD: WORD quoted for /bin/sh, which runs osprof-bench's commands:
# in single quotes, each ' as '\''. (bash's printf %q writes $'...' for a
# newline or a control byte, which Debian's dash does not read.)
shq() { printf "'%s'" "${1//\'/\'\\\'\'}"; }

# grepcmd DIR: the shell command osprof-bench runs for a grep -r over DIR
# for a pattern nowhere in it (grep exits 1, as it should); DIR quoted for
# the shell, whatever its name.
pattern=osprof_pattern_that_is_not_there
grepcmd() { printf 'grep -r %s %s; [ $? -eq 1 ]' "$(shq "$pattern")" "$(shq "$1")"; }

# bench_cputicks PID: utime + stime (fields 14, 15) of every thread of PID,
# live or reaped, in clock ticks; 0 when it is gone.
bench_cputicks() {
  awk '{ sub(/^.*\) /, ""); print $12 + $13 }' "/proc/$1/stat" 2>/dev/null || echo 0
}
# bench_requests MOUNT: the requests osprof-fs has counted ("... N
# requests in ..." of .osprof/stats); 0 when it says none.
bench_requests() {
  { head -n 1 "$1/.osprof/stats" 2>/dev/null || true; } |
    awk '{ for (i = 2; i <= NF; i++) if ($i == "requests") { print $(i - 1); exit } } END { if (NR == 0) print 0 }'
}
# bench_fuse_opt VALUE: VALUE for libfuse's -o list, which splits at
# commas: backslashes and commas escaped.
bench_fuse_opt() { local v=${1//\\/\\\\}; printf '%s' "${v//,/\\,}"; }
# bench_peer NAME OUT: compile libfuse's passthrough_ll example (Debian's
# libfuse3-dev ships it) to OUT; exit 2 with one line without it.
bench_peer() {
  local examples=/usr/share/doc/libfuse3-dev/examples
  if [ ! -r "$examples/passthrough_ll.c" ]; then
    echo "$1: no $examples/passthrough_ll.c: install Debian's libfuse3-dev (apt-get install libfuse3-dev), which ships libfuse's examples" >&2
    exit 2
  fi
  # shellcheck disable=SC2046
  cc -O2 -Wall -I"$examples" $(pkg-config --cflags fuse3) "$examples/passthrough_ll.c" \
    $(pkg-config --libs fuse3) -o "$2"
}
# bench_hp NAME SRC OUT: build the passthrough_hp example of the libfuse
# source tree SRC (a checkout the user gives: nothing of libfuse is in
# this repository) in the build directory OUT, release, examples only;
# OUT/example/passthrough_hp then runs with OUT's own libfuse (meson's
# rpath), not the system's. hp_version: the tree's version, and its
# commit when SRC is a git checkout. Exit 2 with one line when SRC is no
# libfuse tree or the build fails (its log's last lines).
bench_hp() {
  local name=$1 src=$2 out=$3
  if [ ! -r "$src/example/passthrough_hp.cc" ] || [ ! -r "$src/meson.build" ]; then
    echo "$name: $src is not a libfuse source tree (no example/passthrough_hp.cc): git clone https://github.com/libfuse/libfuse" >&2
    exit 2
  fi
  if ! { meson setup "$out" "$src" --buildtype=release -Dexamples=true -Dutils=false \
           -Dtests=false && ninja -C "$out" example/passthrough_hp; } > "$out.log" 2>&1; then
    echo "$name: building passthrough_hp of $src failed (see docs/bench.md for what it needs):" >&2
    tail -n 15 "$out.log" >&2
    exit 2
  fi
  hp_version=$(awk '$1 == "Project" && $2 == "version:" { print $3; exit }' "$out.log")
  local rev=""
  [ ! -e "$src/.git" ] || rev=$(git -C "$src" rev-parse --short HEAD 2>/dev/null || true)
  [ -z "$rev" ] || hp_version="$hp_version at $rev"
  grep -qE 'io_uring support *: (True|YES)' "$out.log" || hp_version="$hp_version, without io_uring"
}
