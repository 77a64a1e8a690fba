#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The body of "make model": check the model of the provider protocol
# (scripts/model/tracebuf.pml) with spin, exhaustively.
#
#   1. uapi.pml is generated from uapi/linux/tracebuf.h
#      (scripts/model-uapi.sh): the states and the state table have their
#      one home there.  The model must answer every request of the table
#      (a UAPI_CHECK for each), and no other.
#   2. Each configuration (RUNS below) is compiled into pan and searched
#      exhaustively, within MODEL_MEMLIM MiB (default 4096) and
#      MODEL_DEPTH steps (default 1000000): a search that does not
#      complete fails.  Its states, transitions, depth, memory and time
#      are printed.
#   3. Each property (PROPS below) holds when no run violates it; the
#      assertion a counter-example ends on says which one it is (a
#      "[name]" tag on its line), and the counter-example is left in
#      .build/model/RUN.trail.txt, its steps in short.
#   4. Each witness of the model (WIT(n) "W:name") must be reached: a run
#      with WITNESS=n must end on that assertion.  A property that holds
#      because nothing gets to where it is checked is no property.  A
#      witness is looked for in WITNESS_RUN, or in the run named after
#      its name ("W:name@run").
#
#   model.sh
#
# KTAP-like lines (ok N NAME), then "N passed, M failed"; the exit status
# is non-zero on any failure.
set -euo pipefail

. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

[ $# = 0 ] || tb_die "unknown argument '$1' (see the comment at the top of $0)"

OUT=$TB_BUILD/model
MEMLIM=${MODEL_MEMLIM:-4096}
DEPTH=${MODEL_DEPTH:-1000000}
trap tb_checks_end EXIT

command -v spin > /dev/null || tb_die "spin not found (scripts/install-deps.sh)"
command -v gcc > /dev/null || tb_die "gcc not found (scripts/install-deps.sh)"
rm -rf "$OUT"
mkdir -p "$OUT"
cp "$TB_ROOT/scripts/model/tracebuf.pml" "$OUT/"
cd "$OUT"

# --- 1. the uapi's table, and the model's answers to it --------------------
if ! "$TB_ROOT/scripts/model-uapi.sh" > uapi.pml 2> uapi.err; then
	tb_check "uapi: the state table of uapi/linux/tracebuf.h reads" 1 "$(cat uapi.err)"
	exit 1
fi
"$TB_ROOT/scripts/model-uapi.sh" --requests | sort > requests.uapi
grep -v '^#define' tracebuf.pml | grep -o 'UAPI_CHECK([A-Za-z_]*' | sed 's/UAPI_CHECK(//' |
	sort -u > requests.model
diff=$({ diff requests.uapi requests.model || true; } |
	sed -n -e 's/^< /in the uapi, not answered by the model: /p' \
	       -e 's/^> /answered by the model, not in the uapi: /p')
tb_check "uapi: the model answers each of the $(wc -l < requests.uapi) requests of the state table" \
	"$([ -z "$diff" ]; echo $?)" "$diff"

# --- 2. the runs --------------------------------------------------------------
# NAME|spin -D options.  MGR_OPS manager requests in all, FILLS filled
# halves, MODE the mode INITIALIZE asks (1 streaming sealed, 2 streaming,
# 3 circular, 0 any), PROBE a manager that asks anything anywhere, ALERTS
# the provider's ALERTs (each may stand for the many that fill the
# manager's inbox: a SAVE_BUFFER refused, asked again once woken),
# MGR_LIVES the managers one after the other.  "late" gives the
# provider's wait for its START and its STARTED_LATE room (one filled
# half, circular); the others reach them too.
RUNS=("streaming-sealed|-DMODE=1 -DMGR_OPS=6 -DFILLS=2"
      "streaming|-DMODE=2 -DMGR_OPS=6 -DFILLS=2"
      "circular|-DMODE=3 -DMGR_OPS=7 -DFILLS=2"
      "probe|-DPROBE -DMGR_OPS=5 -DFILLS=1"
      "alerts|-DMODE=1 -DMGR_OPS=4 -DFILLS=2 -DALERTS=1 -DMGR_LIVES=1"
      "late|-DMODE=3 -DMGR_OPS=5 -DFILLS=1")
WITNESS_RUN="-DMODE=0 -DMGR_OPS=6 -DFILLS=2"
PROPS=("deadlock|no invalid end state: each side can always go on or is done"
       "save-answered|every SAVE_BUFFER is answered, unless the provider goes or is terminated"
       "seal|a sealed rolling buffer is never written"
       "write-out|a manager never writes out a half the provider may still change"
       "death|after a death, what the dead side held is released"
       "views|the manager's view, once it read what is in flight, is the module's state"
       "late|STARTED_LATE is set exactly when the provider went on without waiting while its trace ran"
       "uapi|every answer of the module is the uapi table's"
       "model|the abstraction is sound (bounded inboxes and buffers never overflow)")
declare -A violated=()
incomplete=0
stopped=

# the property of a counter-example: the tag on the line of the assertion
# it ends on, or above it
property_of() {
	local log=$1 line
	if grep -q '^pan:1: invalid end state' "$log"; then
		echo deadlock
		return
	fi
	line=$(sed -n 's/^spin: tracebuf.pml:\([0-9]*\), Error: assertion violated.*/\1/p' "$log" |
		head -n 1)
	[ -n "$line" ] || { echo unknown; return; }
	if sed -n "${line}p" tracebuf.pml | grep -q 'UAPI_CHECK'; then
		echo uapi
		return
	fi
	sed -n "$((line > 3 ? line - 3 : 1)),${line}p" tracebuf.pml |
		grep -o '\[[a-z-]*\]' | tail -n 1 | tr -d '[]' | grep . || echo unknown
}

# the steps of a counter-example that say what happened: the model's
# "TB" lines, the states and the violation
trail_summary() {
	local names=() n v
	# numbers back to names: the states (uapi.pml), the errnos (the model)
	while read -r n v; do
		names+=(-e "s/(state |kstate = )$v\b/\1$n/")
	done < <(sed -n 's/^#define \([A-Z]*\)\t\([0-9]\)$/\1 \2/p' uapi.pml | grep -v '^NSTATES')
	while read -r n v; do
		names+=(-e "s/errno $v\b/$n/")
	done < <(sed -n 's/^#define \(E[A-Z]*\)\t*\([0-9]\)$/\1 \2/p' tracebuf.pml)
	sed -n -E -e 's/^ *TB //p' -e '/\[kstate = /p' -e '/Error|text of failed/p' |
		sed -E 's/^ *([0-9]+):[[:space:]]+proc +[0-9] \(([a-z]+):1\) tracebuf.pml:([0-9]+) \(state [0-9]+\)[[:space:]]+/  (\2, line \3) /' |
		sed -E "${names[@]}"
}

# run NAME DEFINES [CFLAGS]: build pan (-O2 unless CFLAGS), search into
# NAME.log
run_pan() {
	local name=$1 defs=$2 opt=${3:--O2}
	# shellcheck disable=SC2086 # defs: one -D option a word
	spin -a $defs tracebuf.pml > "$name.spin" 2>&1 || { cat "$name.spin"; return 2; }
	gcc "$opt" -w -DSAFETY -DCOLLAPSE -DMEMLIM="$MEMLIM" -o "pan-$name" pan.c ||
		return 2
	"./pan-$name" -m"$DEPTH" > "$name.log" 2>&1 || true
	rm -f pan.b pan.c pan.h pan.m pan.p pan.t
}

stat_of() { sed -n "s/^[[:space:]]*\([0-9.e+]*\)[[:space:]]*$1.*/\1/p" "$2" | head -n 1; }

for r in "${RUNS[@]}"; do
	name=${r%%|*} defs=${r#*|}
	t0=$(date +%s.%N)
	if ! run_pan "$name" "$defs"; then
		tb_check "run $name: the model builds" 1 "spin or gcc failed ($defs)"
		incomplete=1
		continue
	fi
	t1=$(date +%s.%N)
	log=$name.log
	states=$(stat_of 'states, stored' "$log")
	trans=$(stat_of 'transitions' "$log")
	depth=$(sed -n 's/.*depth reached \([0-9]*\).*/\1/p' "$log" | tail -n 1)
	mem=$(stat_of 'total actual memory usage' "$log")
	errors=$(sed -n 's/.*errors: \([0-9]*\).*/\1/p' "$log" | tail -n 1)
	printf '# run %s (%s): %s states, %s transitions, depth %s, %s MiB, %.1f s\n' \
		"$name" "$defs" "$states" "$trans" "$depth" "$mem" "$(awk "BEGIN { print $t1 - $t0 }")"
	if grep -qE 'MEMLIM bound|max search depth too small|Search not completed' "$log" &&
	   [ "${errors:-1}" = 0 ]; then
		echo "# run $name: the search did not complete (MODEL_MEMLIM, MODEL_DEPTH)"
		incomplete=1
	fi
	if [ "${errors:-1}" != 0 ]; then
		# shellcheck disable=SC2086
		spin -t -p $defs tracebuf.pml > "$name.replay" 2>&1 || true
		prop=$(property_of "$log")
		[ "$prop" = deadlock ] || prop=$(property_of "$name.replay")
		violated[$prop]=$name
		stopped="$stopped $name"
		trail_summary < "$name.replay" > "$name.trail.txt"
		echo "# run $name: counter-example for '$prop', in $OUT/$name.trail.txt:"
		tail -n 25 "$name.trail.txt" | tb_say
	fi
done

# --- 3. the properties ----------------------------------------------------------
for p in "${PROPS[@]}"; do
	key=${p%%|*} what=${p#*|}
	if [ -n "${violated[$key]:-}" ]; then
		tb_check "$key: $what" 1 "violated in run ${violated[$key]}"
	elif [ $incomplete = 1 ] || [ -n "${violated[unknown]:-}" ]; then
		tb_check "$key: $what" 1 "not shown: a search did not complete or ended on an untagged assertion"
	elif [ -n "$stopped" ]; then
		tb_check "$key: $what" 1 "not shown: the search stopped at its first counter-example in:$stopped"
	else
		tb_check "$key: $what" 0
	fi
done

# --- 4. the witnesses -------------------------------------------------------------
# the defines of the run named $1
run_defs() {
	local r
	for r in "${RUNS[@]}"; do
		[ "${r%%|*}" != "$1" ] || { echo "${r#*|}"; return; }
	done
}

while read -r n wname wrun; do
	defs=$WITNESS_RUN
	[ -z "$wrun" ] || defs=$(run_defs "$wrun")
	# quick to reach: not worth optimizing pan
	if [ -n "$defs" ] && run_pan "witness-$n" "$defs -DWITNESS=$n" -O0 &&
	   grep -qF "assertion violated (${n}!=${n})" "witness-$n.log"; then
		tb_check "reached: $wname" 0
	else
		tb_check "reached: $wname" 1 "no run of ${defs:-$wrun} gets there"
	fi
done < <(sed -n 's/.*WIT(\([0-9]*\)).*W:\([a-z-]*\)@*\([a-z-]*\).*/\1 \2 \3/p' tracebuf.pml)
