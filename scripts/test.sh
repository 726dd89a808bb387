#!/bin/bash
# SPDX-License-Identifier: MIT
# Install, build and run every test: once in a normal build (every suite,
# the kernel module's VM test included), once under AddressSanitizer and
# UndefinedBehaviorSanitizer (every suite but the VM boot), and once with
# clang for the libFuzzer targets of fuzz/ (suite fuzz only: each target
# fuzz_seconds, two at a time).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh test
meson setup build -Dtests=true --reconfigure >/dev/null 2>&1 ||
  meson setup build -Dtests=true >/dev/null
ninja -C build
meson test -C build --print-errorlogs --num-processes 2
meson setup build-san -Db_sanitize=address,undefined -Db_lundef=false \
  -Dc_args=-fno-sanitize-recover=all --reconfigure >/dev/null 2>&1 ||
  meson setup build-san -Db_sanitize=address,undefined -Db_lundef=false \
    -Dc_args=-fno-sanitize-recover=all >/dev/null
ninja -C build-san
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
  LSAN_OPTIONS=suppressions="$PWD/scripts/lsan.supp":print_suppressions=0 \
  meson test -C build-san --print-errorlogs --num-processes 2 --no-suite vm \
  --timeout-multiplier 3
fuzz_opts=(-Dtests=false -Dfuzz=true -Db_sanitize=address,undefined
           -Db_lundef=false -Dc_args=-fno-sanitize-recover=all)
CC=clang meson setup build-fuzz "${fuzz_opts[@]}" --reconfigure >/dev/null 2>&1 ||
  CC=clang meson setup build-fuzz "${fuzz_opts[@]}" >/dev/null
ninja -C build-fuzz
meson test -C build-fuzz --print-errorlogs --num-processes 2 --suite fuzz
echo "osprof: all tests passed (normal, sanitizer and fuzz builds)"
