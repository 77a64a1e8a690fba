# SPDX-License-Identifier: GPL-2.0
# Helpers shared by the scripts in this directory; sourced, not run.
# shellcheck shell=bash

TB_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
TB_BUILD=${TB_BUILD:-$TB_ROOT/.build}

tb_log() { printf '%s: %s\n' "${0##*/}" "$*" >&2; }
tb_die() { printf '%s: error: %s\n' "${0##*/}" "$*" >&2; exit 2; }

# tb_find_kernel SERIES: print "IMAGE KDIR MODDIR" for the newest Debian
# kernel of SERIES (e.g. 6.1) that has an image in /boot, a build tree
# and a modules directory.  Nothing is hard-coded beyond the series.
tb_find_kernel() {
	local series=$1 img ver
	while read -r img; do
		[ -f "$img" ] || continue
		ver=${img#/boot/vmlinuz-}
		if [ -f "/lib/modules/$ver/build/Makefile" ] &&
		   [ -f "/lib/modules/$ver/modules.dep" ]; then
			[ -r "$img" ] || tb_die "$img is not readable (run as root or chmod a+r it)"
			printf '%s %s %s\n' "$img" "/lib/modules/$ver/build" "/lib/modules/$ver"
			return 0
		fi
	done < <(printf '%s\n' /boot/vmlinuz-"$series".*-amd64 | sort -V -r)
	tb_die "no Debian $series kernel with headers found (need /boot/vmlinuz-$series.*-amd64 and /lib/modules/<ver>/build; run scripts/install-deps.sh)"
}

# tb_build_module KDIR DIR [MAKEARGS...]: copy the module sources into
# DIR/src (so builds for different kernels never share objects with each
# other or with the tree) and build them there.  Prints the .ko path.
tb_build_module() {
	local kdir=$1 dir=$2 ko
	shift 2
	[ -f "$TB_ROOT/Kbuild" ] || tb_die "no Kbuild at the top of $TB_ROOT: nothing to build"
	[ -f "$kdir/Makefile" ] || tb_die "KDIR $kdir is not a kernel build tree (no Makefile)"
	rm -rf "$dir/src"
	mkdir -p "$dir/src"
	tar -C "$TB_ROOT" --exclude=./.git --exclude=./.build --exclude=./selftests \
	    --exclude='*.o' --exclude='*.ko' --exclude='*.mod' --exclude='*.mod.c' \
	    --exclude='.*.cmd' --exclude=Module.symvers --exclude=modules.order \
	    -cf - . | tar -C "$dir/src" -xf -
	tb_log "building the module against $kdir"
	make -C "$kdir" M="$dir/src" "$@" modules >&2 ||
		tb_die "module build against $kdir failed"
	ko=$dir/src/module/tracebuf.ko
	[ -f "$ko" ] || tb_die "the build did not produce module/tracebuf.ko"
	printf '%s\n' "$ko"
}

# tb_kernel_release KDIR: the release (uname -r) a build tree builds for.
tb_kernel_release() {
	sed -n 's/^#define UTS_RELEASE "\(.*\)"$/\1/p' "$1/include/generated/utsrelease.h" 2>/dev/null | grep . ||
		cat "$1/include/config/kernel.release" 2>/dev/null
}
