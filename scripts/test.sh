#!/bin/bash
# SPDX-License-Identifier: MIT
# Install, build and run every test: once in a normal build (every suite,
# the kernel module's VM test included), once under AddressSanitizer and
# UndefinedBehaviorSanitizer (every suite but the VM boot).
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
  meson test -C build-san --print-errorlogs --num-processes 2 --no-suite vm \
  --timeout-multiplier 3
echo "osprof: all tests passed (normal and sanitizer builds)"
