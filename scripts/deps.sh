#!/bin/bash
# SPDX-License-Identifier: MIT
# Install what osprof needs on Debian 12: "deps.sh build" for building and
# running (clang, libbpf and bpftool build the eBPF layers; libmicrohttpd,
# protobuf-c and the .proto files of Prometheus's metrics and of the
# protobuf Timestamp it imports build osprof-exporter, with libyaml,
# GnuTLS and libcrypt for its web configuration), "deps.sh
# test" adds what the test suite needs (Criterion, the
# kernel image, headers, QEMU and busybox for the module's VM test,
# e2fsprogs for the ext4 disk osprof-fs is tested on in that VM,
# Chromium for the HTML report test, Python's prometheus_client for the
# hostile-profile test's OpenMetrics check, Prometheus itself for
# osprof-exporter's end-to-end test, curl and openssl for its TLS and
# basic auth tests (certificates made at test time), clang's libFuzzer
# runtime for the fuzz targets; man-db and groff for the install test's
# man -l), "deps.sh demo" adds the Linux sources, the default grep
# workload, "deps.sh bench" what bench/near.sh adds (fio, python3, and the Linux
# sources its tree comes from; g++ and libnuma-dev build the passthrough_hp
# of a libfuse source tree for --libfuse, with liburing-dev from build),
# "deps.sh deb" what dpkg-buildpackage and
# lintian need.
set -euo pipefail
want=${1:-build}
pkgs=(gcc meson ninja-build pkg-config libfuse3-dev fuse3 libjson-c-dev
      libsodium-dev libgsl-dev gnuplot-nox attr util-linux clang libbpf-dev
      bpftool libmicrohttpd-dev libprotobuf-c-dev protobuf-c-compiler
      golang-github-prometheus-client-model-dev libprotobuf-dev
      bash-completion liburing-dev libyaml-dev libgnutls28-dev libcrypt-dev)
case "$want" in
  build) ;;
  demo) pkgs+=(linux-source) ;;
  bench) pkgs+=(fio linux-source python3 g++ libnuma-dev) ;;
  test) pkgs+=(libcriterion-dev linux-headers-amd64 linux-image-amd64
               qemu-system-x86 busybox-static chromium libpng-dev kmod cpio
               xz-utils e2fsprogs python3 python3-prometheus-client
               libclang-rt-14-dev prometheus man-db groff-base curl
               openssl python3-yaml systemd util-linux) ;;
  deb) pkgs+=(dpkg-dev debhelper dh-dkms lintian systemd) ;;
  *) echo "usage: deps.sh build|demo|test|bench|deb" >&2; exit 2 ;;
esac
sudo=""
[ "$(id -u)" -eq 0 ] || sudo=sudo
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "osprof: installing ${missing[*]}" >&2
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
fi
