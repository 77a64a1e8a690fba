#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# "make bench-stream": how fast providers may write before a streaming
# recording loses events, for 256 KiB, 1 MiB and 4 MiB buffers and 1 and
# 4 providers and 16 MiB for 1, next to the oneshot write rate, with the
# manager's CPU per MiB and the save round trips, in the guest
# (userlib/ctl/tests/vm/sbench_vmtest.c says what each figure is).  The
# rates are emulated and mean little alone: read the fractions and
# ratios, measured side by side in one run.
#
# It ends with one writer's losses, unpaced and paced, RUNS runs each
# for 256 KiB, 1 MiB and 4 MiB, with the time to fill a half and the save
# round trips (what bounds a lossless writer).
#
#   bench-stream.sh [--steps N] [--runs RUNS] [--loss] [--target NAME] [--debug]
#       N bisection steps per configuration (default 5); RUNS runs of
#       each in the losses' table (default 3); --loss: that table only
#       (a few minutes); the target as "make check" takes it (default
#       x86_64-6.1), or the debug kernel.
#
# Prints the table; exit 0 when it was measured.
set -euo pipefail

. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

steps=5 runs=3 what=1 args=()
while [ $# -gt 0 ]; do
	case $1 in
	--steps) steps=$2; shift ;;
	--runs) runs=$2; shift ;;
	--loss) what=loss ;;
	--target) args+=(--target "$2"); shift ;;
	--debug) args+=(--debug) ;;
	*) tb_die "unknown argument '$1'" ;;
	esac
	shift
done
[[ $steps =~ ^[0-9]+$ ]] || tb_die "--steps takes a number"
[[ $runs =~ ^[1-9][0-9]*$ ]] || tb_die "--runs takes a number"

# Providers and manager on two host threads at once, as on a board: no
# tracepoint is toggled here, the code patching that single-threaded
# TCG guards against (vm-run.sh).
export TB_TCG_THREAD=${TB_TCG_THREAD:-multi}
log=$TB_BUILD/bench-stream.log
status=0
# the program's output, as the guest left it in this run
out=$(tb_guest_bench sbench_vmtest "$log" "${args[@]}" \
	--env TB_SBENCH="$what" --env TB_SBENCH_STEPS="$steps" --env TB_SBENCH_RUNS="$runs" \
	--timeout $((600 + steps * 300 + runs * 120))) || status=$?
if [ -z "$out" ]; then
	tail -n 20 "$log" >&2
	tb_die "the benchmark did not run (see $log)"
fi
sed -n 's/^# //p' "$out" | sed -n '/^full rate, oneshot/,$p' | grep -v '^streaming_accounts:\|^Totals:'
[ $status = 0 ] || tb_die "the benchmark failed (see $log and $out)"
