#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# "make run" as a developer uses it (scripts/run.sh): refusals that need
# no guest, then one guest run of a script of "yours" that runs the
# example from its FILES, prints, and exits 3: the trace comes back with
# the script's output, and run.sh exits with record's status, 3.  KTAP,
# then "N passed, M failed" as the last line.
#
#   run-test.sh --kernel IMAGE --kdir DIR [--moddir DIR]
set -uo pipefail

. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

KARGS=()
while [ $# -gt 0 ]; do
	case $1 in
	--kernel|--kdir|--moddir) KARGS+=("$1" "$2"); shift ;;
	*) tb_die "unknown argument '$1'" ;;
	esac
	shift
done

WORK=$TB_BUILD/run-test
rm -rf "$WORK"
mkdir -p "$WORK/dest" "$WORK/app"

echo "TAP version 13"
echo "1..5"
trap tb_checks_end EXIT
RUN=$TB_ROOT/scripts/run.sh
export NO_DEPS=1

# refused: status 2 and one line that says why, before any build or boot
refused() {	# refused NAME PATTERN ARGS...
	local name=$1 pattern=$2 out rc
	shift 2
	out=$("$RUN" --dest "$WORK/dest" "$@" 2>&1)
	rc=$?
	[ $rc = 2 ] && [ "$(printf '%s\n' "$out" | wc -l)" = 1 ] && [[ $out == *$pattern* ]]
	tb_check "$name" $? "exit $rc: $out"
}
refused refuses_no_command "no command to trace"
refused refuses_record_output "record's -o is --out NAME" --record "-m streaming -o x.fxt" --cmd true
refused refuses_missing_file "--file $WORK/nope: no such file" --file "$WORK/nope" --cmd true

# one guest run: ./app.sh (copied because it names a file here) runs the
# example given with --file, then fails on purpose
{ make -C "$TB_ROOT/userlib/examples" O="$WORK/app" STATIC=1 &&
  make -C "$TB_ROOT/userlib/ctl"; } > "$WORK/build.log" 2>&1 ||
	{ tb_check guest_run 1 "the example or tracebufctl did not build"; exit 1; }
cat > "$WORK/app/app.sh" <<'APP'
#!/bin/sh
./tracebuf-example -n 200 || exit 1
echo "app: done with 'quotes' and spaces"
exit 3
APP
chmod +x "$WORK/app/app.sh"
"$RUN" --dest "$WORK/dest" --out my.fxt --record "-m streaming -q" \
	--file "$WORK/app/tracebuf-example" --timeout 120 "${KARGS[@]}" \
	--cmd "$WORK/app/app.sh" > "$WORK/run.log" 2>&1
rc=$?
tb_check exits_with_the_commands_status "$([ $rc = 3 ]; echo $?)" "exit $rc (see $WORK/run.log)"
events=$("$TB_ROOT/userlib/ctl/tracebufctl" dump "$WORK/dest/my.fxt" 2>/dev/null |
	awk '$2 == "event"' | wc -l)
[ "$events" -gt 100 ] && grep -qx "app: done with 'quotes' and spaces" "$WORK/dest/my.fxt.stdout"
tb_check trace_and_output_come_back $? "$events events; stdout: $(head -c 200 "$WORK/dest/my.fxt.stdout" 2>&1)"
