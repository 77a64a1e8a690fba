#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Install the Debian 12 packages that building and testing tracebuf need.
# Runs apt-get only when something is missing.
#
#   scripts/install-deps.sh           install what is missing (needs root)
#   scripts/install-deps.sh --list    print the package list and exit
set -euo pipefail

# make/gcc/libc6-dev: build; linux-headers-amd64: module build tree;
# linux-image-amd64: the kernel booted in QEMU (with its virtio/9p modules);
# qemu-system-x86, busybox-static, cpio: the test VM; gcc-multilib: 32-bit
# selftests; libmnl-dev: genetlink client code; sparse, perl,
# linux-source-6.1 (checkpatch.pl, kselftest headers): lint and selftests;
# xz-utils: the source and debug-kernel tarballs; pkgconf: the libtracebuf
# install test; g++ and clang: the public headers are checked as C++ and
# with clang (userlib/tests/headers_test.sh, cxx_test.cpp).  gcc's ASan and
# UBSan runtimes (libasan8, libubsan1) come with gcc.
PACKAGES=(make gcc g++ clang libc6-dev perl xz-utils cpio busybox-static
	  qemu-system-x86 linux-image-amd64 linux-headers-amd64
	  linux-source-6.1 gcc-multilib libmnl-dev sparse pkgconf)

if [ "${1:-}" = --list ]; then
	printf '%s\n' "${PACKAGES[@]}"
	exit 0
fi

missing=()
for p in "${PACKAGES[@]}"; do
	status=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)
	[ "$status" = installed ] || missing+=("$p")
done

if [ ${#missing[@]} -eq 0 ]; then
	exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
	echo "install-deps.sh: missing Debian packages: ${missing[*]}" >&2
	echo "install-deps.sh: run as root:  apt-get update && apt-get install --no-install-recommends ${missing[*]}" >&2
	exit 1
fi

echo "install-deps.sh: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
apt-get install -y -q --no-install-recommends "${missing[@]}"
