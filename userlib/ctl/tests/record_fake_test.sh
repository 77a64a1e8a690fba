#!/bin/bash
# SPDX-License-Identifier: MIT
#
# "tracebufctl record", "list" and "categories" end to end without the
# module: TBCTL_FAKE is tracebufctl linked with tests/fake_session.c in
# place of the manager half of libtracebuf (its FAKE_* variables make the
# session fail, alert, ...).  What is checked is tracebufctl's part: the
# config it builds, the main loop, signals, COMMAND, the temporary file
# and its rename, messages and exit statuses.  KTAP on stdout.
#
#   TBCTL_FAKE=build/tests/tracebufctl-fake tests/record_fake_test.sh
set -u

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
TOP=$(cd "$HERE/.." && pwd)
TBCTL=${TBCTL_FAKE:-$TOP/build/tests/tracebufctl-fake}
# shellcheck source=lib.sh
. "$HERE/lib.sh"

# expect_trace FILE MIN_LINES: FILE (in $TMP/w) dumps cleanly, with at
# least MIN_LINES records.
expect_trace() {
	local n
	n=$(cd "$TMP/w" && "$TBCTL" dump "$1" | wc -l) ||
		fail "$1 does not dump cleanly" || return 1
	[ "$n" -ge "$2" ] || fail "$1: $n records, expected at least $2"
}

# bg ARGS...: start tracebufctl in the background (SIGINT not ignored, as
# in an interactive shell), in $TMP/w; sets PID.
bg() {
	(cd "$TMP/w" && exec env --default-signal=INT "$TBCTL" "$@") \
		> "$TMP/out" 2> "$TMP/err" < /dev/null &
	PID=$!
}

# bg_ready: wait (at most 10 s) until it is recording: its temporary file
# exists, so its signals are blocked and read from its signalfd.
bg_ready() {
	local _
	for _ in $(seq 100); do
		[ -z "$(find "$TMP/w" -maxdepth 1 -name '.*.fxt.*' -print -quit)" ] || return 0
		sleep 0.1
	done
	fail "no temporary file after 10 s"
}

# bg_started FILE: wait (at most 10 s) until COMMAND, which creates FILE
# once it runs, did: a signal that comes earlier finds no COMMAND to pass
# it to or wait for (tracebufctl reads its signals only after the fork).
bg_started() {
	local _
	for _ in $(seq 100); do
		[ ! -e "$1" ] || return 0
		sleep 0.1
	done
	fail "COMMAND did not start within 10 s"
}

# bg_wait: wait for it (at most 10 s); sets RC, OUT, ERR.
bg_wait() {
	local _
	for _ in $(seq 100); do
		kill -0 "$PID" 2> /dev/null || break
		sleep 0.1
	done
	if kill -0 "$PID" 2> /dev/null; then
		kill -KILL "$PID"
		fail "still running after 10 s"
	fi
	RC=0
	wait "$PID" || RC=$?
	OUT=$(cat "$TMP/out")
	ERR=$(cat "$TMP/err")
}

test_duration_writes_trace() {
	t_run record -d 300ms
	[ "$RC" = 0 ] || fail "exit $RC: $ERR" || return 1
	[ "$(ls -A "$TMP/w")" = trace.fxt ] || fail "in w/: $(ls -A "$TMP/w")" || return 1
	expect_trace trace.fxt 5 || return 1
	# the summary: header, the provider, the last line
	[ "$(wc -l < "$TMP/err")" = 3 ] || fail "summary: $ERR" || return 1
	[[ $(tail -n 1 "$TMP/err") == "wrote trace.fxt: "*" from 1 provider in "* ]] ||
		fail "last line: $(tail -n 1 "$TMP/err")" || return 1
	[[ $ERR != *$'\r'* ]] || fail "a status line although stderr is no terminal"
}

# A provider that failed: in the summary (its name defused), a warning
# after it, and the exit status says so.
test_failed_provider_in_summary() {
	FAKE_PROVIDERS=app,failed t_run record -d 100ms
	[ "$RC" = 7 ] || fail "exit $RC, expected 7: $ERR" || return 1
	[ "$(wc -l < "$TMP/err")" = 5 ] || fail "summary: $ERR" || return 1
	[[ $ERR == *"bad?name"*"failed"*"(Cannot allocate memory)"* ]] ||
		fail "summary: $ERR" || return 1
	[[ $(sed -n 4p "$TMP/err") == "wrote trace.fxt: "*" from 2 providers in "* ]] ||
		fail "line 4: $(sed -n 4p "$TMP/err")" || return 1
	[ "$(tail -n 1 "$TMP/err")" = "tracebufctl: warning: provider 'bad?name' (pid 20) could not be traced: Cannot allocate memory" ] ||
		fail "last line: $(tail -n 1 "$TMP/err")" || return 1
	# the trace is still written: what it holds is real
	expect_trace trace.fxt 3
}

# expect_incomplete STATUS WARNING ARGS...: record ARGS exits STATUS
# with WARNING on stderr, and writes the trace
expect_incomplete() {
	local status=$1 warning=$2
	shift 2
	rm -f "$TMP/w/trace.fxt"
	t_run record -q -d 50ms "$@"
	[ "$RC" = "$status" ] || fail "record $*: exit $RC, expected $status: $ERR" ||
		return 1
	[[ $ERR == *"tracebufctl: warning: $warning"* ]] ||
		fail "record $*: no warning '$warning': $ERR" || return 1
	[ -s "$TMP/w/trace.fxt" ] || fail "record $*: no trace"
}

test_incomplete_trace_exit_statuses() {
	FAKE_PROVIDERS=app,busy expect_incomplete 6 \
		"provider 'other' (pid 30) was not traced: another manager traces it" || return 1
	FAKE_PROVIDERS=app,late expect_incomplete 7 \
		"provider 'slow' (pid 40) may be incomplete: it did not start or stop in time" ||
		return 1
	expect_incomplete 4 "-p db: no provider of that name registered" -p app -p db ||
		return 1
	FAKE_PROVIDERS= expect_incomplete 3 "no provider was traced: none registered" ||
		return 1
	FAKE_PROVIDERS= expect_incomplete 4 "-p app: no provider of that name registered" \
		-p app || return 1
	expect_incomplete 5 "-c nosuch: no traced provider knows this category" \
		-c net,nosuch || return 1
	# the first cause wins
	FAKE_PROVIDERS=app,late,busy expect_incomplete 6 \
		"provider 'other' (pid 30) was not traced: another manager traces it" \
		-c nosuch || return 1
	# patterns match by prefix; what is known is fine
	t_run record -q -d 50ms -c 'n*,c,io'
	[ "$RC" = 0 ] || fail "-c 'n*,c,io': exit $RC: $ERR"
	# an exclusion is never unknown, even of a category nobody knows
	t_run record -q -d 50ms -c 'net,-nosuch'
	[ "$RC" = 0 ] || fail "-c 'net,-nosuch': exit $RC: $ERR"
}

# A provider left to the manager whose trace names it is not this
# trace's: no warning, no status, even when it is the only one.
test_left_provider_is_not_missing() {
	FAKE_PROVIDERS=app,named t_run record -d 50ms
	[ "$RC" = 0 ] || fail "app,named: exit $RC: $ERR" || return 1
	[[ $ERR == *"posix_trace.80 "*" left "*"(another manager's trace names it)"* ]] &&
		[[ $ERR == *" from 1 provider in "* ]] ||
		fail "app,named: the summary does not say it was left: $ERR" || return 1
	[[ $ERR != *"warning"* ]] || fail "app,named: $ERR" || return 1
	FAKE_PROVIDERS=named t_run record -q -- sh -c 'exit 0'
	[ "$RC" = 0 ] || fail "named alone: exit $RC: $ERR" || return 1
	[[ $ERR != *"no provider was traced"* ]] || fail "named alone: $ERR"
}

test_best_effort() {
	FAKE_PROVIDERS=app,busy t_run record -q -d 50ms --best-effort -c nosuch
	[ "$RC" = 0 ] || fail "exit $RC: $ERR" || return 1
	[[ $ERR == *"another manager traces it"*"-c nosuch"* ]] || fail "warnings: $ERR" ||
		return 1
	FAKE_PROVIDERS=app,busy t_run record -q --best-effort -- sh -c 'exit 2'
	[ "$RC" = 2 ] || fail "exit $RC, expected COMMAND's 2: $ERR"
}

# Incomplete, and COMMAND failed too: the trace's status, and COMMAND's
# in a line.
test_incomplete_with_failed_command() {
	FAKE_PROVIDERS=app,busy t_run record -q -- sh -c 'exit 2'
	[ "$RC" = 6 ] || fail "exit $RC, expected 6: $ERR" || return 1
	[[ $ERR == *"tracebufctl: the trace is incomplete (exit status 6); sh exited with status 2"* ]] ||
		fail "stderr: $ERR"
}

test_drops_warn() {
	FAKE_PROVIDERS=app,lossy t_run record -q -d 50ms
	[ "$RC" = 0 ] || fail "exit $RC: $ERR" || return 1
	[ "$ERR" = "tracebufctl: warning: 3 records dropped by 1 provider (1 drop window in the trace): a larger buffer (-b) or -m streaming keeps more" ] ||
		fail "stderr: $ERR" || return 1
	# streaming already: only the buffer
	FAKE_PROVIDERS=app,lossy t_run record -q -m streaming -d 50ms
	[ "$ERR" = "tracebufctl: warning: 3 records dropped by 1 provider (1 drop window in the trace): a larger buffer (-b) gives the saves more time" ] ||
		fail "stderr (streaming): $ERR"
}

# A category none knows is no typo while records were dropped: its
# first event may have been among them.
test_unknown_category_with_drops() {
	FAKE_PROVIDERS=app,lossy t_run record -q -d 50ms -c net,nosuch
	[ "$RC" = 0 ] || fail "exit $RC, expected 0: $ERR" || return 1
	[[ $ERR == *"-c nosuch: no event of this category is in the trace, and no provider published it; some of the dropped records may have been in it"* ]] ||
		fail "stderr: $ERR" || return 1
	[[ $ERR != *"no traced provider knows"* ]] || fail "stderr: $ERR"
}

# A header's count that no provider could reach is not summed, nor
# shown as a count.
test_impossible_drops_not_counted() {
	FAKE_PROVIDERS=app,lossy,liar t_run record -d 50ms
	[ "$RC" = 7 ] || fail "exit $RC, expected 7: $ERR" || return 1
	[[ $ERR == *"provider 'liar' (pid 70): its header claims 18446744073709551615 records dropped, more than it could have dropped: not counted"* ]] ||
		fail "stderr: $ERR" || return 1
	[[ $ERR == *"warning: 3 records dropped by 1 provider (1 drop window in the trace)"* ]] ||
		fail "stderr: $ERR" || return 1
	[[ $ERR =~ liar\ +70\ +[a-z]+\ +64\ +0\ +\?\ +0 ]] || fail "table: $ERR"
}

test_override_for_absent_provider_warns() {
	t_run record -q -d 50ms -b app:64K -b nosuch:64K
	[ "$RC" = 0 ] || fail "exit $RC: $ERR" || return 1
	[ "$ERR" = "tracebufctl: warning: -b nosuch:...: no provider of that name registered" ] ||
		fail "stderr: $ERR"
}

test_quiet() {
	t_run record -q -d 100ms -o q.fxt
	[ "$RC" = 0 ] && [ -z "$ERR" ] && [ -z "$OUT" ] || fail "exit $RC: $ERR$OUT" || return 1
	[ "$(ls -A "$TMP/w")" = q.fxt ] || fail "in w/: $(ls -A "$TMP/w")"
}

test_config_passthrough() {
	local want
	FAKE_CONFIG=$TMP/cfg t_run -D /dev/fake record -q -d 50ms -c a,b -c c -m stream \
		-b 8M -b app:16K -b 'a:b:2M' -p x -p y --best-effort
	[ "$RC" = 0 ] || fail "exit $RC: $ERR" || return 1
	want="mode 3
buffer_size 8388608
category a
category b
category c
provider x
provider y
override app 16384
override a:b 2097152
device /dev/fake
notify yes"
	[ "$(cat "$TMP/cfg")" = "$want" ] || fail "config: $(cat "$TMP/cfg")"
}

test_config_defaults() {
	FAKE_CONFIG=$TMP/cfg t_run record -q -d 50ms
	[ "$RC" = 0 ] || fail "exit $RC: $ERR" || return 1
	[ "$(cat "$TMP/cfg")" = "mode 0
buffer_size 0
device (default)
notify yes" ] || fail "config: $(cat "$TMP/cfg")"
}

test_command_exit_status() {
	t_run record -q -- sh -c 'exit 3'
	[ "$RC" = 3 ] || fail "exit $RC, expected 3: $ERR" || return 1
	expect_trace trace.fxt 1 || return 1
	t_run record -q -- true
	[ "$RC" = 0 ] || fail "exit $RC, expected 0: $ERR"
}

test_command_killed_by_signal() {
	t_run record -q -- sh -c 'kill -TERM $$'
	[ "$RC" = 143 ] || fail "exit $RC, expected 143" || return 1
	expect_trace trace.fxt 1
}

# expect_gone_cause SCRIPT STATUS CAUSE: provider "gone" ended while
# tracing and is COMMAND's process (sh -c SCRIPT, which first writes its
# pid where the fake reads it): record exits STATUS, and both the
# summary and the warning about the bytes left out name CAUSE
expect_gone_cause() {
	local script=$1 status=$2 cause=$3 pid line
	rm -f "$TMP/w/pid"
	FAKE_PROVIDERS=app,gone FAKE_GONE_PID=$TMP/w/pid \
		t_run record -o g.fxt -- sh -c "echo \$\$ > pid; $script"
	[ "$RC" = "$status" ] || fail "'$script': exit $RC, expected $status: $ERR" || return 1
	pid=$(cat "$TMP/w/pid")
	line=$(grep '^gone ' "$TMP/err")
	[[ $line =~ ^gone\ +$pid\  && $line == *"  ($cause)" ]] ||
		fail "'$script': summary: $ERR" || return 1
	[[ $ERR == *"tracebufctl: warning: provider 'gone' (pid $pid): 96 bytes of its buffer were not whole records that decode, and were left out (it ended while tracing: $cause)"* ]] ||
		fail "'$script': warning: $ERR"
}

# A provider that ended while tracing: when it is COMMAND, record knows
# how COMMAND ended and says so; another one, only that it ended.
test_command_end_named_for_its_provider() {
	expect_gone_cause 'kill -TERM $$' 143 "killed by SIGTERM" || return 1
	expect_gone_cause 'ulimit -c 0; kill -SEGV $$' 139 "crashed with SIGSEGV" || return 1
	expect_gone_cause 'exit 0' 0 "exited with status 0 without stopping tracing" ||
		return 1
	expect_gone_cause 'exit 5' 5 "exited with status 5 without stopping tracing" ||
		return 1
	# not COMMAND's process (pid 60): the kernel's word only
	FAKE_PROVIDERS=app,gone t_run record -o g.fxt -- sh -c 'kill -TERM $$'
	[ "$RC" = 143 ] || fail "exit $RC, expected 143: $ERR" || return 1
	[[ $(grep '^gone ' "$TMP/err") =~ ^gone\ +60\ .*\ \ \(ended\ while\ tracing\)$ ]] ||
		fail "summary: $ERR" || return 1
	[[ $ERR == *"(pid 60): 96 bytes of its buffer were not whole records that decode, and were left out (it ended while tracing)"* ]] ||
		fail "warning: $ERR"
}

# expect_child_cause SCRIPT CAUSE WHY: provider "gone" ended while
# tracing and is a child of COMMAND (sh -c SCRIPT), which writes its pid
# to "pid": record exits 0 (COMMAND's status), the summary ends its line
# with (CAUSE) and the warning about the bytes left out with (WHY)
expect_child_cause() {
	local script=$1 cause=$2 why=$3 pid line
	rm -f "$TMP/w/pid"
	FAKE_PROVIDERS=app,gone FAKE_GONE_PID=$TMP/w/pid \
		t_run record -o g.fxt -- sh -c "$script"
	[ "$RC" = 0 ] || fail "'$script': exit $RC: $ERR" || return 1
	pid=$(cat "$TMP/w/pid")
	[ "$pid" -gt 0 ] 2> /dev/null || fail "'$script': no child pid" || return 1
	line=$(grep '^gone ' "$TMP/err")
	[[ $line =~ ^gone\ +$pid\  && $line == *"  ($cause)" ]] ||
		fail "'$script': summary: $ERR" || return 1
	[[ $ERR == *"tracebufctl: warning: provider 'gone' (pid $pid): 96 bytes of its buffer were not whole records that decode, and were left out ($why)"* ]] ||
		fail "'$script': warning: $ERR"
}

# A child of COMMAND that ended while tracing: record reaps the children
# COMMAND leaves behind (it is their subreaper), and then knows how they
# ended; one that COMMAND reaped itself, only that it ended.
test_child_end_named() {
	local term='echo $$ > pid; sleep 0.5; kill -TERM $$'
	local segv='ulimit -c 0; echo $$ > pid; sleep 0.5; kill -SEGV $$'
	# orphaned while it runs (its parent, a subshell, exits at once)
	expect_child_cause "(sh -c '$term' &); sleep 1.5" "killed by SIGTERM" \
		"it ended while tracing: killed by SIGTERM" || return 1
	expect_child_cause "(sh -c '$segv' &); sleep 1.5" "crashed with SIGSEGV" \
		"it ended while tracing: crashed with SIGSEGV" || return 1
	# never reaped by COMMAND (which becomes sleep): record gets it when
	# COMMAND exits
	expect_child_cause "sh -c 'echo \$\$ > pid; exit 0' & exec sleep 1" \
		"exited with status 0 without stopping tracing" \
		"it ended while tracing: exited with status 0 without stopping tracing" ||
		return 1
	# reaped by COMMAND: how it ended is not known here
	expect_child_cause "sh -c '$term'; sleep 0.2" "ended while tracing" \
		"it ended while tracing"
}

# expect_kernel_cause END CAUSE: provider "gone" (pid 60, neither COMMAND
# nor one record reaped) ended while tracing, and the kernel said how
# (FAKE_GONE_END=END): the summary and the warning name CAUSE
expect_kernel_cause() {
	local end=$1 cause=$2
	FAKE_PROVIDERS=app,gone FAKE_GONE_END=$end t_run record -o g.fxt -- true
	[ "$RC" = 0 ] || fail "$end: exit $RC: $ERR" || return 1
	[[ $(grep '^gone ' "$TMP/err") =~ ^gone\ +60\ .*\ \ \($cause\)$ ]] ||
		fail "$end: summary: $ERR" || return 1
	[[ $ERR == *"(pid 60): 96 bytes of its buffer were not whole records that decode, and were left out (it ended while tracing: $cause)"* ]] ||
		fail "$end: warning: $ERR"
}

# Any other provider that ended while tracing: the kernel's MSG_GONE
# says how its process ended, or that it closed its file and ran on.
test_other_provider_end_named() {
	expect_kernel_cause 1:15 "killed by SIGTERM" || return 1
	expect_kernel_cause 1:9 "killed by SIGKILL" || return 1
	expect_kernel_cause 1:139 "crashed with SIGSEGV" || return 1
	expect_kernel_cause 1:6 "crashed with SIGABRT" || return 1
	expect_kernel_cause 1:0 "exited with status 0 without stopping tracing" || return 1
	expect_kernel_cause 1:768 "exited with status 3 without stopping tracing" || return 1
	expect_kernel_cause 2:0 "closed its tracebuf file without exiting" || return 1
	# a child COMMAND reaped itself: record did not see it, the kernel did
	rm -f "$TMP/w/pid"
	FAKE_PROVIDERS=app,gone FAKE_GONE_PID=$TMP/w/pid FAKE_GONE_END=1:15 \
		t_run record -o g.fxt -- sh -c 'sh -c "echo \$\$ > pid; kill -TERM \$\$"; sleep 0.2'
	[ "$RC" = 0 ] || fail "child: exit $RC: $ERR" || return 1
	[[ $(grep '^gone ' "$TMP/err") == *"  (killed by SIGTERM)" ]] ||
		fail "child: summary: $ERR"
}

test_command_runs_after_session_start() {
	# the fake writes FAKE_CONFIG when the session is created
	FAKE_CONFIG=$TMP/w/cfg t_run record -q -- sh -c 'test -s cfg'
	[ "$RC" = 0 ] || fail "the command ran before the session existed"
}

test_command_gets_clean_fds_and_signals() {
	# no pipeline: the shell would hold its pipe's fds while ls runs;
	# the signals of grep itself: dash blocks some while it waits
	local script='ls /proc/$$/fd; exec grep -E "^Sig(Blk|Ign)" /proc/self/status' ref
	# what the command inherits without tracebufctl in between: no
	# signalfd, output or session fd, no blocked signal
	ref=$(cd "$TMP/w" && sh -c "$script" 2> /dev/null < /dev/null)
	t_run record -q -- sh -c "$script"
	[ "$RC" = 0 ] || fail "exit $RC: $ERR" || return 1
	[ "$OUT" = "$ref" ] || fail "the command got: $OUT; expected: $ref"
}

test_command_not_found() {
	t_run record -- ./no-such-command arg
	[ "$RC" = 127 ] || fail "exit $RC, expected 127" || return 1
	expect_error "cannot run './no-such-command': No such file or directory" || return 1
	expect_empty_dir "$TMP/w"
}

test_sigint_stops() {
	bg record -o int.fxt
	bg_ready || return 1
	sleep 0.2
	kill -INT "$PID"
	bg_wait || return 1
	[ "$RC" = 0 ] || fail "exit $RC: $ERR" || return 1
	[[ $ERR == *", stopped by Interrupt"* ]] || fail "summary: $ERR" || return 1
	[ "$(ls -A "$TMP/w")" = int.fxt ] || fail "in w/: $(ls -A "$TMP/w")" || return 1
	expect_trace int.fxt 3
}

test_sigterm_reaches_command() {
	bg record -q -- sh -c 'touch "$0"; exec sleep 30' "$TMP/term.started"
	bg_started "$TMP/term.started" || return 1
	kill -TERM "$PID"
	bg_wait || return 1
	[ "$RC" = 143 ] || fail "exit $RC, expected 143 (sleep killed by SIGTERM): $ERR" ||
		return 1
	expect_trace trace.fxt 2
}

test_trigger_stops() {
	FAKE_ALERT=boom t_run record -d 30s --trigger other:stop --trigger boom:stop
	[ "$RC" = 0 ] || fail "exit $RC: $ERR" || return 1
	[[ $ERR == *", stopped by alert 'boom'"* ]] || fail "summary: $ERR" || return 1
	expect_trace trace.fxt 3
}

test_other_alert_ignored() {
	local t0=$SECONDS
	FAKE_ALERT=other t_run record -d 1s --trigger boom:stop
	[ "$RC" = 0 ] || fail "exit $RC: $ERR" || return 1
	[[ $ERR != *"stopped by"* ]] || fail "summary: $ERR" || return 1
	[ $((SECONDS - t0)) -ge 1 ] || fail "stopped before its duration"
}

test_failed_session_keeps_old_file() {
	echo old > "$TMP/w/trace.fxt"
	FAKE_DESTROY=5 t_run record -d 100ms
	expect_error "trace.fxt: the trace could not be written: Input/output error" || return 1
	[ "$(ls -A "$TMP/w")" = trace.fxt ] || fail "in w/: $(ls -A "$TMP/w")" || return 1
	[ "$(cat "$TMP/w/trace.fxt")" = old ] || fail "trace.fxt was replaced"
}

test_dispatch_error_leaves_nothing() {
	FAKE_DISPATCH=2 t_run record -d 5s -o x.fxt
	expect_error "x.fxt: the session failed" || return 1
	expect_empty_dir "$TMP/w"
}

test_dispatch_error_waits_for_command() {
	FAKE_DISPATCH=2 t_run record -o x.fxt -- sh -c 'sleep 0.5; echo done > done'
	[ "$RC" = 1 ] || fail "exit $RC: $ERR" || return 1
	[[ $ERR == "tracebufctl: x.fxt: the session failed (output or device error)
tracebufctl: waiting for sh (pid "*") to exit; SIGINT leaves it running" ]] ||
		fail "stderr: $ERR" || return 1
	[ "$(ls -A "$TMP/w")" = "done" ] || fail "in w/: $(ls -A "$TMP/w")"
}

# SIGINT to tracebufctl alone, with a COMMAND that ignores it: the first
# says recording goes on until COMMAND exits, the second stops the
# recording and keeps the trace, the third stops waiting for COMMAND.
test_sigint_to_tracebufctl_alone() {
	local child
	bg record -o i.fxt -- sh -c 'trap "" INT; touch "$0"; while :; do sleep 0.05; done' \
		"$TMP/int.started"
	bg_started "$TMP/int.started" || return 1
	kill -INT "$PID"
	sleep 0.5
	kill -0 "$PID" 2> /dev/null || fail "exited after one SIGINT" || return 1
	grep -q "^tracebufctl: Interrupt: recording until sh (pid [0-9]*) exits; SIGINT again stops the recording now$" \
		"$TMP/err" || fail "stderr: $(cat "$TMP/err")" || return 1
	[ ! -e "$TMP/w/i.fxt" ] || fail "the trace was written already" || return 1
	kill -INT "$PID"
	for _ in $(seq 50); do
		[ -e "$TMP/w/i.fxt" ] && break
		sleep 0.1
	done
	expect_trace i.fxt 3 || return 1
	grep -q "^tracebufctl: waiting for sh (pid [0-9]*) to exit; SIGINT leaves it running$" \
		"$TMP/err" || fail "stderr: $(cat "$TMP/err")" || return 1
	kill -0 "$PID" 2> /dev/null || fail "did not wait for sh" || return 1
	child=$(sed -n 's/.*waiting for sh (pid \([0-9]*\)).*/\1/p' "$TMP/err")
	kill -INT "$PID"
	bg_wait || return 1
	kill -0 "$child" 2> /dev/null || fail "sh $child is gone" || return 1
	kill -KILL "$child"
	[ "$RC" = 130 ] || fail "exit $RC, expected 130: $ERR" || return 1
	[[ $ERR == *"tracebufctl: leaving sh (pid $child) running" ]] || fail "stderr: $ERR"
}

# -d ended the recording and COMMAND runs on: a SIGTERM then does not say
# that the recording goes on until COMMAND exits (it is over), only that
# COMMAND is left running.
test_signal_after_duration() {
	local child _
	bg record -d 200ms -o t.fxt -- sh -c 'trap "" TERM; touch "$0"; while :; do sleep 0.05; done' \
		"$TMP/term.started"
	bg_started "$TMP/term.started" || return 1
	for _ in $(seq 100); do
		grep -q "waiting for sh" "$TMP/err" && break
		sleep 0.1
	done
	child=$(sed -n 's/.*waiting for sh (pid \([0-9]*\)).*/\1/p' "$TMP/err")
	[ -n "$child" ] || fail "stderr: $(cat "$TMP/err")" || return 1
	kill -TERM "$PID"
	bg_wait || return 1
	kill -KILL "$child"
	[ "$RC" = 143 ] || fail "exit $RC, expected 143: $ERR" || return 1
	[[ $ERR != *"recording until"* ]] || fail "stderr: $ERR" || return 1
	[[ $ERR == *"tracebufctl: leaving sh (pid $child) running" ]] || fail "stderr: $ERR" ||
		return 1
	expect_trace t.fxt 3
}

test_create_errors() {
	local e
	for e in "27 buffer size 4.0 MiB is larger than the module's max_buffer_size, 1.0 MiB" \
		 "22 invalid configuration" \
		 "1 permission denied: needs CAP_PERFMON or CAP_SYS_ADMIN (or the manager_gid group)" \
		 "13 permission denied: needs CAP_PERFMON" \
		 "2 cannot open /dev/tracebuf: is the tracebuf module loaded?" \
		 "93 /dev/tracebuf: the module speaks another ABI major version"; do
		FAKE_CREATE=${e%% *} t_run record -d 1s
		expect_error "${e#* }" || return 1
		expect_empty_dir "$TMP/w" || return 1
	done
}

# A kernel with 16 KiB pages (FAKE_ALIGN) refuses 8 KiB buffers: record
# says which size and the kernel's rule, not "invalid configuration".
test_size_not_aligned_for_this_kernel() {
	FAKE_CREATE=22 FAKE_ALIGN=16384 t_run record -d 1s -b 8K
	expect_error "buffer size 8.0 KiB is not a multiple of 16.0 KiB, this kernel's buffer alignment (its page size)" ||
		return 1
	expect_empty_dir "$TMP/w" || return 1
	FAKE_CREATE=22 FAKE_ALIGN=16384 t_run record -d 1s -b 32K -b app:20K
	expect_error "buffer size 20.0 KiB is not a multiple of 16.0 KiB" || return 1
	expect_empty_dir "$TMP/w"
}

test_output_in_subdirectory() {
	mkdir "$TMP/w/sub"
	t_run record -q -d 50ms -o sub/t.fxt
	[ "$RC" = 0 ] || fail "exit $RC: $ERR" || return 1
	[ "$(ls -A "$TMP/w/sub")" = t.fxt ] || fail "in sub/: $(ls -A "$TMP/w/sub")" || return 1
	[ "$(stat -c %a "$TMP/w/sub/t.fxt")" = "$(printf '%o' $((0666 & ~$(umask))))" ] ||
		fail "mode $(stat -c %a "$TMP/w/sub/t.fxt")"
}

test_status_line_on_terminal() {
	command -v script > /dev/null || return 0	# util-linux: always on Debian
	(cd "$TMP/w" && FAKE_PROVIDERS=app,lossy script -qec "$TBCTL record -d 700ms" /dev/null) \
		> "$TMP/out" 2>&1 < /dev/null
	grep -q $'\rrecording 0.[0-9] s  2 providers  1.0 MiB recorded  .* saved  3 dropped' \
		"$TMP/out" ||
		fail "no status line: $(cat -A "$TMP/out" | head -c 300)" || return 1
	[ "$(grep -o $'\rrecording' "$TMP/out" | wc -l)" -ge 2 ] ||
		fail "the status line was not updated"
}

# Without FAKE_GENL there is no netlink family: list falls back to the
# (fake) manager ioctls.  tests/netlink_fake_test.sh has the netlink side.
test_list() {
	t_run list
	[ "$RC" = 0 ] || fail "exit $RC: $ERR" || return 1
	[ "$OUT" = "   ID      PID  STATE       MODE          BUFFER  MANAGER NAME
    1       10  started     streaming    1.0 MiB  4       app
    2       20  registered  -                  -  -       db" ] || fail "list: $OUT" || return 1
	t_run -j list
	# the manager ioctls have counters, but not the records dropped
	[ "$OUT" = '[{"id":1,"pid":10,"state":"started","mode":"streaming","buffer_size":1048576,"manager":4,"mine":false,"packets_sent":9,"packets_received":8,"saves":1,"records_dropped":null,"name":"app"},{"id":2,"pid":20,"state":"registered","mode":null,"buffer_size":0,"manager":null,"mine":false,"packets_sent":0,"packets_received":0,"saves":0,"records_dropped":null,"name":"db"}]' ] ||
		fail "list -j: $OUT" || return 1
	FAKE_CREATE=1 t_run list -j
	expect_error "permission denied"
}

test_categories() {
	t_run categories
	[ "$RC" = 0 ] || fail "exit $RC: $ERR" || return 1
	[ "$OUT" = "app  net  network packets
app  io" ] || fail "categories: $OUT" || return 1
	t_run categories --json
	[ "$OUT" = '[{"provider":"app","id":1,"category":"net","description":"network packets"},{"provider":"app","id":1,"category":"io","description":""}]' ] ||
		fail "categories -j: $OUT" || return 1
	FAKE_CREATE=2 t_run categories
	expect_error "is the tracebuf module loaded?"
}

# shellcheck disable=SC2034 # TESTS and NEEDS are for tap_main
TESTS=(
	test_duration_writes_trace
	test_failed_provider_in_summary
	test_incomplete_trace_exit_statuses
	test_best_effort
	test_incomplete_with_failed_command
	test_drops_warn
	test_unknown_category_with_drops
	test_impossible_drops_not_counted
	test_override_for_absent_provider_warns
	test_quiet
	test_config_passthrough
	test_config_defaults
	test_command_exit_status
	test_command_killed_by_signal
	test_command_end_named_for_its_provider
	test_child_end_named
	test_other_provider_end_named
	test_command_runs_after_session_start
	test_command_gets_clean_fds_and_signals
	test_command_not_found
	test_sigint_stops
	test_sigint_to_tracebufctl_alone
	test_sigterm_reaches_command
	test_signal_after_duration
	test_trigger_stops
	test_other_alert_ignored
	test_failed_session_keeps_old_file
	test_dispatch_error_leaves_nothing
	test_dispatch_error_waits_for_command
	test_create_errors
	test_size_not_aligned_for_this_kernel
	test_output_in_subdirectory
	test_status_line_on_terminal
	test_list
	test_categories
	test_left_provider_is_not_missing
)

# shellcheck disable=SC2034
NEEDS=("$TBCTL")
tap_main
