#!/bin/bash
# SPDX-License-Identifier: MIT
# Run a test (the command line given) with the fuse module's enable_uring
# set to Y, and put back what it was afterwards, also when the test fails
# or is killed. Every such run holds a lock for its whole length, taken
# machine-wide (each tree's runs and tests/fs/test_transport.c, which sets
# enable_uring to N, use the same file), so none changes it under another.
set -u
param=/sys/module/fuse/parameters/enable_uring
lock=${OSPROF_URING_LOCK:-/tmp/osprof-enable-uring.lock}
exec 9>"$lock"
flock 9
old=$(cat "$param") || exit 1
# Killed with its process group (a time-out), this script cannot put it
# back itself: a watcher outside the group does, once it is gone.
setsid bash -c 'while kill -0 "$1" 2>/dev/null; do sleep 1; done
		exec 9>"$2"; flock 9; echo "$3" > "$4"' watcher "$$" "$lock" "$old" "$param" \
	</dev/null >/dev/null 2>&1 9>&- &
trap 'echo "$old" > "$param"' EXIT
echo Y > "$param" || exit 1
# In the foreground: a background job of a script ignores SIGINT, and so
# would the daemon the test starts. The lock is not handed down.
"$@" 9>&-
