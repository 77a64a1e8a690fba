#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# "make bench-sched": what the kernel provider's scheduler hooks cost a
# context switch, next to ftrace's sched_switch, in the guest
# (userlib/ctl/tests/vm/kbench_vmtest.c says what each figure is).  The
# rates are emulated and mean little alone: read the ratios, measured
# side by side in one run.
#
#   bench-sched.sh [--rounds N] [--trips N] [--target NAME] [--debug]
#       N rounds (default 5) of N round trips (default 10000, two context
#       switches each) per configuration; the target as "make check"
#       takes it (default x86_64-6.1), or the debug kernel.
#
# Prints the table; exit 0 when it was measured.
set -euo pipefail

. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

rounds=5 trips=10000 args=()
while [ $# -gt 0 ]; do
	case $1 in
	--rounds) rounds=$2; shift ;;
	--trips) trips=$2; shift ;;
	--target) args+=(--target "$2"); shift ;;
	--debug) args+=(--debug) ;;
	*) tb_die "unknown argument '$1'" ;;
	esac
	shift
done
[[ $rounds =~ ^[0-9]+$ && $trips =~ ^[0-9]+$ ]] || tb_die "--rounds and --trips take numbers"

log=$TB_BUILD/bench-sched.log
status=0
# the program's output, as the guest left it in this run
out=$(tb_guest_bench kbench_vmtest "$log" "${args[@]}" \
	--env TB_BENCH_ROUNDS="$rounds" --env TB_BENCH_TRIPS="$trips" \
	--timeout $((rounds * 4 * (trips / 500 + 5) + 120))) || status=$?
if [ -z "$out" ]; then
	tail -n 20 "$log" >&2
	tb_die "the benchmark did not run (see $log)"
fi
sed -n 's/^# //p' "$out" | sed -n '/round(s) of/,/^switch_rates:/p;/recorded .* switches/p' |
	grep -v '^switch_rates:'
[ $status = 0 ] || tb_die "the benchmark failed (see $log and $out)"
