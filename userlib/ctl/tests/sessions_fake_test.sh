#!/bin/bash
# SPDX-License-Identifier: MIT
#
# Background sessions and where traces go, end to end without the module
# (tracebufctl-fake, see record_fake_test.sh): record --detach, status,
# stop, alert, a killed session leaving nothing stale; -o - (standard
# output), -o FILE.gz and FILE.zst, --max-size and --rotate.  The
# sessions' runtime directory is TRACEBUF_RUNTIME_DIR=$TMP/run.  KTAP on
# stdout.
#
#   TBCTL_FAKE=build/tests/tracebufctl-fake tests/sessions_fake_test.sh
set -u

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
TOP=$(cd "$HERE/.." && pwd)
TBCTL=${TBCTL_FAKE:-$TOP/build/tests/tracebufctl-fake}
# shellcheck source=lib.sh
. "$HERE/lib.sh"
export TRACEBUF_RUNTIME_DIR=$TMP/run

# dumps FILE [MIN]: FILE (in $TMP/w) dumps cleanly with at least MIN records
dumps() {
	local n
	n=$(cd "$TMP/w" && "$TBCTL" dump "$1" | wc -l) && [ "$n" -ge "${2:-3}" ] ||
		fail "$1 does not dump cleanly (${n:-0} records)"
}

# detach ARGS...: record --detach ARGS in $TMP/w; sets ID (its output)
detach() {
	t_run record --detach "$@"
	[ "$RC" = 0 ] || fail "record --detach $*: exit $RC: $ERR" || return 1
	[[ $OUT =~ ^[0-9]+$ ]] || fail "record --detach printed '$OUT', not an id" || return 1
	ID=$OUT
}

# gone ID: session ID has ended (at most 10 s) and left no file behind
gone() {
	local _
	for _ in $(seq 100); do
		kill -0 "$1" 2> /dev/null || break
		sleep 0.1
	done
	! kill -0 "$1" 2> /dev/null || fail "session $1 still running" || return 1
	[ -z "$(ls -A "$TMP/run" 2> /dev/null)" ] || fail "left in run/: $(ls -A "$TMP/run")"
}

test_detach_status_stop() {
	detach -o d.fxt || return 1
	[[ $ERR == *"session $ID"*"stop $ID"* ]] || fail "no hint on stderr: $ERR" || return 1
	t_run status
	[ "$RC" = 0 ] || fail "status: exit $RC: $ERR" || return 1
	[[ $(sed -n 1p "$TMP/out") =~ ^ID\ +MODE\ +STATE\ +PROVIDERS\ +RECORDED\ +WRITTEN\ +DROPPED\ +OUTPUT$ ]] ||
		fail "status: $OUT" || return 1
	# what the provider recorded so far, beside the file's first record
	[[ $(sed -n 2p "$TMP/out") =~ ^$ID\ +oneshot\ +recording\ +1\ +1\.0\ MiB\ +8\ B\ +0\ +d\.fxt$ ]] ||
		fail "status line: $(sed -n 2p "$TMP/out")" || return 1
	t_run -j status
	[[ $OUT == "[{\"id\":$ID,\"mode\":\"oneshot\",\"state\":\"recording\",\"detached\":true,\"providers\":1,\"recorded\":1048576,\"bytes\":8,"*"\"output\":\"d.fxt\"}]" ]] ||
		fail "status -j: $OUT" || return 1
	t_run stop "$ID"
	[ "$RC" = 0 ] || fail "stop: exit $RC: $ERR" || return 1
	# what the session said: its summary
	[[ $ERR == *"wrote d.fxt: "*", stopped by 'tracebufctl stop'"* ]] ||
		fail "stop printed: $ERR" || return 1
	dumps d.fxt 2 || return 1
	gone "$ID" || return 1
	t_run status
	[ "$OUT" = "$(sed -n 1p <<< "$OUT")" ] || fail "status after stop: $OUT"
}

# stop takes the only session without an id; none or two: it says so (and
# snapshot names the two)
test_stop_which_session() {
	t_run stop
	expect_error "stop: no recording session is running" || return 1
	detach -o a.fxt || return 1
	local a=$ID
	detach -o b.fxt || return 1
	# a few ticks of the fake session (20 ms): events for a.fxt to hold
	sleep 0.1
	t_run stop
	expect_error "stop: 2 sessions could be meant: $a (running), $ID (running): name one" ||
		return 1
	t_run snapshot
	expect_error "snapshot: 2 sessions could be meant: $a (running), $ID (running): name one" ||
		return 1
	t_run stop 99999999
	expect_error "stop: no session 99999999 is running" || return 1
	t_run stop x1
	expect_error "stop: invalid session id 'x1'" || return 1
	t_run stop "$a"
	[ "$RC" = 0 ] || fail "stop $a: exit $RC: $ERR" || return 1
	t_run stop
	[ "$RC" = 0 ] || fail "stop (the one left): exit $RC: $ERR" || return 1
	dumps a.fxt && dumps b.fxt && gone "$a" && gone "$ID"
}

# wait_ended ID: session ID has ended by itself (at most 10 s), and
# status lists it as "ended"
wait_ended() {
	local _
	for _ in $(seq 100); do
		kill -0 "$1" 2> /dev/null || break
		sleep 0.1
	done
	t_run status
	[[ $OUT == *$'\n'"$1 "*" ended ("* ]] || fail "status: $OUT"
}

# a session running in the foreground and one that ended by itself:
# stop without an id could mean either, and stops neither; snapshot
# only the one running
test_stop_running_or_ended_refused() {
	local end pid _
	detach -o e.fxt -p nosuch -d 200ms || return 1
	end=$ID
	wait_ended "$end" || return 1
	(cd "$TMP/w" && exec "$TBCTL" record -q -o f.fxt) > /dev/null 2> "$TMP/ferr" &
	pid=$!
	for _ in $(seq 100); do
		[ -S "$TMP/run/$pid.sock" ] && break
		sleep 0.1
	done
	t_run stop
	expect_error "stop: 2 sessions could be meant: $pid (running), $end (ended): name one" ||
		return 1
	# neither was stopped
	kill -0 "$pid" 2> /dev/null || fail "the running session was stopped" || return 1
	[ -e "$TMP/run/$end.exit" ] || fail "the ended one is gone: $(ls -A "$TMP/run")" ||
		return 1
	t_run snapshot -o x.fxt
	[ "$RC" = 0 ] && [[ $OUT == "$TMP/w/x.fxt: "* ]] || fail "snapshot: $RC '$OUT' $ERR" ||
		return 1
	t_run stop "$pid"
	[ "$RC" = 0 ] || fail "stop $pid: exit $RC: $ERR" || return 1
	wait "$pid" || fail "record exited $?: $(cat "$TMP/ferr")" || return 1
	# the one left: stop takes it, with its status
	t_run stop
	[ "$RC" = 4 ] || fail "stop (the ended one): exit $RC, expected 4: $ERR" || return 1
	[[ $ERR == *"warning: -p nosuch: no provider of that name registered"* ]] ||
		fail "stop printed: $ERR" || return 1
	[ -z "$(ls -A "$TMP/run")" ] || fail "left in run/: $(ls -A "$TMP/run")" || return 1
	dumps f.fxt 2 && dumps e.fxt 2
}

# the exit status of the session is stop's: here a -p that matched nothing
test_stop_returns_session_status() {
	detach -o s.fxt -p nosuch || return 1
	t_run stop
	[ "$RC" = 4 ] || fail "stop: exit $RC, expected 4: $ERR" || return 1
	[[ $ERR == *"warning: -p nosuch: no provider of that name registered"* ]] ||
		fail "stop printed: $ERR"
}

# ended by itself, not as asked: status shows it, stop shows what it said
test_ended_session_kept() {
	detach -o e.fxt -p nosuch -d 200ms || return 1
	local _
	for _ in $(seq 100); do
		kill -0 "$ID" 2> /dev/null || break
		sleep 0.1
	done
	t_run status
	[ "$RC" = 0 ] && [[ $(sed -n 2p "$TMP/out") =~ ^$ID\ +oneshot\ +ended\ \(4\) ]] ||
		fail "status: $RC $OUT" || return 1
	t_run -j status
	[[ $OUT == *"\"id\":$ID,"*"\"state\":\"ended\""*"\"exit\":4}]" ]] ||
		fail "status -j: $OUT" || return 1
	t_run stop
	[ "$RC" = 4 ] || fail "stop: exit $RC, expected 4: $ERR" || return 1
	[[ $ERR == *"warning: -p nosuch: no provider of that name registered"* ]] ||
		fail "stop printed: $ERR" || return 1
	[ -z "$(ls -A "$TMP/run")" ] || fail "left in run/: $(ls -A "$TMP/run")" || return 1
	t_run stop "$ID"
	expect_error "stop: no session $ID is running"
}

# await CMD...: until CMD succeeds, at most 10 s
await() {
	local _
	for _ in $(seq 100); do
		"$@" && return 0
		sleep 0.1
	done
	return 1
}

# cmd_pid: the pid COMMAND wrote to cmd.pid (at most 10 s)
cmd_pid() {
	await test -s "$TMP/w/cmd.pid"
	CMD=$(cat "$TMP/w/cmd.pid" 2> /dev/null)
	[ -n "$CMD" ] || fail "COMMAND did not start"
}

# waiting FILE: the session $ID wrote FILE (at most 10 s) and status
# lists it as waiting for its COMMAND
waiting() {
	await test -e "$TMP/w/$1"
	dumps "$1" 2 || return 1
	t_run status
	[ "$RC" = 0 ] && [[ $(sed -n 2p "$TMP/out") =~ ^$ID\ +oneshot\ +waiting\ +1\ .*\ $1$ ]] ||
		fail "status: $RC $OUT" || return 1
	t_run -j status
	[[ $OUT == "[{\"id\":$ID,"*"\"state\":\"waiting\""*"\"output\":\"$1\"}]" ]] ||
		fail "status -j: $OUT"
}

# with_command TEST: run TEST, whose COMMAND writes its pid to cmd.pid,
# and kill that COMMAND if TEST left it running
with_command() {
	local rc=0
	CMD=
	"$1" || rc=1
	[ -z "$CMD" ] || kill -KILL "$CMD" 2> /dev/null
	return $rc
}

# An alert stopped the recording and COMMAND runs on: the session is
# listed, waiting for it; COMMAND killed then, the session has ended by
# itself with COMMAND's status, and is kept as "ended (143)" until stop.
alert_stop_then_command_killed() {
	detach -o t.fxt --trigger boom:stop -- sh -c 'echo $$ > cmd.pid; exec sleep 30' ||
		return 1
	cmd_pid || return 1
	t_run alert boom
	[ "$RC" = 0 ] && [ "$OUT" = "session $ID: stop" ] ||
		fail "alert boom: $RC '$OUT' $ERR" || return 1
	waiting t.fxt || return 1
	# nothing more to do for the triggers
	t_run alert boom
	[ "$RC" = 1 ] && [ "$OUT" = "session $ID: the recording is over: it waits for sh" ] &&
		[ "$ERR" = "tracebufctl: alert: no session acted on boom" ] ||
		fail "alert boom again: $RC '$OUT' $ERR" || return 1
	t_run snapshot
	expect_error "snapshot: session $ID: the recording is over" || return 1
	kill -TERM "$CMD"
	wait_ended "$ID" || return 1
	[[ $(sed -n 2p "$TMP/out") =~ ^$ID\ +oneshot\ +ended\ \(143\)\ .*\ t\.fxt$ ]] ||
		fail "status: $OUT" || return 1
	t_run stop
	[ "$RC" = 143 ] || fail "stop: exit $RC, expected 143: $ERR" || return 1
	[[ $ERR == *"wrote t.fxt: "*", stopped by alert 'boom'"* ]] ||
		fail "stop printed: $ERR" || return 1
	[ -z "$(ls -A "$TMP/run")" ] || fail "left in run/: $(ls -A "$TMP/run")"
}

test_alert_stop_then_command_killed() {
	with_command alert_stop_then_command_killed
}

# stop while the session waits for COMMAND: answered at once with the
# trace's status; the session is no longer listed, COMMAND runs on
stop_while_waiting_for_command() {
	detach -o w.fxt -d 200ms -- sh -c 'echo $$ > cmd.pid; exec sleep 30' || return 1
	cmd_pid || return 1
	waiting w.fxt || return 1
	t_run stop
	[ "$RC" = 0 ] || fail "stop: exit $RC: $ERR" || return 1
	[[ $ERR == *"wrote w.fxt: "*"waiting for sh (pid $CMD) to exit"* ]] ||
		fail "stop printed: $ERR" || return 1
	kill -0 "$CMD" 2> /dev/null || fail "COMMAND $CMD is gone" || return 1
	t_run status
	[ "$RC" = 0 ] && [ "$(wc -l < "$TMP/out")" = 1 ] || fail "status: $OUT" || return 1
	kill -TERM "$CMD"
	gone "$ID"
}

test_stop_while_waiting_for_command() {
	with_command stop_while_waiting_for_command
}

test_alert_triggers() {
	detach -o t.fxt --trigger boom:stop || return 1
	# no session has a trigger for it: not what was asked
	t_run alert other
	[ "$RC" = 1 ] && [ "$OUT" = "session $ID: no trigger for other" ] &&
		[ "$ERR" = "tracebufctl: alert: no session has a trigger for other" ] ||
		fail "alert other: $RC '$OUT' $ERR" || return 1
	t_run alert boom
	[ "$RC" = 0 ] && [ "$OUT" = "session $ID: stop" ] ||
		fail "alert boom: $RC '$OUT' $ERR" || return 1
	gone "$ID" || return 1
	dumps t.fxt 2 || return 1
	t_run alert boom
	expect_error "alert: no recording session is running" || return 1
	t_run alert 'has blank'
	expect_error "alert: invalid alert name" || return 1
	t_run alert waytoolongforanalert
	expect_error "alert: invalid alert name"
}

# snapshot: -o FILE (the caller's directory), the default names, a
# trigger; compressed; refused for streaming; a provider missing: exit 1
test_snapshots() {
	detach -m circular -o c.fxt --trigger snap:snapshot --trigger end:stop || return 1
	mkdir -p "$TMP/w/sub"
	RC=0
	(cd "$TMP/w/sub" && exec "$TBCTL" snapshot -o x.fxt) > "$TMP/out" 2> "$TMP/err" || RC=$?
	OUT=$(cat "$TMP/out") ERR=$(cat "$TMP/err")
	[ "$RC" = 0 ] && [[ $OUT == "$TMP/w/sub/x.fxt: "*" B from 1 provider" ]] ||
		fail "snapshot -o x.fxt: $RC '$OUT' $ERR" || return 1
	dumps sub/x.fxt 3 || return 1
	t_run snapshot "$ID"
	[ "$RC" = 0 ] && [[ $OUT == "$TMP/w/c.snapshot-1.fxt: "* ]] ||
		fail "snapshot: $RC '$OUT' $ERR" || return 1
	t_run alert snap
	[ "$RC" = 0 ] && [ "$OUT" = "session $ID: snapshot" ] ||
		fail "alert snap: $RC '$OUT' $ERR" || return 1
	t_run snapshot -o y.fxt.gz
	[ "$RC" = 0 ] || fail "snapshot -o y.fxt.gz: $RC $ERR" || return 1
	[ "$(head -c 2 "$TMP/w/y.fxt.gz" | od -An -tx1 | tr -d ' ')" = 1f8b ] ||
		fail "y.fxt.gz is not gzip" || return 1
	dumps y.fxt.gz 3 && dumps c.snapshot-1.fxt 3 && dumps c.snapshot-2.fxt 3 || return 1
	t_run alert end
	[ "$RC" = 0 ] && [ "$OUT" = "session $ID: stop" ] || fail "alert end: $RC '$OUT'" ||
		return 1
	gone "$ID" && dumps c.fxt 2 || return 1
	# a provider that did not answer (the session's fake says so)
	FAKE_SNAPSHOT=-1 detach -m oneshot -o o.fxt || return 1
	t_run snapshot -o z.fxt
	[ "$RC" = 1 ] && [[ $OUT == *"/z.fxt: 8 B from 0 providers" ]] &&
		[[ $ERR == *"warning: provider app (1): did not answer the snapshot in time"* ]] ||
		fail "a missing provider: $RC '$OUT' $ERR" || return 1
	t_run stop && gone "$ID" || return 1
	detach -m streaming -o n.fxt || return 1
	t_run snapshot
	expect_error "snapshot: session $ID: the session streams" || return 1
	t_run stop && gone "$ID" || return 1
	t_run snapshot -o -
	expect_error "snapshot: -o needs a file" || return 1
	t_run snapshot 1 2
	expect_error "snapshot: one session id at most" || return 1
	t_run snapshot --bogus
	expect_error "snapshot: unknown option '--bogus'" || return 1
	t_run snapshot
	expect_error "snapshot: no recording session is running"
}

# a foreground session is a session too: status lists it, stop stops it
test_foreground_session_listed() {
	(cd "$TMP/w" && exec "$TBCTL" record -q -o f.fxt) > /dev/null 2> "$TMP/ferr" &
	local pid=$! line _
	for _ in $(seq 100); do
		[ -S "$TMP/run/$pid.sock" ] && break
		sleep 0.1
	done
	t_run status
	line=$(sed -n 2p "$TMP/out")
	[[ $line =~ ^$pid\ .*recording.*f\.fxt$ ]] || fail "status: $OUT" || return 1
	t_run stop "$pid"
	[ "$RC" = 0 ] || fail "stop: exit $RC: $ERR" || return 1
	wait "$pid" || fail "record exited $?: $(cat "$TMP/ferr")" || return 1
	dumps f.fxt 2
}

# killed: the kernel cleans up the providers; status shows nothing stale,
# and removes the temporary file the trace was being written to
test_killed_session_not_shown() {
	local _
	mkdir "$TMP/w/sub"
	detach -o sub/k.fxt || return 1
	[ -n "$(find "$TMP/w/sub" -name '.k.fxt.??????')" ] ||
		fail "no temporary file: $(ls -A "$TMP/w/sub")" || return 1
	kill -KILL "$ID"
	for _ in $(seq 100); do
		kill -0 "$ID" 2> /dev/null || break
		sleep 0.1
	done
	[ -S "$TMP/run/$ID.sock" ] || fail "no socket left to clean up" || return 1
	t_run status
	[ "$RC" = 0 ] && [ "$(wc -l < "$TMP/out")" = 1 ] || fail "status: $OUT" || return 1
	[ -z "$(ls -A "$TMP/run")" ] || fail "left in run/: $(ls -A "$TMP/run")" || return 1
	expect_empty_dir "$TMP/w/sub"
}

# it fails before it runs: its message and status here, nothing left
test_detach_failure_reported() {
	FAKE_CREATE=19 t_run record --detach -o e.fxt
	[ "$RC" = 1 ] || fail "exit $RC, expected 1: $ERR" || return 1
	[[ $ERR == "tracebufctl: "*"is the tracebuf module loaded?"* ]] ||
		fail "stderr: $ERR" || return 1
	[ -z "$OUT" ] || fail "an id printed: $OUT" || return 1
	expect_empty_dir "$TMP/w" || return 1
	[ -z "$(ls -A "$TMP/run")" ] || fail "left in run/: $(ls -A "$TMP/run")"
}

test_detach_refusals() {
	t_run record --detach -o -
	expect_error "--detach: the trace cannot go to standard output" || return 1
	t_run record --max-size 1M
	expect_error "--max-size is for -m streaming"
}

test_stdout_output() {
	RC=0
	(cd "$TMP/w" && exec "$TBCTL" record -d 200ms -o - -- sh -c 'echo from-command') \
		> "$TMP/w/out.fxt" 2> "$TMP/err" || RC=$?
	ERR=$(cat "$TMP/err")
	[ "$RC" = 0 ] || fail "exit $RC: $ERR" || return 1
	dumps out.fxt 2 || return 1
	# COMMAND's output goes to stderr, away from the trace
	[[ $ERR == *from-command* ]] || fail "command's output not on stderr: $ERR" || return 1
	[[ $ERR == *"wrote standard output: "* ]] || fail "summary: $ERR" || return 1
	[ "$(ls -A "$TMP/w")" = out.fxt ] || fail "in w/: $(ls -A "$TMP/w")"
}

test_compressed_outputs() {
	t_run record -q -d 100ms -o t.fxt.gz
	[ "$RC" = 0 ] || fail "gz: exit $RC: $ERR" || return 1
	[ "$(head -c 2 "$TMP/w/t.fxt.gz" | od -An -tx1 | tr -d ' ')" = 1f8b ] ||
		fail "t.fxt.gz is not gzip" || return 1
	dumps t.fxt.gz || return 1
	t_run record -q -d 100ms -o t.fxt.zst
	[ "$RC" = 0 ] || fail "zst: exit $RC: $ERR" || return 1
	zstd -t -q "$TMP/w/t.fxt.zst" || fail "t.fxt.zst is not zstd" || return 1
	dumps t.fxt.zst || return 1
	# the same records as uncompressed
	t_run record -q -d 100ms -o t.fxt
	[ "$(cd "$TMP/w" && "$TBCTL" dump t.fxt.gz | wc -l)" -ge 3 ]
}

test_compressor_missing() {
	RC=0
	(cd "$TMP/w" && PATH=/nonexistent exec "$TBCTL" record -q -d 100ms -o t.fxt.zst) \
		> "$TMP/out" 2> "$TMP/err" < /dev/null || RC=$?
	ERR=$(cat "$TMP/err")
	expect_error "t.fxt.zst: zstd is needed for this file and is not installed (PATH)" ||
		return 1
	expect_empty_dir "$TMP/w"
}

test_max_size_stops() {
	t_run record -m streaming --max-size 1 -d 30s
	[ "$RC" = 0 ] || fail "exit $RC: $ERR" || return 1
	[[ $ERR == *", stopped at --max-size"* ]] || fail "summary: $ERR" || return 1
	dumps trace.fxt 2
}

# fxt_files NAME...: each (in $TMP/w) starts with the FXT magic record
# and dumps cleanly with its provider info record and an event
fxt_files() {
	local f
	for f in "$@"; do
		[ "$(unz "$f" | head -c 8 | od -An -tx1 | tr -d ' \n')" = 1000044678541600 ] ||
			fail "$f does not start with the FXT magic record" || return 1
		dumps "$f" 3 || return 1
		(cd "$TMP/w" && "$TBCTL" dump "$f") | grep -q 'provider-info id=1 name="app"' ||
			fail "$f: no provider info record" || return 1
	done
}

# unz FILE: FILE (in $TMP/w), decompressed
unz() {
	case $1 in
	*.gz) gzip -dc "$TMP/w/$1" ;;
	*) cat "$TMP/w/$1" ;;
	esac
}

# --rotate: a new file each time one holds --max-size, each a trace alone
test_max_size_rotates() {
	local files n i
	t_run record -m streaming --max-size 100 --rotate -d 400ms -o r.fxt
	[ "$RC" = 0 ] || fail "exit $RC: $ERR" || return 1
	# r.fxt, r.1.fxt ... r.N-1.fxt and nothing else
	files=$(cd "$TMP/w" && ls -A)
	n=$(wc -l <<< "$files")
	[ "$n" -ge 4 ] && [ -e "$TMP/w/r.fxt" ] || fail "files: $files" || return 1
	for i in $(seq $((n - 1))); do
		[ -e "$TMP/w/r.$i.fxt" ] || fail "no r.$i.fxt: $files" || return 1
	done
	[[ $ERR == *"wrote $n files, r.fxt ... r.$((n - 1)).fxt: "* ]] ||
		fail "summary: $ERR" || return 1
	[[ $ERR != *"stopped at"* ]] || fail "summary: $ERR" || return 1
	# shellcheck disable=SC2086
	fxt_files $files || return 1
	# compressed: the number goes before .fxt.gz
	t_run record -q -m streaming --max-size 100 --rotate -d 200ms -o z.fxt.gz
	[ "$RC" = 0 ] || fail "gz: exit $RC: $ERR" || return 1
	[ -e "$TMP/w/z.1.fxt.gz" ] || fail "gz: $(ls -A "$TMP/w")" || return 1
	[ "$(head -c 2 "$TMP/w/z.1.fxt.gz" | od -An -tx1 | tr -d ' ')" = 1f8b ] ||
		fail "z.1.fxt.gz is not gzip" || return 1
	fxt_files z.fxt.gz z.1.fxt.gz
}

# status shows the file being written; refusals
test_rotate_status_and_refusals() {
	local _ files
	detach -m streaming --max-size 100 --rotate -o s.fxt || return 1
	for _ in $(seq 100); do
		t_run -j status
		[[ $OUT == *'"files":'[2-9]*'"output":"s.'[1-9]*'.fxt"}]' ]] && break
		sleep 0.1
	done
	[[ $OUT == *'"files":'[2-9]*'"output":"s.'[1-9]*'.fxt"}]' ]] ||
		fail "status -j: $OUT" || return 1
	t_run status
	[[ $(sed -n 2p "$TMP/out") =~ ^$ID\ +streaming\ +recording\ .*\ s\.[1-9][0-9]*\.fxt$ ]] ||
		fail "status: $OUT" || return 1
	t_run stop "$ID"
	[ "$RC" = 0 ] || fail "stop: exit $RC: $ERR" || return 1
	gone "$ID" || return 1
	files=$(cd "$TMP/w" && ls -A)
	# shellcheck disable=SC2086
	fxt_files $files || return 1
	t_run record --rotate -m streaming
	expect_error "--rotate needs --max-size" || return 1
	t_run record --rotate --max-size 1M
	expect_error "--max-size is for -m streaming" || return 1
	t_run record -m streaming --max-size 1M --rotate -o -
	expect_error "--rotate: standard output (-o -) cannot go on in another file" || return 1
	# a next file that cannot be made fails the recording; those complete stay
	mkdir "$TMP/w/q.2.fxt"
	t_run record -m streaming --max-size 100 --rotate -d 5s -o q.fxt
	expect_error "q.2.fxt: is a directory" || return 1
	fxt_files q.fxt || return 1
	[ ! -e "$TMP/w/q.1.fxt" ] && [ -z "$(cd "$TMP/w" && ls -A | grep '^\.')" ] ||
		fail "left: $(ls -A "$TMP/w")"
}

# status and alert of the sessions named; a runtime directory that other
# users could write into is refused, by record --detach and status alike
test_named_sessions_and_a_shared_run_dir() {
	detach -o n.fxt -d 20s || return 1
	t_run status "$ID"
	[ "$RC" = 0 ] && [[ $(sed -n 2p "$TMP/out") =~ ^$ID\ +oneshot\ +recording ]] ||
		fail "status $ID: exit $RC: $OUT $ERR" || return 1
	t_run status x7
	expect_error "status: invalid session id 'x7'" || return 1
	t_run status 99999999
	expect_error "no session 99999999" || return 1
	# (no trigger of go in it: said, and not a success)
	t_run alert go "$ID"
	[ "$RC" = 1 ] && [[ $OUT == "session $ID: no trigger for go" ]] &&
		[[ $ERR == *"alert: no session has a trigger for go"* ]] ||
		fail "alert go $ID: exit $RC: $OUT $ERR" || return 1
	t_run alert go "$ID" x7
	expect_error "alert: invalid session id 'x7'" || return 1
	t_run alert
	expect_error "alert: missing NAME" || return 1
	chmod 0755 "$TMP/run" || return 1
	t_run status
	expect_error "not a directory private to this user (mode 0700): refused" || return 1
	t_run record --detach -o m.fxt
	expect_error "not a directory private to this user (mode 0700): refused" || return 1
	chmod 0700 "$TMP/run" || return 1
	t_run stop "$ID"
	[ "$RC" = 0 ] || fail "stop $ID: exit $RC: $ERR" || return 1
	dumps n.fxt 2 && gone "$ID"
}

NEEDS=("$TBCTL")
TESTS=(
	test_detach_status_stop
	test_stop_which_session
	test_stop_running_or_ended_refused
	test_stop_returns_session_status
	test_ended_session_kept
	test_alert_stop_then_command_killed
	test_stop_while_waiting_for_command
	test_alert_triggers
	test_snapshots
	test_foreground_session_listed
	test_killed_session_not_shown
	test_detach_failure_reported
	test_detach_refusals
	test_stdout_output
	test_compressed_outputs
	test_compressor_missing
	test_max_size_stops
	test_max_size_rotates
	test_rotate_status_and_refusals
	test_named_sessions_and_a_shared_run_dir
)
tap_main
