#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Load and unload tracebuf.ko many times with /dev/tracebuf used in
# between (tb_churn), and check that rmmod fails while a file, a buffer
# handle or a mapping is still alive, and that it succeeds with the kernel
# provider registered.  Leaves the module loaded.
#
#   TRACEBUF_KO=/path/to/tracebuf.ko ./insmod_test.sh
#   TRACEBUF_CYCLES=50 (default)
#
# POSIX sh (busybox ash is enough).  KTAP output; exit 0, 1, or 4 (skip).

DIR=$(cd "$(dirname "$0")" && pwd)
CHURN="$DIR/tb_churn"
CYCLES=${TRACEBUF_CYCLES:-50}
DEV=/dev/tracebuf
NTESTS=7
n=0
nfail=0

echo "TAP version 13"

skip_all() {
	echo "1..0 # SKIP $1"
	exit 4
}

ok() {
	n=$((n + 1))
	echo "ok $n $1"
}

not_ok() {
	n=$((n + 1))
	nfail=$((nfail + 1))
	echo "not ok $n $1"
}

# result NAME ERROR: ok when ERROR is empty
result() {
	if [ -z "$2" ]; then
		ok "$1"
	else
		echo "# $1: $2"
		not_ok "$1"
	fi
}

[ -n "$TRACEBUF_KO" ] || skip_all "TRACEBUF_KO is not set"
[ "$(id -u)" = 0 ] || skip_all "must be run as root"
echo "1..$NTESTS"
if [ ! -f "$TRACEBUF_KO" ] || [ ! -x "$CHURN" ]; then
	echo "# missing $TRACEBUF_KO or $CHURN"
	while [ $n -lt $NTESTS ]; do not_ok "setup"; done
	exit 1
fi

loaded() {
	[ -d /sys/module/tracebuf ]
}

# wait up to 5 s for the device node (devtmpfs creates it)
wait_dev() {
	wd_tries=0
	while [ ! -c $DEV ] && [ $wd_tries -lt 50 ]; do
		sleep 0.1 2>/dev/null || sleep 1
		wd_tries=$((wd_tries + 1))
	done
	[ -c $DEV ]
}

load() {
	insmod "$TRACEBUF_KO" || return 1
	wait_dev
}

unload() {
	rmmod tracebuf 2>/dev/null
}

# 1: the module loaded by the runner has no users left
err=""
if loaded && ! unload; then
	err="rmmod of the already loaded module failed"
fi
result unload_initial "$err"

# 2: load, use, unload
err=""
cycle=1
while [ $cycle -le "$CYCLES" ]; do
	if ! load; then
		err="cycle $cycle: insmod failed or no $DEV"
		break
	fi
	if ! "$CHURN" >/dev/null; then
		err="cycle $cycle: tb_churn failed"
		break
	fi
	if ! unload; then
		err="cycle $cycle: rmmod failed after tb_churn exited"
		break
	fi
	cycle=$((cycle + 1))
done
result insmod_rmmod_cycles "$err"
loaded || load

# 3: an open file pins the module
err=""
if ! loaded && ! load; then
	err="insmod failed"
elif ! (exec 3<>$DEV) 2>/dev/null; then
	err="cannot open $DEV"
else
	exec 3<>$DEV
	if unload; then
		err="rmmod succeeded with $DEV open"
		load
	fi
	exec 3>&-
	[ -n "$err" ] || unload || err="rmmod failed after close"
fi
result rmmod_busy_with_open_file "$err"

# hold MODE NAME: tb_churn MODE keeps one object alive; rmmod must fail
hold() {
	err=""
	tmp=$(mktemp -d) || { result "$2" "mktemp failed"; return; }
	mkfifo "$tmp/in"
	loaded || load || err="insmod failed"
	if [ -z "$err" ]; then
		"$CHURN" "$1" < "$tmp/in" > "$tmp/out" &
		pid=$!
		exec 4>"$tmp/in"
		tries=0
		while ! grep -q ready "$tmp/out" 2>/dev/null &&
		      [ $tries -lt 100 ]; do
			if ! kill -0 $pid 2>/dev/null; then
				break
			fi
			sleep 0.1 2>/dev/null || sleep 1
			tries=$((tries + 1))
		done
		if ! grep -q ready "$tmp/out" 2>/dev/null; then
			err="tb_churn $1 did not get ready"
		elif unload; then
			err="rmmod succeeded while tb_churn $1 held the module"
		fi
		exec 4>&-
		wait $pid || [ -n "$err" ] || err="tb_churn $1 failed"
		if [ -z "$err" ] && ! unload; then
			err="rmmod failed after tb_churn $1 exited"
		fi
	fi
	rm -rf "$tmp"
	result "$2" "$err"
}

# 4, 5
hold hold-buffer rmmod_busy_with_buffer_handle
hold hold-map rmmod_busy_with_mapping

# 6: the kernel provider is registered by default; unloading removes it
err=""
loaded && unload
if ! insmod "$TRACEBUF_KO" || ! wait_dev; then
	err="insmod failed"
elif [ "$(cat /sys/module/tracebuf/parameters/kernel_provider)" != Y ]; then
	err="kernel_provider reads $(cat /sys/module/tracebuf/parameters/kernel_provider) by default"
elif [ -x ./tracebufctl ] && ! ./tracebufctl list | grep -qw kernel; then
	err="no provider 'kernel' in the registry by default"
elif ! "$CHURN" >/dev/null; then
	err="tb_churn failed with the kernel provider"
elif ! unload; then
	err="rmmod failed with the kernel provider registered"
fi
result rmmod_with_kernel_provider "$err"

# 7: leave it loaded and working
err=""
if ! loaded && ! load; then
	err="final insmod failed"
elif ! "$CHURN" >/dev/null; then
	err="tb_churn failed after the final insmod"
fi
result final_insmod "$err"

echo "# Totals: pass:$((n - nfail)) fail:$nfail"
[ $nfail -eq 0 ] && exit 0
exit 1
