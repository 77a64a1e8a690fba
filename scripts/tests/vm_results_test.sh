#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Description: scripts/vm-results.sh fails a run on the kernel reports a
# PREEMPT_RT kernel (or one with DEBUG_ATOMIC_SLEEP or DEBUG_PREEMPT)
# gives when something sleeps or uses a CPU-local API where it must not.
# It reads a guest's output directory made here (run.conf, one program's
# KTAP output and exit status, insmod and rmmod statuses, and a dmesg.txt
# with vm-init.sh's markers), no guest booted:
#  - a clean log: the program passes, "1 passed, 0 failed", status 0;
#  - each report line during the program ("BUG: sleeping function called
#    from invalid context", "BUG: scheduling while atomic", "BUG: using
#    smp_processor_id() in preemptible", "BUG: using __this_cpu_read() in
#    preemptible", lockdep's "BUG: Invalid wait context") fails it, one
#    kernel splat that starts at that line (not at the Call Trace after
#    it), listed under "kernel splats", status 1;
#  - the same line during rmmod fails the run, though the program passed;
#  - an allocation failure make fault injected, logged with its stack
#    (a kmemleak frame in it), is no report; a WARNING right after such a
#    stack is one, starting at the WARNING.
# KTAP output.
set -u

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# shellcheck source=../../userlib/tests/ktap.sh
. "$ROOT/userlib/tests/ktap.sh"

# The reports, as the kernel prints them (after the timestamp), and a
# name for each.
REPORTS=(
	'BUG: sleeping function called from invalid context at kernel/locking/spinlock_rt.c:46'
	'BUG: scheduling while atomic: state_test/231/0x00000002'
	'BUG: using smp_processor_id() in preemptible [00000000] code: state_test/231'
	'BUG: using __this_cpu_read() in preemptible [00000000] code: state_test/231'
	'[ BUG: Invalid wait context ]'
)
NAMES=(sleeping_in_atomic scheduling_while_atomic smp_processor_id_in_preemptible
       this_cpu_in_preemptible invalid_wait_context)
echo "TAP version 13"
echo "1..$((${#REPORTS[@]} + 4))"

# run NAME PHASE [LINE]: a guest's output for NAME with LINE in its kernel
# log during PHASE (test: while state_test runs; rmmod: at rmmod), then
# vm-results.sh on it: its output in $TMP/NAME.out, its status in $rc.
# With BLOCK=FILE, FILE's lines are the log's while state_test runs.
run() {
	local out=$TMP/$1 phase=$2 line=${3:-} res
	res=$out/share/out
	mkdir -p "$res"
	printf 'TB_TIMEOUT=45\nTB_KMEMLEAK=0\n' > "$out/share/run.conf"
	echo state_test > "$out/share/tests.list"
	printf '%s\n' 'TAP version 13' '1..1' 'ok 1 state_moves' \
		'# Totals: pass:1 fail:0 xfail:0 xpass:0 skip:0 error:0' > "$res/state_test.stdout"
	: > "$res/state_test.stderr"
	echo "0 3" > "$res/state_test.rc"
	echo 0 > "$res/insmod.rc"
	echo 0 > "$res/rmmod.rc"
	echo finished > "$res/done"
	{
		echo '[    3.100000] tracebuf-vm: begin'
		echo '[    3.100001] tracebuf-vm: phase insmod'
		echo '[    3.200000] tracebuf: loaded'
		echo '[    3.300000] tracebuf-vm: test state_test start'
		[ -z "${BLOCK:-}" ] || cat "$BLOCK"
		[ "$phase" != test ] || [ -z "$line" ] ||
			printf '[    4.000000] %s\n[    4.000001] Call Trace:\n[    4.000002]  <TASK>\n' "$line"
		echo '[    5.000000] tracebuf-vm: test state_test end rc=0'
		echo '[    5.100000] tracebuf-vm: phase rmmod'
		[ "$phase" != rmmod ] || [ -z "$line" ] ||
			printf '[    5.200000] %s\n' "$line"
		echo '[    5.300000] tracebuf-vm: end'
	} > "$res/dmesg.txt"
	"$ROOT/scripts/vm-results.sh" "$out" > "$TMP/$1.out" 2>&1
	rc=$?
}
# has NAME REGEX...: every REGEX matches a line of NAME's output (ktap_has)
has() {
	local name=$1
	shift
	ktap_has "$TMP/$name.out" "$@"
}

run clean test
has clean '^  PASS  state_test +1 passed' '^1 passed, 0 failed$' && [ $rc = 0 ]
result a_clean_log_passes $? "exit status $rc"

for i in "${!REPORTS[@]}"; do
	line=${REPORTS[i]}
	run "r$i" test "$line"
	# the report's own line (5) is the splat's first, not its Call Trace
	has "r$i" '^  FAIL  state_test +1 passed, 1 failed.*: 1 kernel splat\(s\)$' \
		'^==== kernel splats ====$' \
		'^--- kernel splat during test state_test \(.*/dmesg\.txt line 5\):$' \
		'^1 passed, 1 failed$' && [ $rc = 1 ] &&
		grep -qxF "    [    4.000000] $line" "$TMP/r$i.out"
	result "fails_on_${NAMES[i]}" $? "exit status $rc"
done

run at_rmmod rmmod "${REPORTS[1]}"
has at_rmmod '^  PASS  state_test +1 passed' '^  FAIL  1 kernel splat\(s\) during rmmod$' \
	'^1 passed, 1 failed$' && [ $rc = 1 ]
result a_report_at_rmmod_fails_the_run $? "exit status $rc"

# what faultinj's failures leave in the log (verbose 2)
cat > "$TMP/fault.txt" <<'EOF2'
[    4.100000] FAULT_INJECTION: forcing a failure.
[    4.100000] name failslab, interval 1, probability 0, space 0, times 0
[    4.100001] CPU: 1 UID: 0 PID: 83 Comm: faultinj Tainted: G           O       6.12.117 #1
[    4.100002] Tainted: [O]=OOT_MODULE
[    4.100003] Hardware name: QEMU Standard PC (i440FX + PIIX, 1996)
[    4.100004] Call Trace:
[    4.100005]  <TASK>
[    4.100006]  dump_stack_lvl+0x80/0xa0
[    4.100007]  should_failslab+0xda/0x140
[    4.100008]  ? __create_object+0x59/0xb0
[    4.100009]  kmemleak_alloc+0x2a/0x60
[    4.100010]  tracebuf_manager_initialize+0x3f/0xb0 [tracebuf]
[    4.100011]  </TASK>
EOF2
BLOCK=$TMP/fault.txt run injected test
has injected '^  PASS  state_test +1 passed' '^1 passed, 0 failed$' && [ $rc = 0 ]
result an_injected_failure_is_no_report $? "exit status $rc"

{ cat "$TMP/fault.txt"; printf '%s\n' '[    4.200000] WARNING: CPU: 1 PID: 83 at module/buf.c:150 tracebuf_buf_create+0x1' \
	'[    4.200001] Call Trace:'; } > "$TMP/fault-warn.txt"
BLOCK=$TMP/fault-warn.txt run injected_then_warning test
has injected_then_warning '^  FAIL  state_test +1 passed, 1 failed.*: 1 kernel splat\(s\)$' \
	'^--- kernel splat during test state_test \(.*/dmesg\.txt line 18\):$' && [ $rc = 1 ]
result a_warning_after_an_injected_failure_fails $? "exit status $rc"

ktap_totals
