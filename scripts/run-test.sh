#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# "make run" as a developer uses it (scripts/run.sh): refusals that need
# no guest, then four guest runs.
#
# The first runs a script of "yours", ./app.sh, with FILES: a dynamically
# linked example whose libtracebuf lives under /tmp (found through
# LD_LIBRARY_PATH) and a directory.  The script runs the example, writes
# a file beside itself and one in the directory, prints, waits for the
# time limit's SIGTERM and exits 3.  The trace is compressed with zstd in
# the guest and rotated.  Checked: run.sh exits 3; the trace, its
# rotations, the output and the two written files come back, and no file
# that was copied in unchanged.
#
# The second runs a command that cannot start: no trace is written, and
# the first run's trace and output are left as they were.
#
# The third is "make shell" (run.sh --shell) fed from a FIFO once its
# banner is out: a detached session around the example, status, stop; the
# session's trace and what the shell wrote come back.  Then the README's
# POSIX Trace recipe: posix-trace-example, its own controller, writes its
# log, which comes back and is valid FXT.
#
# The fourth is that recipe through make run: record, around the example,
# leaves the child's provider to the example's stream, which names it;
# the log comes back, valid, and record exits 0.
#
# KTAP, then "N passed, M failed" as the last line.
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
mkdir -p "$WORK/dest" "$WORK/app/data"
# the library's directory: under /tmp, which the guest mounts a tmpfs on
LIBDIR=$(mktemp -d /tmp/tb-run-test.XXXXXX) || tb_die "mktemp failed"

echo "TAP version 13"
echo "1..27"
trap 'rm -rf "$LIBDIR"; tb_checks_end' EXIT
RUN=$TB_ROOT/scripts/run.sh
TBCTL=$TB_ROOT/userlib/ctl/tracebufctl
DEST=$WORK/dest
export NO_DEPS=1

# --- refused: status 2 and one line that says why, before any build or boot ----

refused() {	# refused NAME PATTERN ARGS...
	local name=$1 pattern=$2 out rc
	shift 2
	out=$("$RUN" --dest "$DEST" "$@" 2>&1)
	rc=$?
	[ $rc = 2 ] && [ "$(printf '%s\n' "$out" | wc -l)" = 1 ] && [[ $out == *"$pattern"* ]]
	tb_check "$name" $? "exit $rc: $out"
}
refused refuses_no_command "no command to trace"
refused refuses_an_empty_command "no command to trace" --cmd ""
refused refuses_an_unclosed_quote "a quote is not closed" --cmd "'./x"
refused refuses_record_output "no -o: the trace's name is --out NAME" --record "-m streaming -o x.fxt" --cmd true
refused refuses_missing_file "--file $WORK/nope: no such file" --file "$WORK/nope" --cmd true
refused refuses_a_command_the_guest_lacks "nosuchcommand: not a command of the guest" --cmd nosuchcommand
refused refuses_a_bad_timeout "--timeout '0': a number of seconds" --timeout 0 --cmd true
refused refuses_a_command_with_the_shell "--shell runs no command" --shell --cmd true

# make run passes CMD (quotes and all) and TIMEOUT on, and fails as make does
out=$(make -s -C "$TB_ROOT" run CMD="sh -c 'exit 0'" TIMEOUT=1x 2>&1)
rc=$?
[ $rc = 2 ] && grep -q "run.sh: error: --timeout '1x'" <<< "$out"
tb_check make_run_passes_cmd_and_timeout $? "exit $rc: $out"

out=$("$RUN" --help 2>&1)
rc=$?
[ $rc = 0 ] && grep -q -- '--timeout SECS' <<< "$out" && grep -q '^The exit status is record' <<< "$out"
tb_check help $? "exit $rc: $(head -n 3 <<< "$out")"

# record's own options are checked by record, on this machine: after the
# static tracebufctl's build, before the module's
out=$("$RUN" --dest "$DEST" --record "-m streeming" --cmd true 2>&1)
rc=$?
[ $rc = 2 ] && grep -q "error: --record \"-m streeming\": invalid mode 'streeming'" <<< "$(tail -n 1 <<< "$out")" &&
	! grep -q 'building the module\|booting' <<< "$out"
tb_check refuses_a_bad_record_option_before_the_boot $? "exit $rc: $(tail -n 3 <<< "$out")"

# --- the first guest run ---------------------------------------------------------

# the example, linked with a libtracebuf.so.1 under /tmp, and tracebufctl
# here (to read the traces)
{ make -C "$TB_ROOT/userlib/lib" O="$LIBDIR" libtracebuf.so &&
  ${CC:-cc} -O2 -I"$TB_ROOT/userlib/lib/include" -I"$TB_ROOT/uapi" \
	"$TB_ROOT/userlib/examples/tracebuf-example.c" -L"$LIBDIR" -ltracebuf -lpthread \
	-o "$WORK/app/dyn-example" &&
  make -C "$TB_ROOT/userlib/ctl"; } > "$WORK/build.log" 2>&1 ||
	{ tb_check guest_run 1 "the example or tracebufctl did not build (see $WORK/build.log)"; exit 1; }
echo "copy me" > "$WORK/app/data/in.txt"
cat > "$WORK/app/app.sh" <<'APP'
#!/bin/sh
./dyn-example -n 200 || exit 1
echo "app: the example ran"
echo "written beside app.sh" > app.out || exit 1
cat data/in.txt > data/copy.txt || exit 1
echo "app: done with 'quotes' and spaces"
trap 'echo "app: SIGTERM"; exit 3' TERM
sleep 600 &
wait $!
exit 1
APP
chmod +x "$WORK/app/app.sh"
LD_LIBRARY_PATH=$LIBDIR "$RUN" --dest "$DEST" --out my.fxt.zst \
	--record "-m streaming -b 64K --max-size 16K --rotate -q" \
	--file "$WORK/app/dyn-example" --file "$WORK/app/data" --timeout 30 "${KARGS[@]}" \
	--cmd "$WORK/app/app.sh" > "$WORK/run.log" 2>&1
rc=$?
tb_check exits_with_the_commands_status "$([ $rc = 3 ]; echo $?)" "exit $rc (see $WORK/run.log)"

grep -qx "app: the example ran" "$DEST/my.fxt.zst.stdout" 2>/dev/null
tb_check runs_a_program_whose_libraries_are_under_tmp $? \
	"$(head -n 5 "$DEST/my.fxt.zst.stderr" 2>&1)"

events=0
for f in "$DEST"/my.fxt.zst "$DEST"/my.[0-9]*.fxt.zst; do
	[ -f "$f" ] || continue
	n=$("$TBCTL" dump "$f" 2>/dev/null | awk '$2 == "event"' | wc -l)
	events=$((events + n))
done
[ "$events" -gt 100 ] && grep -qx "app: done with 'quotes' and spaces" "$DEST/my.fxt.zst.stdout"
tb_check trace_and_output_come_back $? "$events events; stdout: $(head -c 300 "$DEST/my.fxt.zst.stdout" 2>&1)"

[ "$(od -An -tx1 -N4 "$DEST/my.fxt.zst" 2>/dev/null | tr -d ' ')" = 28b52ffd ]
tb_check trace_compressed_by_zstd_in_the_guest $? "my.fxt.zst begins $(od -An -tx1 -N4 "$DEST/my.fxt.zst" 2>&1)"

[ -f "$DEST/my.1.fxt.zst" ] && "$TBCTL" dump "$DEST/my.1.fxt.zst" > /dev/null 2>&1
tb_check rotated_files_come_back $? "in $DEST: $(cd "$DEST" && echo *)"

[ "$(cat "$DEST/app.out" 2>&1)" = "written beside app.sh" ]
tb_check file_written_beside_the_command_comes_back $? "app.out: $(cat "$DEST/app.out" 2>&1)"

[ "$(cat "$DEST/data/copy.txt" 2>&1)" = "copy me" ]
tb_check file_written_in_a_copied_directory_comes_back $? "data/copy.txt: $(cat "$DEST/data/copy.txt" 2>&1)"

stray=()
for f in app.sh dyn-example data/in.txt tracebufctl run_record.sh; do
	[ ! -e "$DEST/$f" ] || stray+=("$f")
done
[ ${#stray[@]} = 0 ]
tb_check unchanged_files_do_not_come_back $? "came back: ${stray[*]}"

grep -qx "app: SIGTERM" "$DEST/my.fxt.zst.stdout" 2>/dev/null &&
	grep -q 'the time limit, 30 s, passed' "$WORK/run.log"
tb_check time_limit_stops_the_command $? "stdout: $(tail -n 2 "$DEST/my.fxt.zst.stdout" 2>&1)"

# --- the second: a command that cannot start --------------------------------------

mkdir -p "$WORK/before"
cp -p "$DEST"/my.fxt.zst* "$WORK/before/" 2>/dev/null
printf '#!/nonexistent/interpreter\n' > "$WORK/app/bad.sh"
chmod +x "$WORK/app/bad.sh"
"$RUN" --dest "$DEST" --out my.fxt.zst --timeout 30 "${KARGS[@]}" \
	-- "$WORK/app/bad.sh" > "$WORK/run-failed.log" 2>&1
rc=$?
kept=0
for f in my.fxt.zst my.fxt.zst.stdout my.fxt.zst.stderr; do
	cmp -s "$WORK/before/$f" "$DEST/$f" || kept=1
done
[ $kept = 0 ] && [ $rc != 0 ] && [ $rc != 2 ] &&
	grep -q 'no trace written; record exited [0-9]*; .*left as they were' "$WORK/run-failed.log"
tb_check failed_run_keeps_the_previous_trace $? \
	"exit $rc; $(grep 'run.sh:' "$WORK/run-failed.log" | tail -n 2) (see $WORK/run-failed.log)"

# --- the third: make shell -----------------------------------------------------------

mkdir -p "$DEST/shell"
rm -f "$WORK/shell.in"
mkfifo "$WORK/shell.in"
"$RUN" --shell --dest "$DEST/shell" --file "$WORK/app/data" --timeout 120 "${KARGS[@]}" \
	< "$WORK/shell.in" > "$WORK/shell.log" 2>&1 &
pid=$!
exec 3> "$WORK/shell.in"
for _ in $(seq 1 600); do
	grep -q '^tracebuf-vm: shell:' "$WORK/shell.log" && break
	kill -0 $pid 2>/dev/null || break
	sleep 1
done
# (a run.sh that ended early leaves no reader: no SIGPIPE for this script)
( trap '' PIPE
  printf '%s\n' 'tracebufctl record -m circular --detach -o sess.fxt' \
	'tracebuf-example -n 50 -N shell-example' 'tracebufctl status > status.txt' \
	'tracebufctl stop' 'cat data/in.txt > data/copy2.txt' \
	'posix-trace-example -o posix.fxt > posix.txt 2>&1; echo $? > posix.rc' \
	'exit' ) >&3 2>/dev/null
exec 3>&-
wait $pid
rc=$?
tb_check shell_ends_when_its_shell_exits "$([ $rc = 0 ]; echo $?)" \
	"exit $rc; $(grep 'run.sh:' "$WORK/shell.log" | tail -n 2) (see $WORK/shell.log)"

"$TBCTL" dump "$DEST/shell/sess.fxt" > "$WORK/sess.dump" 2>&1
events=$(awk '$2 == "event"' "$WORK/sess.dump" | wc -l)
[ "$events" -gt 100 ] && grep -q 'provider-info .* name="shell-example"' "$WORK/sess.dump"
tb_check shell_session_trace_comes_back $? "$events events; in $DEST/shell: $(cd "$DEST/shell" && echo *)"

grep -q 'recording.*sess\.fxt' "$DEST/shell/status.txt" 2>/dev/null &&
	[ "$(cat "$DEST/shell/data/copy2.txt" 2>&1)" = "copy me" ] && [ ! -e "$DEST/shell/data/in.txt" ]
tb_check shell_files_come_back $? "status.txt: $(cat "$DEST/shell/status.txt" 2>&1)"

# the README's recipe: the POSIX example in make shell, its log back here
[ "$(cat "$DEST/shell/posix.rc" 2>&1)" = 0 ] &&
	"$TB_ROOT/scripts/fxt-check.py" "$DEST/shell/posix.fxt" > "$WORK/posix-check.txt" 2>&1
tb_check shell_posix_example_log_comes_back $? \
	"rc $(cat "$DEST/shell/posix.rc" 2>&1): $(cat "$DEST/shell/posix.txt" "$WORK/posix-check.txt" 2>&1 | tail -n 3)"

# --- the fourth: the README's POSIX recipe through make run ------------------------

mkdir -p "$DEST/posix"
"$RUN" --dest "$DEST/posix" --timeout 120 "${KARGS[@]}" \
	--cmd "posix-trace-example -o posix.fxt" > "$WORK/run-posix.log" 2>&1
rc=$?
[ $rc = 0 ] && grep -qx 'wrote posix.fxt' "$DEST/posix/trace.fxt.stdout" &&
	"$TB_ROOT/scripts/fxt-check.py" "$DEST/posix/posix.fxt" > "$WORK/posix-run-check.txt" 2>&1
tb_check run_posix_example_log_comes_back $? \
	"exit $rc: $(tail -n 3 "$DEST/posix/trace.fxt.stderr" "$WORK/posix-run-check.txt" 2>&1) (see $WORK/run-posix.log)"

grep -q "^posix_trace\.[0-9]* .* left .*(another manager's trace names it)" \
	"$DEST/posix/trace.fxt.stderr" 2>/dev/null
tb_check run_posix_example_is_left_to_its_stream $? \
	"record's summary: $(tail -n 4 "$DEST/posix/trace.fxt.stderr" 2>&1)"
