#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# /init of the tracebuf test VM.  scripts/vm-run.sh puts this file, a static
# busybox and the virtio/9p modules (when they are not built in) into an
# initramfs.  It mounts the host's work directory (9p tag "tbshare") on
# /mnt, loads /mnt/tracebuf.ko, runs every program named in /mnt/run.conf
# from /mnt/tests with a timeout, stores each program's stdout, stderr and
# exit status in /mnt/out, unloads the module, optionally scans for leaks
# with kmemleak, saves dmesg and powers off.  Each step writes a marker
# ("tracebuf-vm: ...") into the kernel log so that the host can tell which
# test a kernel warning belongs to.  The host parses the results.
#
# busybox ash, PID 1: no "set -e", nothing here may exit.

export PATH=/usr/sbin:/usr/bin:/sbin:/bin
/bin/busybox --install -s

say() { echo "tracebuf-vm: $*"; }
mark() { echo "tracebuf-vm: $*" > /dev/kmsg; }

poweroff_now() {
	sync
	poweroff -f
	sleep 5
	echo o > /proc/sysrq-trigger
	sleep 30
}

mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
# The initramfs has no /dev/console node (it is built without root), so
# the kernel could not give us a console: take it now.
exec < /dev/null > /dev/console 2>&1
mkdir -p /dev/pts /dev/shm /tmp /run /mnt
mount -t devpts devpts /dev/pts
mount -t tmpfs tmpfs /dev/shm
# /tmp is a tmpfs that starts with what the initramfs holds there: the
# libraries of a dynamically linked program that lives under the host's
# /tmp (vm-run.sh copies them to the same paths).
if [ -n "$(ls -A /tmp 2>/dev/null)" ]; then
	mv /tmp /.tmp-initramfs
	mkdir /tmp
	mount -t tmpfs tmpfs /tmp
	cp -a /.tmp-initramfs/. /tmp/ && rm -rf /.tmp-initramfs
else
	mount -t tmpfs tmpfs /tmp
fi
mount -t tmpfs tmpfs /run
mount -t debugfs debugfs /sys/kernel/debug
mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
say "booted $(uname -r) after $(cut -d' ' -f1 /proc/uptime) s"

# Modules for the 9p share, in dependency order (empty if built in).
while read -r m; do
	[ -n "$m" ] || continue
	out=$(insmod "/lib/tb-modules/$m" 2>&1) || case "$out" in
		*"File exists"*) ;;
		*) say "insmod $m failed: $out" ;;
	esac
done < /lib/tb-modules/order

i=0
until mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144 tbshare /mnt 2>/dev/null; do
	i=$((i + 1))
	if [ $i -ge 20 ]; then
		say "FATAL: cannot mount the 9p share tbshare"
		poweroff_now
	fi
	sleep 1
done

# TB_TESTS, TB_TIMEOUT, TB_KMEMLEAK, TB_GCOV, TB_MODULE_ARGS, TB_TIMEOUT_MULT (for
# the programs' own alarms), and what --env exports (TB_TESTS_WRITABLE,
# for this script only)
. /mnt/run.conf

# The programs again, read-only and cached: a test may run tracebufctl a
# hundred times, and the share (uncached, for out/) reads a 1.6 MB
# program in 3 s on the debug kernel.  Not with TB_TESTS_WRITABLE=1
# (scripts/run.sh): there /mnt/tests is the programs' working directory,
# where they write, and what they wrote goes back to the host.
if [ "${TB_TESTS_WRITABLE:-0}" = 1 ]; then
	say "the programs' directory /mnt/tests is writable (uncached)"
else
	mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144,cache=loose,ro tbtests \
		/mnt/tests 2>/dev/null || say "the cached programs (tbtests) not mounted: reading /mnt/tests"
fi
unset TB_TESTS_WRITABLE
OUT=/mnt/out
# a test may leave traces here, *.fxt, for vm-results.sh's second reader
export TB_OUT=$OUT
KO=/mnt/tracebuf.ko
LEAKS=/sys/kernel/debug/kmemleak
# gcov counters of the programs (built with --coverage): each one writes
# its .gcda files under this prefix, at its objects' host paths
if [ "${TB_GCOV:-0}" = 1 ]; then
	export GCOV_PREFIX=/tmp/tb-gcov
	mkdir -p $GCOV_PREFIX
	chmod 1777 $GCOV_PREFIX
fi

if [ "$TB_KMEMLEAK" = 1 ]; then
	if [ -e $LEAKS ]; then
		# Forget what was leaked while booting; scan only when asked.
		say "kmemleak: scanning once to forget leaks from boot"
		echo scan=off > $LEAKS
		echo scan > $LEAKS
		echo clear > $LEAKS
	else
		say "kmemleak requested but $LEAKS does not exist"
		echo "kmemleak is not available in this kernel" > $OUT/kmemleak.missing
	fi
fi

mark "begin"
say "loading $KO"
mark "phase insmod"
# shellcheck disable=SC2086 # the parameters, one per word
insmod $KO ${TB_MODULE_ARGS:-} > $OUT/insmod.log 2>&1
echo $? > $OUT/insmod.rc

if [ "$(cat $OUT/insmod.rc)" = 0 ]; then
	cd /mnt/tests || say "FATAL: no /mnt/tests"
	for t in $TB_TESTS; do
		say "running $t (timeout ${TB_TIMEOUT}s)"
		mark "test $t start"
		start=$(date +%s)
		TRACEBUF_KO=$KO timeout -k 5 "$TB_TIMEOUT" "./$t" \
			> "$OUT/$t.stdout" 2> "$OUT/$t.stderr"
		rc=$?
		elapsed=$(($(date +%s) - start))
		mark "test $t end rc=$rc"
		# Reap whatever the test left behind (forked children).
		kill -9 -1 2>/dev/null
		# counters that a later test's unprivileged process adds to
		[ "${TB_GCOV:-0}" != 1 ] || chmod -R a+rwX /tmp/tb-gcov
		echo "$rc $elapsed" > "$OUT/$t.rc"
		say "$t: exit $rc after ${elapsed}s"
		if [ ! -d /sys/module/tracebuf ]; then
			say "$t left the module unloaded; loading it again"
			echo "$t" >> $OUT/unloaded
			mark "phase insmod after $t"
			# shellcheck disable=SC2086
			insmod $KO ${TB_MODULE_ARGS:-} >> $OUT/insmod.log 2>&1
		fi
	done
	cd /
	mark "phase rmmod"
	rmmod tracebuf > $OUT/rmmod.log 2>&1
	echo $? > $OUT/rmmod.rc
fi

# The module's counters outlive rmmod (until the next load): copy them
# and the programs' out, read through cat (debugfs sizes are 0).
if [ "${TB_GCOV:-0}" = 1 ]; then
	say "gcov: copying the counters"
	mkdir -p $OUT/gcov/kernel $OUT/gcov/user
	find /sys/kernel/debug/gcov -name '*.gcda' 2>/dev/null | while read -r f; do
		d=$OUT/gcov/kernel${f#/sys/kernel/debug/gcov}
		mkdir -p "${d%/*}" && cat "$f" > "$d"
	done
	n=$(find $OUT/gcov/kernel -name '*.gcda' | wc -l)
	cp -a /tmp/tb-gcov/. $OUT/gcov/user/ 2>/dev/null
	say "gcov: $n module files, $(find /tmp/tb-gcov -name '*.gcda' | wc -l) program files"
	unset GCOV_PREFIX
fi

if [ "$TB_KMEMLEAK" = 1 ] && [ -e $LEAKS ]; then
	# kmemleak only reports objects older than 5 s, and an object may
	# need a second scan to be found unreferenced.
	say "kmemleak: scanning"
	mark "phase leak-scan"
	sleep 6
	echo scan > $LEAKS
	sleep 2
	echo scan > $LEAKS
	cat $LEAKS > $OUT/kmemleak.txt
fi

mark "end"
dmesg > $OUT/dmesg.txt
echo finished > $OUT/done
say "done"
poweroff_now
