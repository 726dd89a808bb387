#!/bin/sh
# SPDX-License-Identifier: MIT
#
# /init of the osprof.ko test VM (busybox sh). Loads the disk driver,
# then osprof.ko, runs okm-guest's tests between insmod and rmmod steps,
# checks the kernel log, and powers off. Every check prints one line
# "PASS <name>" or "FAIL <name>: <why>"; "OKM-VM: done" marks a complete
# run. tests/vm/run-vm-test.sh turns the lines into the test's result.
#
# With the module loaded, /fs-tests.sh (guest/fs.sh, when the host packed
# osprof-fs) tests osprof-fs over ext4 with the module. Hook for other
# integration tests: an executable /extra-tests.sh (the host's
# --extra-test) runs with the module loaded, after the built-in tests;
# each prints PASS/FAIL lines of its own.

export PATH=/bin:/sbin:/usr/bin:/usr/sbin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mkdir -p /tmp /run
echo "OKM-VM: guest up, kernel $(uname -r)"

pass() { echo "PASS $1"; }
fail() { echo "FAIL $1: $2"; }

# okm-guest prints its own PASS/FAIL lines; exit 1 means it printed a
# FAIL. Anything else (a crash, a usage error) is a failure nobody printed.
run() {
	okm-guest "$1"
	rc=$?
	[ "$rc" -gt 1 ] && fail "$1" "okm-guest exited with status $rc"
	return 0
}

for m in $(cat /etc/okm-modules); do
	insmod "/lib/modules/okm/$m" || fail "insmod_$m" "status $?"
done
i=0
while [ ! -b /dev/vda ] && [ "$i" -lt 100 ]; do
	sleep 0.1
	i=$((i + 1))
done
[ -b /dev/vda ] && pass virtio_disk_present || fail virtio_disk_present "no /dev/vda"

# --- load, read every file, unload, load again ---
if insmod /osprof.ko; then pass insmod; else fail insmod "status $?"; fi
run proc-readable
if rmmod osprof; then pass rmmod; else fail rmmod "status $?"; fi
if [ -e /proc/osprof ] || [ -e /dev/osprof_vt ]; then
	fail rmmod_removes_interfaces "/proc/osprof or /dev/osprof_vt left"
else
	pass rmmod_removes_interfaces
fi
if insmod /osprof.ko; then pass insmod_again; else fail insmod_again "status $?"; fi

# --- the tests ---
run selftest
run vt-sleep
run vt-threads
run vt-irq
run vt-exit
run timers-file
run ioctl-errors
run ioctl-fuzz
run blk-lower
run lower-ops
run irq-list
run ctl-errors
run ctl-fuzz
run rmmod-busy
run proc-readable

# --- osprof-fs over ext4 with the module (its daemon gone before the
# unload tests below) ---
if [ -x /fs-tests.sh ]; then
	echo "OKM-VM: osprof-fs tests"
	# On one CPU: a FUSE round trip between two TCG vCPUs waits for the
	# idle one's next tick (4 ms), which made the workload 10x slower.
	taskset 1 /fs-tests.sh
fi

# --- the exported API, from another module ---
if insmod /okm_kapi_test.ko; then
	dmesg | grep -E 'okm_kapi_test: (PASS|FAIL|INFO)' | sed 's/^.*okm_kapi_test: //'
	dmesg | grep -q 'okm_kapi_test: done' || fail kapi_test_ran "no 'done' line"
	if rmmod okm_kapi_test; then pass kapi_rmmod; else fail kapi_rmmod "status $?"; fi
	# its leftover timer outlives it; osprof.ko is unloaded with it below
	if grep -q 'name=kapi.leftover .*running=1' /proc/osprof/timers; then
		pass kapi_leftover_timer_listed
	else
		fail kapi_leftover_timer_listed "not in /proc/osprof/timers"
	fi
else
	fail kapi_insmod "status $?"
fi

# --- unload while probes fire, registered tasks hold contexts, and a
# kernel-API timer (kapi.leftover) is alive; then load and unload twice
# more under the same load (each patches every probed site of the kernel
# text while the other CPU runs it: the soft lockups of a threaded TCG,
# see run-vm-test.sh) ---
unload_under_load() {
	okm-guest load &
	load1=$!
	okm-guest load &
	load2=$!
	sleep 1
	if rmmod osprof; then pass "$1"; else fail "$1" "status $?"; fi
	sleep 0.5
	kill "$load1" "$load2"
	wait "$load1" "$load2" 2>/dev/null
}
unload_under_load rmmod_under_load
for round in 2 3; do
	if insmod /osprof.ko; then
		unload_under_load "rmmod_under_load_$round"
	else
		fail "insmod_under_load_$round" "status $?"
	fi
done
# Reloaded with the TSC clock forced: the path real hardware takes (the
# kernel distrusts the TSC under TCG, so clock=auto chose ktime above).
if insmod /osprof.ko clock=tsc; then pass insmod_after_unload_under_load; else
	fail insmod_after_unload_under_load "status $?"; fi
if grep -q kapi.leftover /proc/osprof/timers; then
	fail timers_gone_after_reload "kapi.leftover survived an unload"
else
	pass timers_gone_after_reload
fi
if head -1 /proc/osprof/lower | grep -q '^layer=lower clock=tsc '; then
	pass clock_tsc_forced
else
	fail clock_tsc_forced "$(head -1 /proc/osprof/lower)"
fi
run proc-readable
run selftest
run vt-sleep
run vt-irq
run blk-lower

if [ -x /extra-tests.sh ]; then
	echo "OKM-VM: extra tests"
	/extra-tests.sh
fi

if rmmod osprof; then pass final_rmmod; else fail final_rmmod "status $?"; fi

# --- the kernel log ---
dmesg | grep -i osprof | sed 's/^/INFO dmesg: /'
bad=$(dmesg | grep -E 'Oops|BUG:|WARNING:|Call Trace|general protection|kernel BUG|RIP:|list_del corruption|refcount_t:|UBSAN|stack-protector')
if [ -n "$bad" ]; then
	fail dmesg_clean "kernel log shows a problem"
	dmesg | sed 's/^/INFO dmesg: /'
else
	pass dmesg_clean
fi

echo "OKM-VM: done"
poweroff -f
