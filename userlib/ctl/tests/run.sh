#!/bin/bash
# SPDX-License-Identifier: MIT
#
# "make -C userlib/ctl test": run the test programs given as
# arguments (KTAP on stdout) on this machine, no module and no VM needed,
# and report them like scripts/host-tests.sh: one PASS/FAIL line per
# program (scripts/lib.sh: tb_report_program), then "N passed, M failed"
# as the last line.  A shell test (*.sh) runs twice: against tracebufctl
# (and build/tests/tracebufctl-fake) and, as NAME-san, against their
# ASan + UBSan builds (TBCTL, TBCTL_FAKE and TBCTL_BUILD in its
# environment).
#
#   tests/run.sh PROGRAM...     results in build/test-results/
#
# With "make O=DIR test", TBCTL_BIN is DIR/tracebufctl and TBCTL_BUILD
# (build/ here) is DIR/build/tracebufctl.
#
# TIMEOUT (seconds, default 120) limits each program.  Exit status 0 iff
# M is 0.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
TOP=$(cd "$HERE/.." && pwd)
# shellcheck source=../../../scripts/lib.sh
. "$TOP/../../scripts/lib.sh"

TIMEOUT=${TIMEOUT:-120}
BUILD=${TBCTL_BUILD:-$TOP/build}
BIN=${TBCTL_BIN:-$TOP/tracebufctl}
RES=$BUILD/test-results
reported=0
trap '[ $reported = 1 ] || echo "0 passed, 1 failed"' EXIT

[ $# -gt 0 ] || tb_die "no test programs given"
rm -rf "$RES"
mkdir -p "$RES"
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1}

# run NAME PROGRAM [VAR=VALUE...]
run() {
	local t=$1 p=$2 start rc=0
	shift 2
	names+=("$t")
	if [ ! -x "$p" ]; then
		echo "not built: $p" > "$RES/$t.missing"
		return
	fi
	start=$(date +%s)
	env "$@" timeout -k 10 "$TIMEOUT" "$p" > "$RES/$t.stdout" 2> "$RES/$t.stderr" \
		< /dev/null || rc=$?
	echo "$rc $(($(date +%s) - start))" > "$RES/$t.rc"
}

t0=$(date +%s)
names=()
for p in "$@"; do
	t=$(basename "$p")
	case $t in
	*.sh)
		run "${t%.sh}" "$p" TBCTL="$BIN" TBCTL_BUILD="$BUILD" \
			TBCTL_FAKE="$BUILD/tests/tracebufctl-fake"
		run "${t%.sh}-san" "$p" TBCTL="$BUILD/san/tracebufctl" TBCTL_BUILD="$BUILD" \
			TBCTL_FAKE="$BUILD/tests/tracebufctl-fake-san"
		;;
	*)
		run "$t" "$p"
		;;
	esac
done

echo
echo "==== tracebufctl tests (userlib/ctl/tests, $(($(date +%s) - t0))s) ===="
for t in "${names[@]}"; do
	tb_report_program "$RES" "$t" "$TIMEOUT" "did not run" 0
done
echo "results: $RES"
reported=1
echo "$tb_passed passed, $tb_failed failed"
[ "$tb_failed" = 0 ]
