#!/bin/bash
# SPDX-License-Identifier: MIT
#
# kmod-vm: test osprof.ko for real. Builds the module (and okm_kapi_test.ko,
# a user of its exported API) against the newest installed kernel that has
# both an image (/boot/vmlinuz-V) and headers (/lib/modules/V/build),
# builds the static guest tests
# (tests/vm/guest/), packs an initramfs (busybox-static, osprof.ko, the
# virtio modules from /lib/modules/V), makes a small disk for a virtio
# disk, boots the kernel in QEMU (TCG), and turns the guest's PASS/FAIL
# lines into the exit status. Missing packages fail the test loudly.
#
# With --osprof-fs, --osprof-report and --fs-check (meson passes all
# three) it also tests osprof-fs with the module: the three host programs
# go into the guest's /usr/bin with their shared libraries, fuse.ko and
# ext4.ko (with crc32c_generic, which ext4 needs at mount) are loaded, an
# ext4 image made here with mke2fs (e2fsprogs) and filled with a small
# tree becomes a second virtio disk, and guest/fs.sh mounts osprof-fs over
# it and checks the kernel layers seen through .osprof/.
#
# Usage: run-vm-test.sh [options]
#   --keep              keep the work directory (printed) for inspection
#   --log FILE          copy the guest console log to FILE
#   --osprof-fs PATH    the osprof-fs integration: this osprof-fs binary,
#   --osprof-report PATH   this osprof-report
#   --fs-check PATH        and this ofs-vm-check (tests/vm/ofs_vm_check.c)
#   --osprof-trace PATH with them, this osprof-trace too (its syscall
#                       layer on the guest's kernel)
#   --extra-bin PATH    copy a host program (and the shared libraries ldd
#                       names) into the guest, at the same path
#   --extra-module NAME also load module NAME (and its dependencies),
#                       e.g. fuse
#   --extra-test FILE   a guest shell script run with osprof.ko loaded,
#                       after the built-in tests; prints PASS/FAIL lines
# The same three extras can come from the environment as space-separated
# lists: OKM_VM_EXTRA_BINS, OKM_VM_EXTRA_MODULES, OKM_VM_EXTRA_TEST.
#
# Exit status: 0 when every check passed, 1 otherwise. The last line is
# "N passed, M failed".

set -euo pipefail

SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BOOT_TIMEOUT=${OKM_VM_TIMEOUT:-170}
KEEP=0
LOG=
EXTRA_BINS=(${OKM_VM_EXTRA_BINS:-})
EXTRA_MODULES=(${OKM_VM_EXTRA_MODULES:-})
EXTRA_TEST=${OKM_VM_EXTRA_TEST:-}
FS_BIN=
REPORT_BIN=
TRACE_BIN=
CHECK_BIN=
# mke2fs and friends live in sbin, which a user's PATH may lack.
PATH=$PATH:/usr/sbin:/sbin

die() {
	echo "kmod-vm: FATAL: $*" >&2
	echo "0 passed, 1 failed"
	exit 1
}

while [ $# -gt 0 ]; do
	case "$1" in
	--keep) KEEP=1 ;;
	--log) LOG=$2; shift ;;
	--extra-bin) EXTRA_BINS+=("$2"); shift ;;
	--extra-module) EXTRA_MODULES+=("$2"); shift ;;
	--extra-test) EXTRA_TEST=$2; shift ;;
	--osprof-fs) FS_BIN=$2; shift ;;
	--osprof-report) REPORT_BIN=$2; shift ;;
	--fs-check) CHECK_BIN=$2; shift ;;
	--osprof-trace) TRACE_BIN=$2; shift ;;
	*) die "unknown option '$1' (see the header of $0)" ;;
	esac
	shift
done

need() {
	command -v "$1" >/dev/null 2>&1 || die "missing '$1': install package $2"
}
need qemu-system-x86_64 qemu-system-x86
need make make
need cc gcc
need cpio cpio
need gzip gzip
need strip binutils
need awk gawk
[ -x /bin/busybox ] || die "missing /bin/busybox: install package busybox-static"
if ldd /bin/busybox >/dev/null 2>&1; then
	die "/bin/busybox is dynamically linked: install package busybox-static"
fi
if [ -n "$FS_BIN$REPORT_BIN$CHECK_BIN" ]; then
	[ -n "$FS_BIN" ] && [ -n "$REPORT_BIN" ] && [ -n "$CHECK_BIN" ] ||
		die "--osprof-fs, --osprof-report and --fs-check go together"
	for b in "$FS_BIN" "$REPORT_BIN" "$CHECK_BIN"; do
		[ -x "$b" ] || die "$b: not an executable (build it first)"
	done
	FS_BIN=$(readlink -f "$FS_BIN")
	REPORT_BIN=$(readlink -f "$REPORT_BIN")
	CHECK_BIN=$(readlink -f "$CHECK_BIN")
	need mke2fs e2fsprogs
	need ldd libc-bin
	EXTRA_MODULES+=(fuse crc32c_generic ext4)
fi

# The newest kernel with an image, modules and headers.
KVER=
for img in $(ls /boot/vmlinuz-* 2>/dev/null | sort -rV); do
	v=${img#/boot/vmlinuz-}
	if [ -f "/lib/modules/$v/build/Makefile" ] && [ -f "/lib/modules/$v/modules.dep" ]; then
		KVER=$v
		break
	fi
done
[ -n "$KVER" ] || die "no kernel with image, modules and headers: install linux-image-amd64 and linux-headers-amd64"
VMLINUZ=/boot/vmlinuz-$KVER
MODDIR=/lib/modules/$KVER
[ -r "$VMLINUZ" ] || die "cannot read $VMLINUZ (run as root)"

WORK=$(mktemp -d /tmp/okm-vm.XXXXXX)
cleanup() {
	if [ "$KEEP" = 1 ]; then
		echo "kmod-vm: work directory kept: $WORK"
	else
		rm -rf "$WORK"
	fi
}
trap cleanup EXIT

t_start=$(date +%s.%N)
echo "kmod-vm: kernel $KVER, work directory $WORK"

# --- the module, built in a copy so the source tree stays clean ---
mkdir -p "$WORK/kmod"
cp "$SRC"/kmod/*.c "$SRC"/kmod/*.h "$SRC"/kmod/Kbuild "$SRC"/kmod/Makefile "$WORK/kmod/"
if ! make -s -C "$WORK/kmod" KDIR="$MODDIR/build" >"$WORK/kmod-build.log" 2>&1; then
	cat "$WORK/kmod-build.log" >&2
	die "osprof.ko does not build against $KVER"
fi
if grep -E 'warning:' "$WORK/kmod-build.log" >&2; then
	die "osprof.ko builds with warnings"
fi
# A second module that uses osprof.ko's exported timer API.
mkdir -p "$WORK/kapi"
cp "$SRC"/tests/vm/kapi/*.c "$SRC"/tests/vm/kapi/Kbuild "$WORK/kapi/"
if ! make -s -C "$MODDIR/build" M="$WORK/kapi" OKM_KMOD_DIR="$WORK/kmod" \
	KBUILD_EXTRA_SYMBOLS="$WORK/kmod/Module.symvers" modules \
	>"$WORK/kapi-build.log" 2>&1 || grep -E 'warning:' "$WORK/kapi-build.log" >&2; then
	cat "$WORK/kapi-build.log" >&2
	die "okm_kapi_test.ko does not build cleanly against $KVER"
fi

# --- the initramfs ---
ROOT=$WORK/root
mkdir -p "$ROOT"/{bin,sbin,etc,proc,sys,dev,tmp,run,lib/modules/okm}
cp /bin/busybox "$ROOT/bin/busybox"
for applet in $(/bin/busybox --list); do
	[ -e "$ROOT/bin/$applet" ] || ln -s busybox "$ROOT/bin/$applet"
done
cp "$WORK/kmod/osprof.ko" "$ROOT/osprof.ko"
cp "$WORK/kapi/okm_kapi_test.ko" "$ROOT/okm_kapi_test.ko"
strip --strip-debug "$ROOT/osprof.ko" "$ROOT/okm_kapi_test.ko"
cc -static -O2 -Wall -Wextra -Werror -pthread -I"$SRC/kmod" \
	-o "$ROOT/bin/okm-guest" "$SRC"/tests/vm/guest/*.c \
	|| die "the guest tests do not build (static libc: package libc6-dev)"
install -m 0755 "$SRC/tests/vm/guest/init.sh" "$ROOT/init"

# Modules with their dependencies, dependencies first, decompressed
# (busybox insmod loads plain ELF only).
declare -A MOD_SEEN=()
MOD_ORDER=()
mod_path() {
	awk -F: -v n="$1" '{ p = $1; b = p; sub(/.*\//, "", b); sub(/\.ko(\.xz|\.zst|\.gz)?$/, "", b);
		gsub(/-/, "_", b); m = n; gsub(/-/, "_", m); if (b == m) { print p; exit } }' "$MODDIR/modules.dep"
}
mod_add() {
	local path deps d
	path=$(mod_path "$1")
	[ -n "$path" ] || {
		# built in? then there is nothing to load
		grep -qE "/$1\.ko" "$MODDIR/modules.builtin" 2>/dev/null && return 0
		die "module $1 not found in $MODDIR"
	}
	[ -n "${MOD_SEEN[$path]:-}" ] && return 0
	MOD_SEEN[$path]=1
	deps=$(awk -F': *' -v p="$path" '$1 == p { print $2 }' "$MODDIR/modules.dep")
	for d in $deps; do
		d=${d##*/}
		mod_add "${d%%.ko*}"
	done
	MOD_ORDER+=("$path")
}
for m in virtio_pci virtio_blk "${EXTRA_MODULES[@]}"; do
	mod_add "$m"
done
: >"$ROOT/etc/okm-modules"
for p in "${MOD_ORDER[@]}"; do
	name=${p##*/}
	case "$name" in
	*.ko.xz) need xz xz-utils; xz -dc "$MODDIR/$p" >"$ROOT/lib/modules/okm/${name%.xz}"; name=${name%.xz} ;;
	*.ko.zst) need zstd zstd; zstd -qdc "$MODDIR/$p" >"$ROOT/lib/modules/okm/${name%.zst}"; name=${name%.zst} ;;
	*.ko.gz) gzip -dc "$MODDIR/$p" >"$ROOT/lib/modules/okm/${name%.gz}"; name=${name%.gz} ;;
	*) cp "$MODDIR/$p" "$ROOT/lib/modules/okm/$name" ;;
	esac
	echo "$name" >>"$ROOT/etc/okm-modules"
done

# Host programs with their shared libraries: copy_with_libs PATH [GUEST_PATH].
copy_with_libs() {
	local f=$1 dest=${2:-$1} lib
	[ -e "$f" ] || die "--extra-bin $f: no such file"
	mkdir -p "$ROOT$(dirname "$dest")"
	cp -L "$f" "$ROOT$dest"
	for lib in $(ldd "$f" 2>/dev/null | grep -oE '/[^ ]+' || true); do
		mkdir -p "$ROOT$(dirname "$lib")"
		[ -e "$ROOT$lib" ] || cp -L "$lib" "$ROOT$lib"
	done
}
for b in "${EXTRA_BINS[@]}"; do
	copy_with_libs "$b"
done
if [ -n "$EXTRA_TEST" ]; then
	[ -f "$EXTRA_TEST" ] || die "--extra-test $EXTRA_TEST: no such file"
	install -m 0755 "$EXTRA_TEST" "$ROOT/extra-tests.sh"
fi

# The osprof-fs integration: its programs, its script, and the ext4 disk
# it mounts over (a few hundred small files and one larger one).
DRIVES=(-drive "file=$WORK/disk.img,format=raw,if=virtio")
if [ -n "$FS_BIN" ]; then
	copy_with_libs "$FS_BIN" /usr/bin/osprof-fs
	copy_with_libs "$REPORT_BIN" /usr/bin/osprof-report
	copy_with_libs "$CHECK_BIN" /usr/bin/ofs-vm-check
	strip --strip-debug "$ROOT"/usr/bin/osprof-fs "$ROOT"/usr/bin/osprof-report \
		"$ROOT"/usr/bin/ofs-vm-check
	if [ -n "$TRACE_BIN" ]; then
		copy_with_libs "$(readlink -f "$TRACE_BIN")" /usr/bin/osprof-trace
		strip --strip-debug "$ROOT"/usr/bin/osprof-trace
	fi
	# glibc loads libgcc_s when a thread is cancelled (libfuse's workers
	# at unmount); ldd cannot name a library loaded at run time.
	gcc_s=$(ldconfig -p | awk '/libgcc_s\.so\.1 .*x86-64/ && !n++ { print $NF }')
	[ -n "$gcc_s" ] || die "no libgcc_s.so.1 for the guest: install package libgcc-s1"
	mkdir -p "$ROOT$(dirname "$gcc_s")"
	cp -L "$gcc_s" "$ROOT$gcc_s"
	install -m 0755 "$SRC/tests/vm/guest/fs.sh" "$ROOT/fs-tests.sh"
	tree=$WORK/fstree
	mkdir -p "$tree"
	for d in a b c d; do
		mkdir -p "$tree/$d"
		head -c $((64 * 4096)) /dev/urandom >"$WORK/chunk"
		(cd "$tree/$d" && split -b 4096 -d -a 3 "$WORK/chunk" f)
	done
	head -c $((2 << 20)) /dev/urandom >"$tree/big"
	rm -f "$WORK/chunk"
	# Inode tables and journal initialised now, not zeroed by ext4lazyinit
	# in the guest while the block layer is measured.
	if ! mke2fs -q -F -t ext4 -E lazy_itable_init=0,lazy_journal_init=0 \
		-L osprof-vm -d "$tree" "$WORK/fs.img" 32M \
		>"$WORK/mke2fs.log" 2>&1; then
		cat "$WORK/mke2fs.log" >&2
		die "mke2fs cannot make the ext4 image"
	fi
	DRIVES+=(-drive "file=$WORK/fs.img,format=raw,if=virtio")
fi

(cd "$ROOT" && find . | cpio -o -H newc --quiet | gzip -1) >"$WORK/initrd.gz"
truncate -s 64M "$WORK/disk.img"

t_built=$(date +%s.%N)

# --- boot and test ---
# One host thread runs both vCPUs (thread=single). With a thread per vCPU,
# QEMU before 9.1 can translate kernel text on one vCPU while the other
# patches it (text_poke_bp: int3, then the new bytes) and keep the stale
# translation: that vCPU then traps forever on an int3 no longer in
# memory, a soft lockup at insmod or rmmod, which patch every probed site
# (fixed by QEMU 8.1's deba78709ae8 "accel/tcg: Always lock pages before
# translation", for blocks spanning two pages in 9.1). One thread is also
# faster here. A soft lockup panics: a hang fails in about 30 s, not at
# the timeout.
CONSOLE=$WORK/console.log
set +e
timeout --foreground -k 5 "$BOOT_TIMEOUT" qemu-system-x86_64 \
	-accel tcg,thread=single -m 512 -smp 2 -nographic -no-reboot \
	-kernel "$VMLINUZ" -initrd "$WORK/initrd.gz" \
	"${DRIVES[@]}" \
	-append "console=ttyS0 panic=-1 oops=panic softlockup_panic=1 quiet" \
	</dev/null >"$CONSOLE" 2>&1
qrc=$?
set -e
t_done=$(date +%s.%N)

# Strip the terminal escapes the firmware prints; keep the guest's lines.
sed -e 's/\x1b\[[0-9;?]*[a-zA-Z]//g' -e 's/\r$//' "$CONSOLE" >"$CONSOLE.txt"
[ -n "$LOG" ] && cp "$CONSOLE.txt" "$LOG"
grep -E '^(PASS|FAIL|INFO|OKM-VM)|\] (osprof|BUG|WARNING|Oops|Kernel panic|RIP)' "$CONSOLE.txt" || true

npass=$(grep -c '^PASS ' "$CONSOLE.txt" || true)
nfail=$(grep -c '^FAIL ' "$CONSOLE.txt" || true)
if ! grep -q '^OKM-VM: done' "$CONSOLE.txt"; then
	echo "FAIL vm_completed: the guest did not finish (qemu status $qrc); last lines:"
	tail -40 "$CONSOLE.txt"
	nfail=$((nfail + 1))
fi
awk -v a="$t_start" -v b="$t_built" -v c="$t_done" \
	'BEGIN { printf "kmod-vm: build %.1f s, boot and test %.1f s\n", b - a, c - b }'
echo "$npass passed, $nfail failed"
[ "$nfail" -eq 0 ] && [ "$npass" -gt 0 ]
