#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Report the results of a scripts/vm-run.sh run:  vm-results.sh OUTDIR
#
# Counts the KTAP results of every program (ok = pass; not ok = fail;
# ok ... # SKIP = fail, since in our VM everything must run; a program
# that crashed, timed out, did not run or printed no plan or Totals line
# counts at least one failure), and adds one failure for each kernel splat
# found in the guest's log after the tests began, for a failed insmod or
# rmmod, for a test that left the module unloaded, for a kmemleak report
# and for a guest that did not finish.  Each trace a test left in the
# output directory (*.fxt) is read by scripts/fxt-check.py too, one
# result each (*.sched.fxt: with --sched).  The last line printed is
# "N passed, M failed"; the exit status is 1 when M > 0.
set -euo pipefail

. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

OUT=${1:?usage: vm-results.sh OUTDIR}
SHARE=$OUT/share
RES=$SHARE/out
[ -f "$SHARE/run.conf" ] || { echo "vm-results.sh: no run in '$OUT'" >&2; echo "0 passed, 1 failed"; exit 1; }

TB_TIMEOUT=0 TB_KMEMLEAK=0
. "$SHARE/run.conf"
QEMU_RC='?' ELAPSED='?' WATCHDOG= BOOT_FAILURES=0
[ ! -f "$OUT/qemu.status" ] || . "$OUT/qemu.status"

# Kernel messages that fail a run (liburing's runtests.sh list, plus
# KASAN/UBSAN/kmemleak/hung tasks, and what PREEMPT_RT shows of a sleep
# or a CPU-local access where neither may be: "BUG: sleeping function
# called from invalid context", "BUG: scheduling while atomic", "BUG:
# using smp_processor_id() in preemptible" and lockdep's "BUG: Invalid
# wait context"; "BUG:" alone would catch them, they are named in case
# it ever goes: scripts/tests/vm_results_test.sh).
SPLAT_RE='WARNING:|BUG:|kernel BUG at|Oops|general protection fault|KASAN|UBSAN|possible circular locking|possible recursive locking|suspicious RCU usage|sleeping function called from invalid context|scheduling while atomic|in preemptible|Invalid wait context|kmemleak|unreferenced object|Call Trace|INFO: task .* blocked for more than|Kernel panic'

problems=()	# one line per failure not tied to a subtest

# --- kernel log --------------------------------------------------------------

if [ -s "$RES/dmesg.txt" ]; then
	KLOG=$RES/dmesg.txt
else
	KLOG=$OUT/console.log	# the guest died before saving dmesg
fi
splat_counts=$OUT/splats.count
splat_report=$OUT/splats.txt
: > "$splat_counts"
: > "$splat_report"
if [ -f "$KLOG" ]; then
	# Markers written by vm-init.sh: "begin", "phase X", "test T start",
	# "test T end", "end".  A splat belongs to the last marker before it.
	# Lines of one splat are grouped: a headline within 5 lines of the
	# previous one (e.g. a GPF followed by its KASAN line) or a Call Trace
	# within 100 lines of the previous match adds nothing.
	awk -v re="$SPLAT_RE" -v counts="$splat_counts" -v report="$splat_report" '
	{ sub(/\r$/, ""); line[NR] = $0 }
	/tracebuf-vm: (begin|end|phase |test [^ ]+ (start|end))/ {
		marker[NR] = 1
		infi = 0
		if ($0 ~ /tracebuf-vm: begin$/) { active = 1; phase = "insmod" }
		else if (match($0, /tracebuf-vm: test [^ ]+ start$/)) {
			s = substr($0, RSTART + 18)
			phase = substr(s, 1, length(s) - 6)
			istest[phase] = 1
		} else if (match($0, /tracebuf-vm: phase .*/)) {
			phase = substr($0, RSTART + 19)
		} else if ($0 ~ /tracebuf-vm: end$/) { phase = "end of run" }
		next
	}
	# An allocation failure make fault injected, with its stack
	# (faultinj.c): the header, the stack'"'"'s preamble and its indented
	# frames, up to </TASK>; any other line ends it and is looked at.
	# (coverage-fault.py reads the same block: keep the two in step.)
	/FAULT_INJECTION: forcing a failure/ { infi = 1; next }
	infi {
		t = $0
		sub(/^\[[ 0-9.]+\] ?/, "", t)
		if (t ~ /^(name |CPU: |Tainted: |Hardware name: |Call Trace:| )/) {
			if (t ~ /<\/TASK>/)
				infi = 0
			next
		}
		infi = 0
	}
	active && $0 ~ re {
		if (phase == "leak-scan" && $0 ~ /kmemleak: [0-9]+ new suspected memory leak/)
			next	# reported through the kmemleak file
		# Under fault injection (faultinj) kmemleak'"'"'s own bookkeeping
		# may be refused an allocation: it then scans the whole object,
		# which is slower, not wrong.
		if ($0 ~ /kmemleak: Cannot allocate a scan area, scanning the full object/)
			next
		head = ($0 !~ /Call Trace/)
		if (n && phase == sphase[n] &&
		    ((head && NR - lasthead <= 5) || (!head && NR - last <= 100))) {
			last = NR
			if (head) lasthead = NR
			next
		}
		n++; sline[n] = NR; sphase[n] = phase; last = NR
		if (head) lasthead = NR
	}
	END {
		for (i = 1; i <= n; i++) {
			cnt[sphase[i]]++
			what = (sphase[i] in istest) ? "test " sphase[i] : sphase[i]
			printf "--- kernel splat during %s (%s line %d):\n", what, FILENAME, sline[i] > report
			from = sline[i]
			while (from > 1 && from > sline[i] - 4 && !(from in marker))
				from--
			for (j = from; j < sline[i] + 40 && j <= NR; j++) {
				if (j > sline[i] && (j in marker)) break
				printf "    %s\n", line[j] > report
			}
		}
		for (p in cnt) printf "%s\t%d\n", p, cnt[p] > counts
	}' "$KLOG"
fi

splats_of() {
	awk -F'\t' -v p="$1" '$1 == p { print $2; f = 1 } END { if (!f) print 0 }' "$splat_counts"
}

# --- the programs --------------------------------------------------------------

mapfile -t names < <(grep -v '^$' "$SHARE/tests.list" 2>/dev/null || true)
echo
echo "==== results ($(basename "$OUT"), QEMU exit $QEMU_RC after ${ELAPSED}s) ===="
if [ ${#names[@]} -eq 0 ]; then
	problems+=("no test programs were listed")
fi

for t in "${names[@]}"; do
	notrun="did not run to completion"
	if [ -f "$RES/insmod.rc" ] && [ "$(cat "$RES/insmod.rc")" != 0 ]; then
		notrun="not run: insmod failed"
	fi
	tb_report_program "$RES" "$t" "$TB_TIMEOUT" "$notrun" "$(splats_of "$t")"
done
passed=$tb_passed
failed=$tb_failed

# --- the traces the tests left, read by a reader of their own ----------------

for f in "$RES"/*.fxt; do
	[ -f "$f" ] || continue
	flags=()
	case $f in *.sched.fxt) flags=(--sched) ;; esac
	if summary=$("$TB_ROOT/scripts/fxt-check.py" "${flags[@]}" "$f" 2>&1); then
		printf '  PASS  %-28s %s\n' "fxt-check $(basename "$f")" "${summary#"$f": }"
		passed=$((passed + 1))
	else
		problems+=("fxt-check: $summary")
	fi
done

# --- the run itself ------------------------------------------------------------

if [ "$BOOT_FAILURES" = 1 ]; then
	echo "note: the first boot failed before the module was loaded; the second one ran" \
		"(console: $OUT/console.boot-failure.log)"
fi
if [ ! -f "$RES/insmod.rc" ]; then
	if [ "$BOOT_FAILURES" = 2 ]; then
		problems+=("boot failure, twice: the guest never got to load the module (consoles: $OUT/console.boot-failure.log, $OUT/console.log)")
	else
		problems+=("the guest never got to load the module")
	fi
elif [ "$(cat "$RES/insmod.rc")" != 0 ]; then
	problems+=("insmod tracebuf.ko failed: $(tr '\n' ' ' < "$RES/insmod.log")")
elif [ ! -f "$RES/rmmod.rc" ]; then
	[ ! -f "$RES/done" ] || problems+=("rmmod was not run")
elif [ "$(cat "$RES/rmmod.rc")" != 0 ]; then
	problems+=("rmmod tracebuf failed: $(tr '\n' ' ' < "$RES/rmmod.log")")
fi
if [ -f "$RES/unloaded" ]; then
	while read -r t; do problems+=("$t left the module unloaded"); done < "$RES/unloaded"
fi
for phase in insmod rmmod leak-scan "end of run"; do
	k=$(splats_of "$phase")
	[ "$k" = 0 ] || problems+=("$k kernel splat(s) during $phase")
done
while IFS=$'\t' read -r phase k; do
	# splats after "phase insmod after T" (a reload) and the like
	case $phase in insmod|rmmod|leak-scan|"end of run") continue ;; esac
	grep -qxF -- "$phase" <<< "$(printf '%s\n' "${names[@]}")" && continue
	problems+=("$k kernel splat(s) during $phase")
done < "$splat_counts"
if [ "$TB_KMEMLEAK" = 1 ]; then
	if [ -f "$RES/kmemleak.missing" ]; then
		problems+=("$(cat "$RES/kmemleak.missing")")
	elif [ -s "$RES/kmemleak.txt" ]; then
		problems+=("kmemleak: $(grep -c '^unreferenced object' "$RES/kmemleak.txt") unreferenced object(s), see $RES/kmemleak.txt")
	fi
fi
if [ ! -f "$RES/done" ] && [ "$BOOT_FAILURES" != 2 ]; then
	problems+=("the guest did not finish${WATCHDOG:+: $WATCHDOG} (QEMU exit $QEMU_RC)")
fi

if [ -s "$splat_report" ]; then
	echo
	echo "==== kernel splats ===="
	cat "$splat_report"
fi
if [ "$TB_KMEMLEAK" = 1 ] && [ -s "$RES/kmemleak.txt" ]; then
	echo
	echo "==== kmemleak ===="
	head -n 80 "$RES/kmemleak.txt"
fi
if [ ! -f "$RES/done" ] && [ -f "$OUT/console.log" ]; then
	echo
	echo "==== last lines of the console ($OUT/console.log) ===="
	tail -n 40 "$OUT/console.log" | sed 's/\r$//'
fi
if [ ${#problems[@]} -gt 0 ]; then
	echo
	for pr in "${problems[@]}"; do echo "  FAIL  $pr"; done
	failed=$((failed + ${#problems[@]}))
fi
echo
echo "logs: $OUT (console.log, share/out/)"
echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
