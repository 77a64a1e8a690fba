#!/bin/bash
# SPDX-License-Identifier: MIT
#
# "tracebufctl list", "stats" and "monitor" over generic netlink, end to
# end without the module: TBCTL_FAKE is tracebufctl linked with
# tests/fake_nl.c in place of nl.c (FAKE_GENL=1: the family exists; its
# other FAKE_GENL_* variables make requests fail, events get lost...).
# What is checked is tracebufctl's part: the output, the choice between
# netlink and the ioctls, the filters, signals, messages and exit
# statuses.  The parsing of real messages is tests/nl_test.c's.  KTAP on
# stdout.
#
#   TBCTL_FAKE=build/tests/tracebufctl-fake tests/netlink_fake_test.sh
set -u

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
TOP=$(cd "$HERE/.." && pwd)
TBCTL=${TBCTL_FAKE:-$TOP/build/tests/tracebufctl-fake}
# shellcheck source=lib.sh
. "$HERE/lib.sh"

NOFAMILY="cannot find the tracebuf generic netlink family: is the tracebuf module loaded?"

# bg ARGS...: start tracebufctl in the background (SIGINT not ignored, as
# in an interactive shell), in $TMP/w; sets PID.
bg() {
	(cd "$TMP/w" && exec env --default-signal=INT "$TBCTL" "$@") \
		> "$TMP/out" 2> "$TMP/err" < /dev/null &
	PID=$!
}

# bg_lines N: wait (at most 10 s) until it printed N lines.
bg_lines() {
	local _
	for _ in $(seq 100); do
		[ "$(wc -l < "$TMP/out")" -lt "$1" ] || return 0
		sleep 0.1
	done
	fail "not $1 lines after 10 s: $(cat "$TMP/out")"
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

# ---------------------------------------------------------------------------

test_list_over_netlink() {
	FAKE_GENL=1 t_run list
	[ "$RC" = 0 ] || fail "exit $RC: $ERR" || return 1
	[ "$OUT" = "   ID      PID  STATE       MODE          BUFFER  MANAGER NAME
    1       10  started     streaming    1.0 MiB  4       app
    2       20  registered  -                  -  -       db
    3       30  initialized oneshot     64.0 KiB  4       bad?name" ] || fail "list: $OUT" || return 1
	FAKE_GENL=1 t_run list -j
	[ "$RC" = 0 ] || fail "exit $RC: $ERR" || return 1
	[ "$OUT" = '[{"id":1,"pid":10,"state":"started","mode":"streaming","buffer_size":1048576,"manager":4,"mine":false,"packets_sent":120,"packets_received":7,"saves":3,"records_dropped":5,"name":"app"},{"id":2,"pid":20,"state":"registered","mode":null,"buffer_size":0,"manager":null,"mine":false,"packets_sent":0,"packets_received":0,"saves":0,"records_dropped":null,"name":"db"},{"id":3,"pid":30,"state":"initialized","mode":"oneshot","buffer_size":65536,"manager":4,"mine":false,"packets_sent":0,"packets_received":1,"saves":0,"records_dropped":0,"name":"bad\nname"}]' ] ||
		fail "list -j: $OUT"
}

# -D names a device: the ioctls (the fake manager's two providers).
test_list_with_device_uses_the_ioctls() {
	FAKE_GENL=1 t_run -D /dev/tracebuf list
	[ "$RC" = 0 ] || fail "exit $RC: $ERR" || return 1
	[ "$(wc -l <<< "$OUT")" = 3 ] || fail "list: $OUT" || return 1
	[[ $OUT != *bad?name* ]] || fail "list went over netlink: $OUT"
}

test_list_netlink_errors() {
	FAKE_GENL=1 FAKE_GENL_ERR=1 \
		FAKE_GENL_EXTACK="needs CAP_PERFMON or CAP_SYS_ADMIN, or the manager_gid group" \
		t_run list
	expect_error "permission denied: needs CAP_PERFMON or CAP_SYS_ADMIN, or the manager_gid group" ||
		return 1
	[ -z "$OUT" ] || fail "stdout: $OUT" || return 1
	FAKE_GENL=1 FAKE_GENL_ERR=1 t_run list -j
	expect_error "permission denied: needs CAP_PERFMON or CAP_SYS_ADMIN (or the manager_gid group)" ||
		return 1
	FAKE_GENL=1 FAKE_GENL_ERR=22 FAKE_GENL_EXTACK="some attribute" t_run list
	expect_error "provider dump: Invalid argument (some attribute)" || return 1
	FAKE_GENL=1 FAKE_GENL_ERR=5 t_run list
	expect_error "provider dump: Input/output error"
}

test_stats() {
	FAKE_GENL=1 t_run stats
	[ "$RC" = 0 ] || fail "exit $RC: $ERR" || return 1
	[ "$OUT" = "   ID  NAME      STATE             SENT   RECEIVED    SAVES    DROPPED     BUFFER
    1  app       started            120          7        3          5    1.0 MiB
    2  db        registered           0          0        0          -          -
    3  bad?name  initialized          0          1        0          0   64.0 KiB" ] ||
		fail "stats: $OUT" || return 1
	FAKE_GENL=1 t_run -j stats
	[ "$RC" = 0 ] || fail "exit $RC: $ERR" || return 1
	[ "$OUT" = '[{"id":1,"name":"app","state":"started","packets_sent":120,"packets_received":7,"saves":3,"records_dropped":5,"buffer_size":1048576},{"id":2,"name":"db","state":"registered","packets_sent":0,"packets_received":0,"saves":0,"records_dropped":null,"buffer_size":0},{"id":3,"name":"bad\nname","state":"initialized","packets_sent":0,"packets_received":1,"saves":0,"records_dropped":0,"buffer_size":65536}]' ] ||
		fail "stats -j: $OUT"
}

# ids (GET each), names (the dump), both; sorted by id, each once.
test_stats_filters() {
	local args want got
	while IFS='|' read -r args want; do
		# shellcheck disable=SC2086 # word splitting wanted
		FAKE_GENL=1 t_run stats -j $args
		[ "$RC" = 0 ] || fail "stats $args: exit $RC: $ERR" || return 1
		got=$(grep -o '"id":[0-9]*' <<< "$OUT" | tr '\n' ' ')
		[ "${got% }" = "$want" ] || fail "stats $args: $OUT" || return 1
	done <<-'EOF'
	app|"id":1
	db|"id":2
	3|"id":3
	3 1 3|"id":1 "id":3
	db 1|"id":1 "id":2
	-- db|"id":2
	EOF
}

test_stats_unknown() {
	FAKE_GENL=1 t_run stats nosuch
	expect_error "stats: no provider named 'nosuch'" || return 1
	[ -z "$OUT" ] || fail "stdout: $OUT" || return 1
	FAKE_GENL=1 t_run stats app nosuch
	expect_error "stats: no provider named 'nosuch'" || return 1
	[ -z "$OUT" ] || fail "stdout: $OUT" || return 1
	FAKE_GENL=1 t_run stats 9
	expect_error "stats: no provider with id 9" || return 1
	FAKE_GENL=1 t_run stats 1 0
	expect_error "stats: no provider with id 0" || return 1
	FAKE_GENL=1 t_run stats app 99999999999
	expect_error "stats: no provider with id 99999999999" || return 1
	[ -z "$OUT" ] || fail "stdout: $OUT"
}

test_stats_errors() {
	t_run stats
	expect_error "$NOFAMILY" || return 1
	FAKE_GENL=1 FAKE_GENL_ERR=1 t_run stats 1
	expect_error "permission denied" || return 1
	FAKE_GENL=1 FAKE_GENL_ERR=1 t_run stats
	expect_error "permission denied"
}

test_monitor_lines_until_sigterm() {
	FAKE_GENL=1 bg monitor
	bg_lines 3 || { kill -KILL "$PID"; return 1; }
	kill -TERM "$PID"
	bg_wait || return 1
	[ "$RC" = 0 ] || fail "exit $RC after SIGTERM: $ERR" || return 1
	[ -z "$ERR" ] || fail "stderr: $ERR" || return 1
	[ "$OUT" = "new id 5 pid 50 name newcomer state registered manager -
change id 5 pid 50 name newcomer state initialized manager 4 mode circular buffer 65536
del id 5 pid 50 name newcomer state initialized manager 4 mode circular buffer 65536" ] ||
		fail "monitor: $OUT"
}

test_monitor_json_until_sigint() {
	local line
	FAKE_GENL=1 bg -j monitor
	bg_lines 3 || { kill -KILL "$PID"; return 1; }
	kill -INT "$PID"
	bg_wait || return 1
	[ "$RC" = 0 ] || fail "exit $RC after SIGINT: $ERR" || return 1
	[ "$(wc -l <<< "$OUT")" = 3 ] || fail "monitor -j: $OUT" || return 1
	while IFS= read -r line; do
		[[ $line == '{"event":"'*'}' ]] || fail "not an object: $line" || return 1
	done <<< "$OUT"
	[[ $(head -n 1 <<< "$OUT") == '{"event":"new","id":5,"pid":50,"name":"newcomer","state":"registered","manager":null,"mode":null,'* ]] ||
		fail "first: $OUT" || return 1
	if command -v python3 > /dev/null; then
		python3 -c '
import json, sys
ev = [json.loads(l) for l in sys.stdin]
assert [e["event"] for e in ev] == ["new", "change", "del"], ev
assert ev[1]["buffer_size"] == 65536 and ev[1]["mode"] == "circular", ev
' <<< "$OUT" || fail "python3 refused: $OUT"
	fi
}

# Events lost to an overrun: a warning, and on.
test_monitor_lost_events() {
	FAKE_GENL=1 FAKE_GENL_LOST=1 bg monitor
	bg_lines 3 || { kill -KILL "$PID"; return 1; }
	sleep 0.2
	kill -TERM "$PID"
	bg_wait || return 1
	[ "$RC" = 0 ] || fail "exit $RC: $ERR" || return 1
	[ "$ERR" = "tracebufctl: warning: events were lost (the receive buffer overran)" ] ||
		fail "stderr: $ERR"
}

test_monitor_refused() {
	FAKE_GENL=1 FAKE_GENL_JOIN=1 t_run monitor
	expect_error "permission denied: monitor needs CAP_SYS_ADMIN (events carry the pids of every namespace)" ||
		return 1
	[ -z "$OUT" ] || fail "stdout: $OUT" || return 1
	FAKE_GENL=1 FAKE_GENL_JOIN=95 t_run monitor
	expect_error "the tracebuf generic netlink family has no \"events\" group" || return 1
	FAKE_GENL=1 FAKE_GENL_JOIN=12 t_run monitor -j
	expect_error "joining the events group: Cannot allocate memory" || return 1
	t_run monitor
	expect_error "$NOFAMILY"
}

test_monitor_malformed_event() {
	FAKE_GENL=1 FAKE_GENL_BAD=1 t_run monitor
	expect_error "malformed event from the kernel"
}

# ---------------------------------------------------------------------------

# shellcheck disable=SC2034 # TESTS and NEEDS are for tap_main
TESTS=(
	test_list_over_netlink
	test_list_with_device_uses_the_ioctls
	test_list_netlink_errors
	test_stats
	test_stats_filters
	test_stats_unknown
	test_stats_errors
	test_monitor_lines_until_sigterm
	test_monitor_json_until_sigint
	test_monitor_lost_events
	test_monitor_refused
	test_monitor_malformed_event
)

# shellcheck disable=SC2034
NEEDS=("$TBCTL")
tap_main
