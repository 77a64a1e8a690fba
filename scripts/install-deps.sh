#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Install the Debian 12 packages that building and testing tracebuf need.
# Runs apt-get only when something is missing.
#
#   scripts/install-deps.sh           install what is missing (needs root)
#   scripts/install-deps.sh --target NAME
#                                     also what target NAME needs (lib.sh's
#                                     TB_TARGETS and TB_TARGETS_MORE): its
#                                     kernel, headers,
#                                     compilers and QEMU
#   scripts/install-deps.sh --list [--target NAME]
#                                     print the package list and exit
#
# A foreign target's kernel and busybox are not installed: they are
# unpacked ("apt-get download" + "dpkg-deb -x") into .build/targets/NAME/:
# of other architectures, the host gets only libc6 of arm64 and armhf
# (below, for the cross-built packages).  So is the PREEMPT_RT kernel
# (x86_64-6.1-rt), with its headers.
set -euo pipefail

. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# make/gcc/libc6-dev: build; linux-headers-amd64: module build tree;
# linux-image-amd64: the kernel booted in QEMU (with its virtio/9p modules);
# qemu-system-x86, busybox-static, cpio: the test VM; gcc-i686-linux-gnu and
# libc6-dev-i386-cross: the 32-bit test programs (not gcc-multilib, which
# Debian's cross compilers conflict with); sparse, perl,
# linux-source-6.1 (checkpatch.pl, kselftest headers): lint and selftests;
# xz-utils: the source and debug-kernel tarballs; pkgconf: the libtracebuf
# install test; g++ and clang: the public headers are checked as C++ and
# with clang (userlib/lib/tests/headers_test.sh, cxx_test.cpp).  gcc's ASan and
# UBSan runtimes (libasan8, libubsan1) come with gcc.  binutils' readelf:
# the VM runner refuses dynamic programs of a foreign architecture.
# groff-base, man-db: the man pages are rendered (man_test.sh,
# install-test.sh); bash-completion: the completion is tested with it too;
# udev (udevadm) and kmod (modinfo): the udev rule and the installed module
# (install-test.sh).  build-essential, dpkg-dev, debhelper, dh-dkms,
# dkms, lintian: "make deb", the packages' lint and their installation
# with DKMS (deb-test.sh; debian/control's Build-Depends).  zstd: compressed
# traces (userlib/ctl/tests/compress_test.sh; gzip is essential), here and
# in the guest (vm-run.sh copies it in: make run OUT=trace.fxt.zst).
# python3: scripts/fxt-check.py, the second FXT reader that checks the
# traces the guest leaves (vm-results.sh).  valgrind: "make bench" counts
# instructions per event with callgrind (scripts/bench.sh).  spin: the
# model of the provider protocol (make model, scripts/model.sh).  lcov:
# the coverage reports (make coverage, scripts/coverage.sh).  The
# packages cross-built for arm64 and armhf ("make deb DEB_HOST_ARCH=...",
# deb-test.sh --arch): their cross compilers and C libraries, libc6 of
# each (dpkg-shlibdeps reads its symbols from dpkg's database: arm64 and
# armhf are added to dpkg's architectures) and qemu-user, which runs what
# they install.
DEB_ARCHS=(arm64 armhf)
PACKAGES=(make gcc g++ clang libc6-dev perl xz-utils cpio busybox-static
	  qemu-system-x86 linux-image-amd64 linux-headers-amd64
	  linux-source-6.1 gcc-i686-linux-gnu libc6-dev-i386-cross sparse pkgconf binutils
	  groff-base man-db bash-completion udev kmod
	  build-essential dpkg-dev debhelper dh-dkms dkms lintian zstd python3 valgrind
	  spin lcov gcc-aarch64-linux-gnu gcc-arm-linux-gnueabihf libc6-dev-arm64-cross
	  libc6-dev-armhf-cross qemu-user libc6:arm64 libc6:armhf)

LIST=0 TARGET=''
while [ $# -gt 0 ]; do
	case $1 in
	--list) LIST=1 ;;
	--target) TARGET=$2; shift ;;
	*) tb_die "unknown argument '$1'" ;;
	esac
	shift
done

# What each target adds.  x86-64: its kernel and headers when not 6.1's;
# the PREEMPT_RT one (x86_64-6.1-rt) unpacked, not installed (below: it
# would become a kernel this machine boots).  arm64: cross compilers for
# the module (64-bit) and the test programs (64-bit and armhf, C and
# C++), with their C libraries, qemu-system-aarch64, and qemu-aarch64
# (qemu-user) for "make bench TARGET=arm64-6.1"; its kernel, headers and
# busybox are unpacked, not installed (below).  arm (armhf): the same for
# 32-bit ARM, one compiler for the module and the programs, and
# qemu-system-arm.  Every target: the C++ compiler of its 32-bit programs
# (a 32-bit target's own).
UNPACK=()
if [ -n "$TARGET" ]; then
	tb_target "$TARGET"
	case $TB_ARCH in
	x86_64)
		if [ "$TB_KROOT" != / ]; then
			UNPACK=("linux-image-$TB_KPKG" "linux-headers-$TB_KPKG")
		elif [ "$TB_SERIES" != 6.1 ]; then
			PACKAGES+=("linux-image-$TB_KPKG" "linux-headers-$TB_KPKG")
		fi ;;
	arm64)
		PACKAGES+=(gcc-aarch64-linux-gnu g++-aarch64-linux-gnu gcc-arm-linux-gnueabihf
			   libc6-dev-arm64-cross libc6-dev-armhf-cross qemu-system-arm
			   qemu-user)
		UNPACK=("linux-image-$TB_KPKG" "linux-headers-$TB_KPKG" busybox-static) ;;
	arm)
		PACKAGES+=(gcc-arm-linux-gnueabihf libc6-dev-armhf-cross qemu-system-arm)
		UNPACK=("linux-image-$TB_KPKG" "linux-headers-$TB_KPKG" busybox-static) ;;
	esac
	cxx32=${TB_CXX32:-$TB_CXX}
	PACKAGES+=("g++-${cxx32%-g++}")
fi

if [ $LIST = 1 ]; then
	printf '%s\n' "${PACKAGES[@]}"
	for p in "${UNPACK[@]}"; do
		echo "$p:$TB_KARCH (unpacked into .build/targets/$TARGET)"
	done
	exit 0
fi

missing=()
for p in "${PACKAGES[@]}"; do
	status=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)
	[ "$status" = installed ] || missing+=("$p")
done

# a foreign package needs its architecture in dpkg's list, and apt's
foreign=$(dpkg --print-foreign-architectures)
for a in "${DEB_ARCHS[@]}"; do
	grep -qx "$a" <<< "$foreign" && continue
	[ "$(id -u)" -eq 0 ] ||
		tb_die "dpkg does not know $a packages; as root: dpkg --add-architecture $a && apt-get update"
	echo "install-deps.sh: adding $a to dpkg's architectures" >&2
	dpkg --add-architecture "$a"
done

if [ ${#missing[@]} -gt 0 ]; then
	if [ "$(id -u)" -ne 0 ]; then
		echo "install-deps.sh: missing Debian packages: ${missing[*]}" >&2
		echo "install-deps.sh: run as root:  apt-get update && apt-get install --no-install-recommends ${missing[*]}" >&2
		exit 1
	fi
	echo "install-deps.sh: installing ${missing[*]}" >&2
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -q
	apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

[ ${#UNPACK[@]} -gt 0 ] || exit 0

# --- a foreign target's kernel and busybox, unpacked ---------------------------

# What is unpacked: the kernel, its headers, and (a foreign target's)
# busybox-static, all of the target's architecture A ($TB_KARCH).
A=$TB_KARCH
BUSYBOX_PKG=''
[ ${#UNPACK[@]} -lt 3 ] || BUSYBOX_PKG=${UNPACK[2]}

# depends_of PACKAGE [PATTERN]: the first dependency of PACKAGE (of
# architecture A) that matches PATTERN, e.g. the versioned package a
# metapackage stands for.
depends_of() {
	apt-cache depends "$1:$A" 2>/dev/null |
		sed -n "s/^ *Depends: <\\?\\([^:<>]*\\)\\(:$A\\)\\?>\\?\$/\\1/p" |
		grep -x -- "${2:-.*}" | head -n 1
}

image_meta=${UNPACK[0]} headers_meta=${UNPACK[1]}
if [ "$A" != "$(dpkg --print-architecture)" ] &&
   { ! grep -qx "$A" <<< "$(dpkg --print-foreign-architectures)" ||
     [ -z "$(depends_of "$image_meta")" ]; }; then
	[ "$(id -u)" -eq 0 ] ||
		tb_die "target $TARGET: apt does not know $A packages; as root: dpkg --add-architecture $A && apt-get update"
	echo "install-deps.sh: adding $A to apt's architectures" >&2
	grep -qx "$A" <<< "$(dpkg --print-foreign-architectures)" || dpkg --add-architecture "$A"
	apt-get update -q
fi

image=$(depends_of "$image_meta")
headers=$(depends_of "$headers_meta")
[ -n "$image" ] && [ -n "$headers" ] || tb_die "apt knows no $image_meta/$headers_meta (apt-get update?)"
# linux-headers-<abi>-common, or -common-rt for the RT flavours
common=$(depends_of "$headers" 'linux-headers-.*-common\(-rt\)\?')
[[ $common == linux-headers-*-common* ]] || tb_die "cannot tell the common headers $headers needs (got '$common')"
# The header tree's build scripts are the host's (linux-kbuild-*, amd64,
# Multi-Arch: foreign): the same version must be installed here.
kbuild_pkg=$(depends_of "$headers" 'linux-kbuild-.*')
[[ $kbuild_pkg == linux-kbuild-* ]] || tb_die "cannot tell the linux-kbuild $headers needs (got '$kbuild_pkg')"
if [ "$(dpkg-query -W -f='${db:Status-Status}' "$kbuild_pkg" 2>/dev/null || true)" != installed ]; then
	[ "$(id -u)" -eq 0 ] ||
		tb_die "missing $kbuild_pkg; as root: apt-get install --no-install-recommends $kbuild_pkg"
	echo "install-deps.sh: installing $kbuild_pkg" >&2
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "$kbuild_pkg"
fi
kver=${image#linux-image-}
kver=${kver%-unsigned}
pkgs=("$image:$A" "$headers:$A" "$common")
[ -z "$BUSYBOX_PKG" ] || pkgs+=("$BUSYBOX_PKG:$A")
want="$image $headers $common${BUSYBOX_PKG:+ $BUSYBOX_PKG} $(apt-cache policy "$image:$A" | sed -n 's/^ *Candidate: //p')"
if [ "$(cat "$TB_KROOT/.unpacked" 2>/dev/null || true)" = "$want" ]; then
	exit 0
fi

echo "install-deps.sh: unpacking ${pkgs[*]} into $TB_KROOT" >&2
dl=$TB_BUILD/targets/.download-$TARGET
rm -rf "$TB_KROOT" "$dl"
mkdir -p "$TB_KROOT" "$dl"
# apt's sandbox user must be able to write the download directory.
chmod 777 "$dl"
(cd "$dl" && apt-get download -q "${pkgs[@]}") >&2 ||
	tb_die "apt-get download failed"
for deb in "$dl"/*.deb; do
	dpkg-deb -x "$deb" "$TB_KROOT"
done
rm -rf "$dl"

# Make the header tree work where it is: its links to the build scripts
# point at the host's linux-kbuild, its Makefile at the common headers
# unpacked beside it, and the modules' build link at it.
kbuild=/usr/lib/$kbuild_pkg
[ -d "$kbuild/scripts" ] || tb_die "$kbuild has no scripts/ ($kbuild_pkg)"
src=$TB_KROOT/usr/src
for d in "$src/$headers" "$src/$common"; do
	for l in scripts tools; do
		[ ! -L "$d/$l" ] || ln -sfn "$kbuild/$l" "$d/$l"
	done
done
sed -i "s|^include /usr/src/$common/|include $src/$common/|" "$src/$headers/Makefile"
grep -q "^include $src/$common/" "$src/$headers/Makefile" ||
	tb_die "$src/$headers/Makefile does not include the common headers as expected"
ln -sfn "$src/$headers" "$TB_KROOT/lib/modules/$kver/build"
depmod -b "$TB_KROOT" "$kver"
[ -z "$BUSYBOX_PKG" ] || [ -x "$TB_KROOT/bin/busybox" ] ||
	tb_die "$BUSYBOX_PKG:$A has no bin/busybox"
echo "$want" > "$TB_KROOT/.unpacked"
