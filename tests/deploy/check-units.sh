#!/bin/bash
# SPDX-License-Identifier: MIT
# The systemd side of docs/deploy.md, without systemd running (a
# container): osprof-exporter.service as `meson install` puts it passes
# `systemd-analyze verify` with nothing to say, and `systemd-analyze
# security --offline` rates it 1.5 or less with each of its hardening
# settings in place; the fstab line of docs/deploy.md, through
# systemd-fstab-generator, makes a .mount unit that verifies too.
# verify runs in a scratch root holding the installed files, the
# system's units (for the targets) and kill (ExecReload): it checks
# that every command exists.
#   check-units.sh BUILDDIR SOURCEDIR      (env: PREFIX)
set -uo pipefail
build=$1
src=$2
: "${PREFIX:?}"
command -v systemd-analyze >/dev/null || { echo "skip: no systemd-analyze" >&2; exit 77; }
fail=0
bad() {
	echo "FAIL: $*" >&2
	fail=1
}

root=$(mktemp -d /tmp/osprof-units.XXXXXX) || exit 1
trap 'rm -rf "$root"' EXIT
meson install -C "$build" --destdir "$root" --no-rebuild --quiet >"$root/log" 2>&1 ||
	{ cat "$root/log" >&2; echo "FAIL: meson install --destdir" >&2; exit 1; }
unitdir=$(find "$root" -name osprof-exporter.service -printf '%h\n' | head -1)
[ -n "$unitdir" ] || { echo "FAIL: no osprof-exporter.service installed" >&2; exit 1; }
mkdir -p "$root/lib/systemd" "$root/bin" "$root/etc/systemd/system"
cp -a /lib/systemd/system "$root/lib/systemd/" 2>/dev/null ||
	cp -a /usr/lib/systemd/system "$root/lib/systemd/"
cp "$(type -P kill)" "$root/bin/kill"
# A unit under the prefix (/usr/local) is where systemd looks too.
[ "$unitdir" = "$root/lib/systemd/system" ] || cp "$unitdir/osprof-exporter.service" "$root/lib/systemd/system/"

# verify: exit 0 and not a word (unknown keys and bad values are only
# warnings on stderr).
out=$(systemd-analyze verify --man=no --root="$root" osprof-exporter.service 2>&1)
[ $? -eq 0 ] && [ -z "$out" ] || bad "systemd-analyze verify osprof-exporter.service: $out"
# What the unit runs and reads is the installed program and options file.
unit=$root/lib/systemd/system/osprof-exporter.service
grep -qx "ExecStart=$PREFIX/bin/osprof-exporter \$OSPROF_EXPORTER_ARGS" "$unit" || bad "ExecStart: $(grep ^ExecStart= "$unit")"
envfile=$(sed -n 's/^EnvironmentFile=-//p' "$unit")
[ -f "$root$envfile" ] || bad "EnvironmentFile $envfile is not installed"
grep -q '^OSPROF_EXPORTER_ARGS="--listen 127.0.0.1:9464 ' "$root$envfile" || bad "$envfile holds no OSPROF_EXPORTER_ARGS"

# security: at most 1.5, and the settings the issue asks for each there.
sec=$(systemd-analyze security --offline=yes --root="$root" --threshold=15 osprof-exporter.service 2>&1) ||
	bad "systemd-analyze security: exposure over 1.5: $(tail -1 <<<"$sec")"
for s in 'User=/DynamicUser=' 'NoNewPrivileges=' 'ProtectSystem=' 'ProtectHome=' 'PrivateTmp=' \
	 'CapabilityBoundingSet=~CAP_SYS_ADMIN' 'CapabilityBoundingSet=~CAP_(DAC_*|FOWNER|IPC_OWNER)' \
	 'AmbientCapabilities=' 'SystemCallFilter=~@privileged'; do
	grep -qF "✓ $s " <<<"$sec" || bad "security: $s is not in place: $(grep -F " $s " <<<"$sec")"
done

# The fstab line of docs/deploy.md as systemd reads it at boot.
line=$(grep -m1 '^/data /mnt/p fuse.osprof-fs ' "$src/docs/deploy.md")
[ -n "$line" ] || bad "docs/deploy.md has no fstab line"
echo "$line" >"$root/fstab"
gen=/lib/systemd/system-generators/systemd-fstab-generator
mkdir -p "$root/gen"
SYSTEMD_FSTAB=$root/fstab SYSTEMD_PROC_CMDLINE= "$gen" "$root/gen" "$root/gen" "$root/gen" 2>"$root/log" ||
	bad "systemd-fstab-generator: $(cat "$root/log")"
mu=$root/gen/mnt-p.mount
if [ -f "$mu" ]; then
	grep -qx 'Type=fuse.osprof-fs' "$mu" || bad "mnt-p.mount: $(cat "$mu")"
	grep -qx 'What=/data' "$mu" || bad "mnt-p.mount has no What=/data"
	grep -q 'RequiresMountsFor=/data' "$mu" || bad "mnt-p.mount does not require /data's mount"
	cp "$mu" "$root/etc/systemd/system/"
	out=$(systemd-analyze verify --man=no --root="$root" mnt-p.mount 2>&1)
	[ $? -eq 0 ] && [ -z "$out" ] || bad "systemd-analyze verify mnt-p.mount: $out"
else
	bad "systemd-fstab-generator made no mnt-p.mount: $(ls "$root/gen")"
fi
exit $fail
