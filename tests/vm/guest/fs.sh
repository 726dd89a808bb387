#!/bin/sh
# SPDX-License-Identifier: MIT
#
# osprof-fs with osprof.ko, in the test VM (busybox sh; init.sh runs it
# with the module loaded when the host packed osprof-fs, osprof-report,
# ofs-vm-check, fuse.ko and ext4.ko, and attached an ext4 image as
# /dev/vdb). osprof-fs is mounted over a directory of that ext4 file
# system, a workload reads through the mount from a cold cache, and the
# checks are: the daemon registers itself with the module and unregisters
# at exit; .osprof/ lists and serves lower, block and irq and their JSON;
# lower counts exactly the daemon's reads of ext4 (one pread per FUSE read,
# the cache being off by default) and none of its /dev/fuse reads and
# writes; block counts exactly the disk's reads;
# every JSON file parses with core's reader with its checksums holding
# (ofs-vm-check, and osprof-report show); with -o vtimers every request
# gets a virtual time, on average within its latency; the timers go away
# with the daemon. One "PASS <name>" or "FAIL <name>: <why>" line a check.

LOWER=/mnt/lower
MNT=/mnt/p
DEV=vdb
OUT=/tmp/ofs
PID=

pass() { echo "PASS $1"; }
fail() { echo "FAIL $1: $2"; }

# check NAME WHY COMMAND...: PASS when COMMAND succeeds, else FAIL with WHY.
check() {
	name=$1
	why=$2
	shift 2
	if "$@"; then pass "$name"; else fail "$name" "$why"; fi
}

# ofs-vm-check prints its own PASS/FAIL lines; above 1 nobody printed one.
vmcheck() {
	ofs-vm-check "$@"
	rc=$?
	[ "$rc" -gt 1 ] && fail "ofs_vm_check_$1" "exited with status $rc"
	return 0
}

mounted() { grep -q " $MNT fuse" /proc/mounts; }

# start NAME [options...]: osprof-fs in the foreground, in the background.
start() {
	name=$1
	shift
	osprof-fs "$LOWER" "$MNT" -f "$@" 2>"$OUT/daemon.err" &
	PID=$!
	i=0
	while ! mounted; do
		if [ "$i" -ge 200 ] || ! kill -0 "$PID" 2>/dev/null; then
			fail "$name" "osprof-fs did not mount: $(cat "$OUT/daemon.err")"
			kill "$PID" 2>/dev/null
			wait "$PID" 2>/dev/null
			PID=
			return 1
		fi
		sleep 0.05
		i=$((i + 1))
	done
	pass "$name"
}

# stop NAME: unmount, reap, and the daemon must have said nothing. (libfuse
# 3.14 itself says "Ignoring invalid max threads value 4294967295" at every
# start, its own default for idle threads: that line alone is let pass.)
stop() {
	[ -n "$PID" ] || return 0
	umount "$MNT" || umount -l "$MNT"
	wait "$PID"
	rc=$?
	PID=
	grep -v '^Ignoring invalid max threads value 4294967295 ' "$OUT/daemon.err" \
		>"$OUT/daemon.said"
	quiet=0
	[ "$rc" -eq 0 ] && [ ! -s "$OUT/daemon.said" ] && quiet=1
	check "$1" "exit status $rc, stderr: $(cat "$OUT/daemon.err")" [ "$quiet" = 1 ]
}

registered() { grep -E "^pids ([0-9]+,)*$1(,[0-9]+)*\$" /proc/osprof/ctl >/dev/null; }

# Completed reads, once the disk is idle: read-ahead still in flight when
# cat returns would complete after the count yet appear in the profile.
reads_done() {
	i=0
	while [ "$(cat /sys/block/$DEV/inflight | tr -s ' ' | sed 's/^ //')" != "0 0" ] &&
		[ "$i" -lt 200 ]; do
		sleep 0.01
		i=$((i + 1))
	done
	set -- $(cat /sys/block/$DEV/stat)
	echo "$1"
}

# Read every file through the mount from a cold cache (so the lower file
# system reads the disk); DISK_READS is how many reads the disk completed.
# Reads only: ofs-vm-check lower counts on the daemon writing nothing below.
workload() {
	sync
	echo 3 >/proc/sys/vm/drop_caches
	# The mount's reset looks names up on the lower file system, which
	# reads the disk now that its caches are dropped. Any read between the
	# module's reset and r0 would count in the profile and in r0 alike, so
	# the module's reset comes last, on an idle disk, and only procfs and
	# sysfs are touched between it and r0.
	echo "reset" >"$MNT/.osprof/ctl"
	reads_done >/dev/null
	echo "reset" >/proc/osprof/ctl
	r0=$(reads_done)
	find "$MNT" -type f | xargs cat >/dev/null
	ls -lR "$MNT" >/dev/null
	r1=$(reads_done)
	DISK_READS=$((r1 - r0))
}

mkdir -p "$LOWER" "$MNT" "$OUT"
# devtmpfs made the node when fuse.ko registered its misc device.
check fs_dev_fuse "no character device /dev/fuse" [ -c /dev/fuse ]
i=0
while [ ! -b /dev/$DEV ] && [ "$i" -lt 100 ]; do
	sleep 0.1
	i=$((i + 1))
done
# ext4's lazyinit thread otherwise reads the block bitmaps in the
# background, seconds after the mount: two disk reads at a random moment,
# in the block profile and not in the workload's count (1 run in 3).
if ! mount -t ext4 -o no_prefetch_block_bitmaps /dev/$DEV "$LOWER"; then
	fail fs_lower_ext4_mounted "mount -t ext4 /dev/$DEV: status $?"
	exit 0
fi
pass fs_lower_ext4_mounted
echo "enable all" >/proc/osprof/ctl

# --- the module's layers in .osprof ---
if start fs_mounted_over_ext4 -o layers=none; then
	check fs_daemon_registered "pid $PID not in: $(grep ^pids /proc/osprof/ctl)" \
		registered "$PID"
	check fs_ctl_says_registered "$(grep ^kmod "$MNT/.osprof/ctl")" \
		grep -q '^kmod_registered yes$' "$MNT/.osprof/ctl"
	ls -a "$MNT/.osprof" >"$OUT/ls"
	missing=
	for f in lower block irq lower.json block.json irq.json; do
		grep -qx "$f" "$OUT/ls" || missing="$missing $f"
	done
	check fs_kmod_files_listed "missing:$missing" [ -z "$missing" ]
	workload
	vmcheck lower "$MNT"
	vmcheck block "$MNT" "$DEV" "$DISK_READS"
	for f in lower block irq; do
		cat "$MNT/.osprof/$f" >"$OUT/$f.txt"
		check "fs_${f}_human_form" "$(head -3 "$OUT/$f.txt")" \
			grep -q "^osprof $f profile: " "$OUT/$f.txt"
	done
	check fs_block_human_lists_the_disk "no $DEV.read line" \
		grep -q "^$DEV.read " "$OUT/block.txt"
	for f in stats lower block irq; do
		cat "$MNT/.osprof/$f.json" >"$OUT/$f.json"
	done
	vmcheck files "$OUT/stats.json" "$OUT/lower.json" "$OUT/block.json" "$OUT/irq.json"
	osprof-report show --all "$MNT" >"$OUT/report.txt" 2>&1
	rc=$?
	n=$(grep -cE '^osprof (fs|lower|block|irq) profile: ' "$OUT/report.txt")
	check fs_report_shows_every_layer "status $rc, $n of 4 layers: $(head -5 "$OUT/report.txt")" \
		[ "$rc.$n" = 0.4 ]
	stop fs_daemon_exits_cleanly
	check fs_daemon_unregistered "$(grep ^pids /proc/osprof/ctl)" \
		grep -q '^pids none$' /proc/osprof/ctl
fi

# --- -o vtimers ---
if start fs_mounted_with_vtimers -o vtimers,layers=none; then
	check fs_vtimers_ctl "$(grep ^cpu_ "$MNT/.osprof/ctl")" \
		grep -q '^cpu_source vtimer$' "$MNT/.osprof/ctl"
	workload
	vmcheck vtimers "$MNT"
	check fs_vtimers_no_errors "$(grep ^vtimer_errors "$MNT/.osprof/ctl")" \
		grep -q '^vtimer_errors 0$' "$MNT/.osprof/ctl"
	check fs_vtimers_listed_private_virtual "$(grep osprof-fs /proc/osprof/timers)" \
		grep -qE 'name=osprof-fs\.[0-9]+ kind=virtual scope=private' /proc/osprof/timers
	echo "INFO vtimers: $(grep -c 'name=osprof-fs\.' /proc/osprof/timers) worker timers"
	stop fs_vtimers_daemon_exits_cleanly
	check fs_vtimers_released_at_exit "$(grep osprof-fs /proc/osprof/timers)" \
		sh -c '! grep -q name=osprof-fs /proc/osprof/timers'
fi

# --- the eBPF layers on this kernel (Debian 12's: BTF, but FUSE has no
# request tracepoints yet): the others load and are served, asked for by
# name (unasked, the module's layers stay the module's) ---
# Started and stopped as the others are: the daemon is reaped (its
# descriptors of the lower file system closed) before that is unmounted.
if start fs_ebpf_layers_load -o layers=syscall:block:irq; then
	sync
	echo 3 >/proc/sys/vm/drop_caches
	find "$MNT" -type f | xargs cat >/dev/null
	check fs_ebpf_block_from_ebpf "$(head -c 300 "$MNT/.osprof/block.json")" \
		grep -q '"layer_source": *"ebpf"' "$MNT/.osprof/block.json"
	check fs_ebpf_block_reads_seen "$(head -n 12 "$MNT/.osprof/block")" \
		grep -q "^$DEV.read " "$MNT/.osprof/block"
	check fs_ebpf_syscall_served "$(ls "$MNT/.osprof" | tr '\n' ' ')" \
		grep -q '"layer": *"syscall"' "$MNT/.osprof/syscall.json"
	echo "INFO ebpf: $(grep '^ebpf' "$MNT/.osprof/ctl" | tr '\n' ';')"
	stop fs_ebpf_said_nothing
fi

# --- osprof-trace's syscall layer (the light skeleton: its loader does
# CO-RE in the kernel, 5.17+; were it refused, the regular skeleton would
# serve) counts a command's reads ---
if [ ! -x /usr/bin/osprof-trace ]; then
	fail trace_packed "no /usr/bin/osprof-trace in the guest"
else
	check trace_counts_reads "$(osprof-trace -o "$OUT/trace.json" -- cat "$LOWER/a/f000" 2>&1 >/dev/null)" \
		grep -q '"name": *"read"' "$OUT/trace.json"
	# libbpf says nothing when the light skeleton loaded: the regular
	# one would have printed its steps
	OSPROF_BPF_DEBUG=1 osprof-trace -o "$OUT/trace2.json" -- true >"$OUT/trace.err" 2>&1
	check trace_light_skeleton "status $?: $(grep -m 3 libbpf "$OUT/trace.err")" \
		sh -c "[ -s '$OUT/trace2.json' ] && ! grep -q libbpf '$OUT/trace.err'"
fi

umount "$LOWER" || fail fs_lower_unmounted "status $?"
exit 0
