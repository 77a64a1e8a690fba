#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The host part of "make check" (and all of "make -C userlib/lib test"): build
# libtracebuf, tracebufctl and libposixtrace and their unit tests
# (userlib/lib/tests/, userlib/ctl/tests/, userlib/posixtrace/tests/), once
# plainly and once
# with ASan and UBSan (NAME-san), run every test program on this machine
# (no module, no VM), and the tests of the scripts (scripts/tests/), and
# report them the way vm-results.sh reports the
# selftests: one PASS/FAIL line per program, then "N passed, M failed".
#
#   host-tests.sh [--out DIR]    results in DIR/out (default .build/host-tests)
#
# A program that does not build, crashes, times out (TIMEOUT seconds,
# default 120) or prints no KTAP plan or "# Totals" line counts as failed.
# The exit status is 0 only when M is 0.
set -euo pipefail

. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

OUT=$TB_BUILD/host-tests
TIMEOUT=${TIMEOUT:-120}
while [ $# -gt 0 ]; do
	case $1 in
	--out) OUT=$2; shift ;;
	*) tb_die "unknown argument '$1' (see the comment at the top of $0)" ;;
	esac
	shift
done

reported=0
trap '[ $reported = 1 ] || echo "0 passed, 1 failed"' EXIT

USERLIB=$TB_ROOT/userlib
TBLIB=$USERLIB/lib
RES=$OUT/out
rm -rf "$RES"
mkdir -p "$RES"

t0=$(date +%s)
tb_log "building libtracebuf and its unit tests"
make -C "$TBLIB" tests >&2 || tb_die "libtracebuf or its tests did not build"
mapfile -t progs < <(make -s --no-print-directory -C "$TBLIB" list-tests)
TBCTL=$TB_ROOT/userlib/ctl
make -C "$TBCTL" tests >&2 || tb_die "tracebufctl or its tests did not build"
mapfile -t -O ${#progs[@]} progs < <(make -s --no-print-directory -C "$TBCTL" list-tests)
PTRACE=$TB_ROOT/userlib/posixtrace
make -C "$PTRACE" tests >&2 || tb_die "libposixtrace or its tests did not build"
mapfile -t -O ${#progs[@]} progs < <(make -s --no-print-directory -C "$PTRACE" list-tests)
[ ${#progs[@]} -gt 0 ] || tb_die "'make -C userlib/lib list-tests' printed no programs"
# the tests of the scripts themselves (scripts/tests/*_test.sh: no build)
mapfile -t -O ${#progs[@]} progs < <(printf '%s\n' "$TB_ROOT"/scripts/tests/*_test.sh)
# The benchmark and the example are built too (not run: "make bench" and
# "make demo" do), so that a change to the library cannot leave them
# behind unnoticed.
make -C "$USERLIB/bench" O="$OUT/bench" LTTNG=0 >&2 ||
	tb_die "the benchmark (userlib/bench) did not build"
make -C "$USERLIB/examples" O="$OUT/examples" LIBTRACEBUF_O= >&2 ||
	tb_die "the example (userlib/examples) did not build"
tb_log "built in $(($(date +%s) - t0))s; running ${#progs[@]} programs"

# -fno-sanitize-recover makes UBSan fatal; ASan's leak check is on by default.
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1}
names=()
for p in "${progs[@]}"; do
	t=$(basename "$p")
	names+=("$t")
	if [ ! -x "$p" ]; then
		echo "not built: $p" > "$RES/$t.missing"
		continue
	fi
	start=$(date +%s)
	rc=0
	timeout -k 10 "$TIMEOUT" "$p" > "$RES/$t.stdout" 2> "$RES/$t.stderr" < /dev/null || rc=$?
	echo "$rc $(($(date +%s) - start))" > "$RES/$t.rc"
done

echo
echo "==== host tests (userlib/lib/tests, $(($(date +%s) - t0))s) ===="
for t in "${names[@]}"; do
	tb_report_program "$RES" "$t" "$TIMEOUT" "did not run" 0
done
echo "results: $RES"
reported=1
echo "$tb_passed passed, $tb_failed failed"
[ "$tb_failed" = 0 ]
