#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# "make bench": what writing an event with libtracebuf costs, next to a
# floor and to LTTng-UST, on the host without the module: the engine
# writes into a memfd (userlib/bench/bench.c says what each figure is and
# how it is timed).
#
#   bench.sh [--rounds N] [--run-ms MS] [--no-lttng] [--no-guest]
#   bench.sh --arch arm64
#       tb-bench cross-built for arm64 (static) and run under qemu-aarch64,
#       one short round, without LTTng: a check that the benchmark and the
#       library work there (e.g. the counter timebase); emulated timings
#       mean nothing, and it says so.  Exit 0 when it ran.
#
# 1. installs what is missing of make, gcc, libc6-dev, pkgconf, valgrind,
#    liblttng-ust-dev and lttng-tools with apt-get when root (apt-get
#    update only if apt cannot find them); otherwise it says what is
#    missing and goes on without LTTng;
# 2. builds libtracebuf.a, libposixtrace.a and userlib/bench into .build/bench/;
# 3. starts a user-level LTTng session daemon of its own (LTTNG_HOME in a
#    temporary directory; as root, the daemon and the benchmark run as
#    "nobody", since root's daemon would be the system-wide one in
#    /var/run/lttng), a session whose channel has per-UID buffers, discard
#    mode and 4 sub-buffers of 16 MiB per CPU, enables tb_bench:instant
#    and starts it;
# 4. runs tb-bench (N rounds, default 7, of about MS ms, default 250,
#    per figure; 30 s to a minute in all), stops the session and reads
#    the channel's discarded-event count (lttng list, and the warning of
#    lttng stop): the LTTng figure is INVALID unless it is 0;
#    then "tb-bench --insns" under valgrind --tool=callgrind (a few
#    seconds): instructions per event, which neither the machine nor its
#    load changes, from the totals of the dumps it asks for;
# 5. prints the final table (figure, median, spread, target, PASS/MISS)
#    and kills the session daemon and its consumer (also on failure);
# 6. unless --no-guest, boots the test kernel (scripts/check.sh
#    --programs wake_vmtest, about a minute and a half) and prints the
#    latency from posix_trace_event() to a blocked
#    posix_trace_getnext_event() returning, median and p99, next to a
#    pipe's write to a blocked read in the same run (the one figure that
#    needs the module); the event posted by another thread, then by
#    another process (wake_latency_process).
#
# A missed target is a result, not an error: the exit status is 0 when
# every figure was measured, 1 when one could not be (LTTng missing or
# its setup failed, discarded events), 2 when nothing could be built or
# run.
set -euo pipefail

. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

ROUNDS=7
RUN_MS=250
WANT_LTTNG=1
WANT_GUEST=1
ARCH=''
while [ $# -gt 0 ]; do
	case $1 in
	--arch) ARCH=$2; shift ;;
	--rounds) ROUNDS=$2; shift ;;
	--run-ms) RUN_MS=$2; shift ;;
	--no-lttng) WANT_LTTNG=0 ;;
	--no-guest) WANT_GUEST=0 ;;
	*) tb_die "unknown argument '$1' (see the comment at the top of $0)" ;;
	esac
	shift
done

OUT=$TB_BUILD/bench
SESSION=tb-bench
t_start=$(date +%s)

if [ -n "$ARCH" ]; then
	[ "$ARCH" = arm64 ] || tb_die "--arch: only arm64 (the host's is measured without it)"
	"$TB_ROOT/scripts/install-deps.sh" --target arm64-6.1 >&2 ||
		tb_die "missing packages (see above)"
	OUT=$TB_BUILD/bench-arm64
	make -C "$TB_ROOT/userlib/bench" O="$OUT" LIBTRACEBUF_O="$OUT" \
		CC=aarch64-linux-gnu-gcc LDFLAGS=-static LTTNG=0 >&2 ||
		tb_die "the arm64 benchmark did not build"
	echo "bench: arm64 under qemu-aarch64 (user-mode emulation): this run checks that"
	echo "bench: tb-bench and libtracebuf work on arm64; its timings mean nothing"
	rm -f "$OUT/results"
	qemu-aarch64 "$OUT/tb-bench" --rounds 1 --run-ms 50 --results "$OUT/results" ||
		tb_die "tb-bench failed on arm64 (exit $?)"
	rc=0
	qemu-aarch64 "$OUT/tb-bench" --report "$OUT/results" || rc=$?
	# 1: LTTng not measured, which it never is here
	[ $rc -le 1 ] || tb_die "tb-bench --report failed on arm64 (exit $rc)"
	echo "bench: arm64 ran in $(( $(date +%s) - t_start )) s; emulated timings, not figures"
	exit 0
fi

# ---------------------------------------------------------------------
# Packages

# valgrind: callgrind counts the instructions, and tb-bench includes its
# valgrind/callgrind.h for the client requests
BUILD_PKGS=(make gcc libc6-dev pkgconf valgrind)
LTTNG_PKGS=(liblttng-ust-dev lttng-tools)

missing_of() {
	local p status
	for p in "$@"; do
		status=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)
		[ "$status" = installed ] || printf '%s\n' "$p"
	done
}

want=("${BUILD_PKGS[@]}")
[ $WANT_LTTNG = 0 ] || want+=("${LTTNG_PKGS[@]}")
mapfile -t missing < <(missing_of "${want[@]}")
if [ ${#missing[@]} -gt 0 ]; then
	if [ "$(id -u)" -eq 0 ]; then
		tb_log "installing ${missing[*]}"
		export DEBIAN_FRONTEND=noninteractive
		if ! apt-get install -y -q --no-install-recommends "${missing[@]}" >&2; then
			apt-get update -q >&2 || true
			apt-get install -y -q --no-install-recommends "${missing[@]}" >&2 ||
				tb_log "apt-get install ${missing[*]} failed"
		fi
	else
		tb_log "missing Debian packages: ${missing[*]}"
		tb_log "install them as root:  apt-get update &&" \
		       "apt-get install --no-install-recommends ${missing[*]}"
	fi
	mapfile -t missing < <(missing_of "${want[@]}")
fi
for p in "${missing[@]}"; do
	case " ${BUILD_PKGS[*]} " in
	*" $p "*) tb_die "cannot build the benchmark without $p" ;;
	esac
done

lttng_setup=ok
if [ $WANT_LTTNG = 0 ]; then
	lttng_setup="failed: not requested (--no-lttng)"
elif [ ${#missing[@]} -gt 0 ]; then
	lttng_setup="failed: not installed (${missing[*]})"
fi
lttng_build=0
[ "$lttng_setup" != ok ] || lttng_build=1

# ---------------------------------------------------------------------
# Build

tb_log "building libtracebuf and the benchmark (LTTng: $lttng_build)"
make -C "$TB_ROOT/userlib/lib" libtracebuf.a >&2 || tb_die "libtracebuf did not build"
make -C "$TB_ROOT/userlib/bench" O="$OUT" LTTNG=$lttng_build >&2 ||
	tb_die "the benchmark did not build"

# ---------------------------------------------------------------------
# The LTTng session daemon, ours alone

TMP=$(mktemp -d /tmp/tb-bench.XXXXXX)
sessiond_pid=
cleanup() {
	local kids=() p
	if [ -n "$sessiond_pid" ] && kill -0 "$sessiond_pid" 2>/dev/null; then
		lt lttng destroy "$SESSION" >/dev/null 2>&1 || true
		# its helper and the consumer daemons (children of children)
		mapfile -t kids < <(descendants "$sessiond_pid")
		kill -TERM "$sessiond_pid" 2>/dev/null || true
		for _ in $(seq 50); do
			kill -0 "$sessiond_pid" 2>/dev/null || break
			sleep 0.1
		done
		kill -KILL "$sessiond_pid" 2>/dev/null || true
		for p in "${kids[@]}"; do
			kill -TERM "$p" 2>/dev/null || continue
			for _ in $(seq 20); do
				kill -0 "$p" 2>/dev/null || break
				sleep 0.1
			done
			kill -KILL "$p" 2>/dev/null || true
		done
	fi
	rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

descendants() {
	local p
	for p in $(pgrep -P "$1" || true); do
		printf '%s\n' "$p"
		descendants "$p"
	done
}

# As root the session daemon would be the system's (/var/run/lttng), so
# it and the traced benchmark run as nobody, in TMP.
RUN_AS=()
if [ "$(id -u)" -eq 0 ]; then
	RUN_AS=(setpriv --reuid=nobody --regid=nogroup --clear-groups)
	chown nobody:nogroup "$TMP"
fi
lt() { "${RUN_AS[@]}" env LTTNG_HOME="$TMP" HOME="$TMP" "$@"; }

cp "$OUT/tb-bench" "$TMP/tb-bench"
[ ${#RUN_AS[@]} -eq 0 ] || chown nobody:nogroup "$TMP/tb-bench"

# lttng_step WHAT CMD...: run an lttng command, logging it; on failure
# record why in lttng_setup.
lttng_step() {
	local what=$1
	shift
	[ "$lttng_setup" = ok ] || return 0
	if ! lt "$@" >>"$TMP/lttng.log" 2>&1; then
		lttng_setup="failed: $what (its output is above)"
		tb_log "LTTng: $what failed:"
		sed 's/^/    /' "$TMP/lttng.log" >&2
	fi
}

if [ "$lttng_setup" = ok ]; then
	tb_log "starting a private lttng-sessiond (LTTNG_HOME=$TMP${RUN_AS:+, as nobody})"
	lttng_step "lttng-sessiond --daemonize" lttng-sessiond --daemonize --no-kernel
	if [ "$lttng_setup" = ok ]; then
		sessiond_pid=$(cat "$TMP/.lttng/lttng-sessiond.pid" 2>/dev/null || true)
		[ -n "$sessiond_pid" ] || lttng_setup="failed: no lttng-sessiond.pid in $TMP/.lttng"
	fi
	lttng_step "lttng create" lttng create "$SESSION" --output="$TMP/trace"
	lttng_step "lttng enable-channel" lttng enable-channel --userspace --session="$SESSION" \
		--buffers-uid --discard --subbuf-size=16M --num-subbuf=4 tbch
	lttng_step "lttng enable-event" lttng enable-event --userspace --session="$SESSION" \
		--channel=tbch tb_bench:instant
	lttng_step "lttng start" lttng start "$SESSION"
fi

# ---------------------------------------------------------------------
# Measure

tb_log "running tb-bench: $ROUNDS rounds of ~$RUN_MS ms per figure"
echo
bench_rc=0
lt "$TMP/tb-bench" --rounds "$ROUNDS" --run-ms "$RUN_MS" --results "$TMP/results" || bench_rc=$?
[ $bench_rc = 0 ] || tb_die "tb-bench failed (exit $bench_rc)"

discarded=
if [ "$lttng_setup" = ok ]; then
	stop_out=$(lt lttng stop "$SESSION" 2>&1) || lttng_setup="failed: lttng stop: $stop_out"
	list_out=$(lt lttng list "$SESSION" 2>&1) || true
	# "Discarded events: N" per channel; lttng stop warns with the total
	discarded=$(printf '%s\n' "$list_out" |
		    awk '/Discarded events:/ { n += $NF; seen = 1 } END { if (seen) print n }')
	warned=$(printf '%s\n' "$stop_out" |
		 sed -n 's/.*Warning: \([0-9]*\) events were discarded.*/\1/p' | head -n 1)
	if [ -n "$warned" ] && { [ -z "$discarded" ] || [ "$warned" -gt "$discarded" ]; }; then
		discarded=$warned
	fi
	if [ -z "$discarded" ]; then
		lttng_setup="failed: lttng list showed no discarded-event count"
		printf '%s\n' "$list_out" | sed 's/^/    /' >&2
	fi
	{
		echo "lttng_discarded ${discarded:-unknown}"
		echo "lttng_trace_bytes $(du -sb "$TMP/trace" 2>/dev/null | cut -f1 || echo 0)"
	} >>"$TMP/results"
fi
echo "lttng_setup $lttng_setup" >>"$TMP/results"

# Instructions per event: each dump "insns.KEY N" holds the counts of N
# events; written as "key median min max" (one run: the three alike).
# Threads apart, and only the main thread's (-01), which runs the loops:
# LTTng-UST's threads talk to the session daemon meanwhile.
tb_log "counting instructions per event under valgrind --tool=callgrind"
insns_rc=0
lt valgrind --tool=callgrind --separate-threads=yes --callgrind-out-file="$TMP/callgrind.%p" \
	"$TMP/tb-bench" --insns >"$TMP/insns.log" 2>&1 || insns_rc=$?
if [ $insns_rc != 0 ]; then
	sed 's/^/    /' "$TMP/insns.log" >&2
	tb_die "tb-bench --insns failed under callgrind (exit $insns_rc)"
fi
awk '/^desc: Trigger: Client Request: insns\./ { key = $5; n = $6 }
     /^summary:/ && key != "" { v = $2 / n; printf "%s %.1f %.1f %.1f\n", key, v, v, v; key = "" }' \
	"$TMP"/callgrind.*.*-01 >>"$TMP/results"

report_rc=0
"$TMP/tb-bench" --report "$TMP/results" || report_rc=$?

# ---------------------------------------------------------------------
# The POSIX wake-up latency: in the guest, as the stream needs the module

wake_rc=0
if [ "$WANT_GUEST" = 1 ]; then
	wake_log=$TB_BUILD/bench-wake.log
	wake_out=$(tb_guest_bench wake_vmtest "$wake_log" --env TB_BENCH_TRIPS=500 \
		   --timeout 300) || wake_rc=$?
	echo
	echo "POSIX trace, posix_trace_event() to a blocked posix_trace_getnext_event(), in the guest:"
	if [ -n "$wake_out" ] && grep -q '^# wake_latency:' "$wake_out" &&
	   grep -q '^# wake_latency_process:' "$wake_out"; then
		sed -n 's/^# \(.* median .*\)/  \1/p;s/^# \(wake_latency[a-z_]*:.*\)/  \1/p' \
			"$wake_out"
	else
		tail -n 20 "$wake_log" >&2
		tb_log "the wake-up latency could not be measured (see $wake_log)"
		wake_rc=1
	fi
fi
echo "bench: $(( $(date +%s) - t_start )) s wall time"
case $report_rc in
0) [ $wake_rc = 0 ] || exit 1 ;;
1) tb_log "some figures could not be measured (see above)"; exit 1 ;;
*) tb_die "tb-bench --report failed (exit $report_rc)" ;;
esac
