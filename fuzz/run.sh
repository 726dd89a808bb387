#!/bin/bash
# SPDX-License-Identifier: MIT
# One fuzz test: run a libFuzzer target for SECONDS over a copy of its seed
# corpus in a temporary directory (the source tree is never written; the
# inputs found are dropped with the copy), and fail on a crash, leak,
# timeout, sanitizer report or broken invariant. A failing input is kept
# in ARTIFACTS (in the build directory) and named in the output.
#   run.sh TARGET CORPUS DICT SECONDS ARTIFACTS
set -euo pipefail
[ $# -eq 5 ] || { echo "usage: run.sh TARGET CORPUS DICT SECONDS ARTIFACTS" >&2; exit 2; }
mkdir -p "$5"
# Absolute: the target runs in the temporary directory.
target=$(realpath "$1") corpus=$(realpath "$2") dict=$(realpath -m "$3")
seconds=$4 artifacts=$(realpath "$5")
tmp=$(mktemp -d "${TMPDIR:-/tmp}/osprof-fuzz.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/corpus"
cp -R "$corpus/." "$tmp/corpus/"
args=(-max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048
      -print_final_stats=1 -artifact_prefix="$artifacts/")
[ -f "$dict" ] && args+=(-dict="$dict")
# Our directory for the run: whatever the target might create lands here.
cd "$tmp"
status=0
"$target" "${args[@]}" "$tmp/corpus" >"$tmp/log" 2>&1 || status=$?
# New coverage lines are many and say little; keep the start and the end.
grep -v -E '^#[0-9]+[[:space:]]+(NEW|REDUCE|pulse)' "$tmp/log" | tail -n 60
if [ "$status" -ne 0 ] ||
   grep -q -E 'ERROR: [A-Za-z]+Sanitizer|runtime error:|invariant broken' "$tmp/log"; then
  echo "fuzz: $(basename "$target") failed (exit $status); inputs in $artifacts" >&2
  exit 1
fi
echo "fuzz: $(basename "$target"): $(grep -E '^#[0-9]+.*DONE' "$tmp/log" | tail -n 1)"
