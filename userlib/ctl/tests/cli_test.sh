#!/bin/bash
# SPDX-License-Identifier: MIT
#
# tracebufctl as a user meets it, on a host without the tracebuf module:
# help and usage errors, record/list/categories failing cleanly without
# the device, stats/monitor without the netlink family, convert and dump
# on a sample trace (build/tests/mkfxt), the JSON checked by python3's
# json module when there is one and always by build/tests/jsoncheck.
# Prints KTAP ("TAP version 13", "1..N", "ok N name", "# Totals: ...");
# exit status 0 iff every test passed.
#
#   TBCTL=path/to/tracebufctl tests/cli_test.sh   (default: ./tracebufctl)
#
# TBCTL_BUILD: where mkfxt and jsoncheck were built (default: build).
set -u

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
TOP=$(cd "$HERE/.." && pwd)
TBCTL=${TBCTL:-$TOP/tracebufctl}
MKFXT=${TBCTL_BUILD:-$TOP/build}/tests/mkfxt
JSONCHECK=${TBCTL_BUILD:-$TOP/build}/tests/jsoncheck
# shellcheck source=lib.sh
. "$HERE/lib.sh"

# A device path that does not exist, and the message for it.
nodev_args() {
	if [ -e /dev/tracebuf ]; then
		NODEV=(-D "$TMP/no-such-device")
		NODEV_MSG="cannot open $TMP/no-such-device: is the tracebuf module loaded?"
	else
		NODEV=()
		NODEV_MSG="cannot open /dev/tracebuf: is the tracebuf module loaded?"
	fi
}

# ---------------------------------------------------------------------------

test_help_everywhere() {
	local args
	for args in "--help" "-h" "help" "help --help" "record --help" "record -h" \
		    "list --help" "list -h" "categories --help" "dump --help" "dump -h" \
		    "convert --help" "convert -h" "help record" "help conv" "rec -h" \
		    "-j list --help" "record -c x -h" "monitor --help" "monitor -h" \
		    "help monitor" "mon -h" "-j monitor --help" "stats --help" "stats -h" \
		    "help stats" "stats -h" "sto -h" "stats -j app 1 --help" "report --help" "report -h" \
		    "help report" "rep -h" "-j report -s name x.fxt --help"; do
		# shellcheck disable=SC2086 # word splitting wanted
		expect_usage $args || return 1
	done
}

test_version() {
	local v
	# the version of debian/changelog, the project's one home for it
	v=$(head -n 1 "$(dirname "$0")/../../../debian/changelog" | cut -d' ' -f2 | tr -d '()')
	t_run --version
	if [ "$RC" != 0 ] || [ -z "$v" ] || [[ $OUT != "tracebufctl $v (tracebuf ABI "* ]]; then
		fail "--version: $RC $OUT (expected version '$v')"
	fi
}

test_missing_command() {
	t_run
	expect_error "missing command (see 'tracebufctl --help')"
}

test_unknown_command() {
	t_run frobnicate
	expect_error "unknown command 'frobnicate' (see 'tracebufctl --help')" || return 1
	t_run statistics
	expect_error "unknown command 'statistics'" || return 1
	t_run monitors
	expect_error "unknown command 'monitors'"
}

test_ambiguous_command() {
	t_run c
	expect_error "ambiguous command 'c': categories convert"
}

test_unknown_options() {
	local cmd
	for cmd in record list categories dump convert monitor stats report; do
		t_run "$cmd" --frob
		expect_error "$cmd: unknown option '--frob' (see 'tracebufctl $cmd --help')" ||
			return 1
		t_run "$cmd" -Z
		expect_error "$cmd: unknown option '-Z' (see 'tracebufctl $cmd --help')" ||
			return 1
	done
	t_run --frob list
	expect_error "unknown option '--frob' (see 'tracebufctl --help')" || return 1
	t_run list extra
	expect_error "list: unexpected argument 'extra'"
}

test_record_usage_errors_leave_nothing() {
	t_run record -b 1000
	expect_error "record: -b 1000: size 1000 is not a multiple of 4 KiB" || return 1
	t_run record -m fast
	expect_error "invalid mode 'fast'" || return 1
	t_run record -d 10x
	expect_error "invalid duration '10x'" || return 1
	t_run record sleep 1
	expect_error "the command to run goes after '--'" || return 1
	expect_empty_dir "$TMP/w"
}

test_record_without_module() {
	nodev_args
	t_run record "${NODEV[@]}" -d 1s
	expect_error "$NODEV_MSG" || return 1
	[ ! -e "$TMP/w/trace.fxt" ] || fail "trace.fxt left behind" || return 1
	expect_empty_dir "$TMP/w"
}

test_record_without_module_other_output() {
	nodev_args
	mkdir "$TMP/w/sub"
	t_run record "${NODEV[@]}" -m streaming -b 1M -o sub/x.fxt
	expect_error "$NODEV_MSG" || return 1
	expect_empty_dir "$TMP/w/sub" || return 1
	rmdir "$TMP/w/sub"
}

test_record_without_module_runs_no_command() {
	nodev_args
	t_run record "${NODEV[@]}" -- touch ran
	expect_error "$NODEV_MSG" || return 1
	[ ! -e "$TMP/w/ran" ] || fail "the command ran" || return 1
	expect_empty_dir "$TMP/w"
}

test_record_missing_device() {
	t_run -D "$TMP/nodev" record -d 1s
	expect_error "cannot open $TMP/nodev: is the tracebuf module loaded?" || return 1
	expect_empty_dir "$TMP/w" || return 1
	# not a tracebuf device at all
	t_run --device /dev/null record -d 1s
	expect_error "/dev/null: Inappropriate ioctl for device" || return 1
	expect_empty_dir "$TMP/w"
}

test_record_bad_output() {
	t_run -D "$TMP/nodev" record -o no/such/dir/x.fxt
	expect_error "no/such/dir/x.fxt: cannot create a file beside it: No such file or directory" ||
		return 1
	mkdir "$TMP/w/d"
	t_run -D "$TMP/nodev" record -o d
	expect_error "d: is a directory" || return 1
	rmdir "$TMP/w/d"
	expect_empty_dir "$TMP/w"
}

# --print-config: the file and the command line merged, printed; no
# device opened (there is none), no command run, no trace; the output
# read back gives the same.
test_record_print_config() {
	local want
	printf '%s\n' '# a configuration' 'mode circular' 'buffer-size 8M' \
		'categories app,db' '  duration 1.5s  ' 'output my trace.fxt' 'quiet' > "$TMP/w/rec.conf"
	want=$(printf '%s\n' 'categories net' 'mode streaming' 'buffer-size 8M' \
		'buffer-size app:16M' 'duration 1500ms' 'output my trace.fxt' 'quiet')
	t_run -D "$TMP/nodev" record -c net --config rec.conf -m streaming -b app:16M \
		--print-config -- touch ran
	[ "$RC" = 0 ] || fail "exit status $RC: $ERR" || return 1
	[ -z "$ERR" ] || fail "stderr: $ERR" || return 1
	[ "$OUT" = "$want" ] || fail "printed '$OUT', expected '$want'" || return 1
	[ ! -e "$TMP/w/ran" ] || fail "the command ran" || return 1
	cp "$TMP/out" "$TMP/w/again.conf"
	t_run -D "$TMP/nodev" record --config again.conf --print-config
	[ "$RC" = 0 ] && [ "$OUT" = "$want" ] || fail "read back: $RC '$OUT' $ERR" || return 1
	rm "$TMP/w/rec.conf" "$TMP/w/again.conf"
	expect_empty_dir "$TMP/w"
}

test_record_config_errors() {
	t_run record --config /nonexistent
	expect_error "record: /nonexistent: No such file or directory" || return 1
	[ "$RC" = 1 ] || fail "exit status $RC" || return 1
	printf 'mode streaming\nmdoe circular\n' > "$TMP/w/bad.conf"
	t_run record --config bad.conf --print-config
	expect_error "record: bad.conf:2: unknown option 'mdoe'" || return 1
	[ "$RC" = 1 ] && [ -z "$OUT" ] || fail "exit status $RC, stdout '$OUT'" || return 1
	t_run record --config bad.conf --config bad.conf
	expect_error "record: --config given twice" || return 1
	rm "$TMP/w/bad.conf"
	expect_empty_dir "$TMP/w"
}

test_list_and_categories_without_module() {
	nodev_args
	t_run "${NODEV[@]}" list
	expect_error "$NODEV_MSG" || return 1
	[ -z "$OUT" ] || fail "stdout: $OUT" || return 1
	t_run "${NODEV[@]}" list -j
	expect_error "$NODEV_MSG" || return 1
	t_run "${NODEV[@]}" -j categories
	expect_error "$NODEV_MSG" || return 1
	t_run "${NODEV[@]}" categories
	expect_error "$NODEV_MSG"
}

test_monitor_usage_errors() {
	t_run monitor extra
	expect_error "monitor: unexpected argument 'extra' (see 'tracebufctl monitor --help')" ||
		return 1
	t_run monitor -- extra
	expect_error "monitor: unexpected argument 'extra'" || return 1
	t_run monitor --json=yes
	expect_error "monitor: option '--json' takes no value" || return 1
	t_run stats -jx
	expect_error "stats: unknown option '-x' (see 'tracebufctl stats --help')" || return 1
	[ -z "$OUT" ] || fail "stdout: $OUT"
}

# Without the module there is no family: one line, nothing on stdout.
test_monitor_and_stats_without_module() {
	local args msg="cannot find the tracebuf generic netlink family: is the tracebuf module loaded?"
	# with the module loaded, the family exists: nothing to test here
	[ ! -e /dev/tracebuf ] || return 0
	for args in "monitor" "monitor -j" "-j monitor" "stats" "stats -j" "stats app" \
		    "stats 1 2" "-D /dev/null stats"; do
		# shellcheck disable=SC2086 # word splitting wanted
		t_run $args
		expect_error "$msg" || return 1
		[ -z "$OUT" ] || fail "'$args': stdout: $OUT" || return 1
	done
}

# mkfxt into $TMP/w/s.fxt; sets RECORDS EVENTS FIRST
make_sample() {
	read -r RECORDS EVENTS FIRST < <("$MKFXT" "$TMP/w/s.fxt") ||
		fail "mkfxt failed"
}

test_convert_json_loads() {
	local n
	make_sample || return 1
	t_run convert s.fxt
	[ "$RC" = 0 ] || fail "convert: $RC $ERR" || return 1
	n=$("$JSONCHECK" "$TMP/w/s.json") || fail "jsoncheck refused s.json" || return 1
	# the events, plus process_name x2 and thread_name, and the buffer
	# overflow instant
	[ "$n" = $((EVENTS + 4)) ] || fail "$n events, expected $((EVENTS + 4))" || return 1
	if command -v python3 > /dev/null; then
		python3 - "$TMP/w/s.json" "$EVENTS" <<-'EOF' || fail "python3 refused s.json"
		import json, sys
		doc = json.load(open(sys.argv[1], encoding="utf-8"))
		ev = doc["traceEvents"]
		assert doc["displayTimeUnit"] == "ns"
		assert sum(1 for e in ev if e["ph"] != "M") == int(sys.argv[2]) + 1
		assert [e["args"]["provider"] for e in ev if e["name"] == "buffer overflow"] == ["app"]
		assert {e["ph"] for e in ev} == set("MiBEXCbnestf")
		x = next(e for e in ev if e["ph"] == "X")
		assert (x["ts"], x["dur"], x["pid"], x["tid"]) == (4.0, 2.0, 100, 101)
		names = {(e["name"], e["args"]["name"]) for e in ev if e["ph"] == "M"}
		assert names == {("process_name", "app"), ("process_name", "other"),
				 ("thread_name", "worker")}, names
		EOF
	fi
}

test_dump_line_count() {
	make_sample || return 1
	t_run dump s.fxt
	[ "$RC" = 0 ] || fail "dump: $RC $ERR" || return 1
	[ "$(wc -l < "$TMP/out")" = "$RECORDS" ] ||
		fail "$(wc -l < "$TMP/out") lines for $RECORDS records" || return 1
	grep -q "scheduling switch provider=1 ts=16000 cpu=1 out=101 state=blocked in=0 size=32$" \
		"$TMP/out" || fail "no context switch in: $(grep scheduling "$TMP/out")" || return 1
	grep -q "scheduling wakeup provider=1 ts=17000 cpu=1 tid=101 size=24$" "$TMP/out" ||
		fail "no wakeup in: $(grep scheduling "$TMP/out")"
}

# Padding that a trace from elsewhere holds (an unnamed data blob whose
# payload fills it: 1 and 3 words here) is labelled, its payload not
# shown; an unnamed data blob with a shorter payload, and a named one,
# are blobs.
test_dump_labels_padding() {
	local magic=0x0016547846040010 info=0x0010000000110020 name=0x70	# provider 1, "p"

	mkdir -p "$TMP/w"
	fxt_words $magic $info $name 0x0001000000000015 0x0001001000000035 0x1234 0x5678 \
		0x0001000800000035 0 0 0x0001000880010035 0x61 0 >"$TMP/w/p.fxt"
	t_run dump p.fxt
	[ "$RC" = 0 ] || fail "dump: $RC $ERR" || return 1
	[ "$OUT" = "$(printf '%8u metadata magic value=0x16547846 size=8\n' 0
		      printf '%8u metadata provider-info id=1 name="p" size=16\n' 8
		      printf '%8u padding size=8\n' 24
		      printf '%8u padding size=24\n' 32
		      printf '%8u blob type=1 name="" payload=8 size=24\n' 56
		      printf '%8u blob type=1 name="a" payload=8 size=24' 80)" ] ||
		fail "dump: $OUT"
}

test_stdin() {
	make_sample || return 1
	RC=0
	(cd "$TMP/w" && "$TBCTL" dump - < s.fxt > "$TMP/out") || RC=$?
	[ "$RC" = 0 ] && [ "$(wc -l < "$TMP/out")" = "$RECORDS" ] ||
		fail "dump -: $RC" || return 1
	(cd "$TMP/w" && "$TBCTL" convert - < s.fxt > "$TMP/stdin.json") || RC=$?
	[ "$RC" = 0 ] || fail "convert -: $RC" || return 1
	"$JSONCHECK" "$TMP/stdin.json" > /dev/null || fail "convert - wrote no JSON"
}

test_truncated_file_fails_both() {
	make_sample || return 1
	head -c $((FIRST + 16)) "$TMP/w/s.fxt" > "$TMP/w/cut.fxt"
	rm "$TMP/w/s.fxt"
	t_run convert cut.fxt
	expect_error "cut.fxt: " || return 1
	expect_error " at offset $FIRST" || return 1
	[ "$(ls -A "$TMP/w")" = cut.fxt ] || fail "left: $(ls -A "$TMP/w")" || return 1
	t_run convert cut.fxt -o out.json
	expect_error " at offset $FIRST" || return 1
	[ "$(ls -A "$TMP/w")" = cut.fxt ] || fail "left: $(ls -A "$TMP/w")" || return 1
	t_run dump cut.fxt
	expect_error "cut.fxt: " || return 1
	expect_error " at offset $FIRST" || return 1
	[ -n "$OUT" ] || fail "dump printed nothing before the damage"
}

test_zero_word_fails_both() {
	make_sample || return 1
	# a zero word over the first event's header
	cp "$TMP/w/s.fxt" "$TMP/w/z.fxt"
	printf '\0\0\0\0\0\0\0\0' | dd of="$TMP/w/z.fxt" bs=1 seek="$FIRST" conv=notrunc status=none
	rm "$TMP/w/s.fxt"
	t_run convert z.fxt
	expect_error "zero word instead of a record at offset $FIRST" || return 1
	[ "$(ls -A "$TMP/w")" = z.fxt ] || fail "left: $(ls -A "$TMP/w")" || return 1
	t_run dump z.fxt
	expect_error "zero word instead of a record at offset $FIRST"
}

# scripts/fxt-check.py, the second reader vm-results.sh runs on the
# guest's traces: it refuses the sample's event name that is not UTF-8
# (there for dump's and convert's escapes), accepts the sample with that
# name made ASCII, with its context switch, and names the first fault of
# a damaged copy.
test_fxt_check() {
	local check=$HERE/../../../scripts/fxt-check.py out
	make_sample || return 1
	if out=$("$check" --sched "$TMP/w/s.fxt" 2>&1); then
		fail "fxt-check took a name that is not UTF-8"
		return 1
	fi
	case $out in
	*": name is not UTF-8: byte 3 of 11, ffc32801") ;;
	*) fail "fxt-check: $out"; return 1 ;;
	esac
	python3 -c 'import sys
d = open(sys.argv[1], "rb").read()
open(sys.argv[1], "wb").write(d.replace(b"bad\xff\xc3(", b"bad-x("))' "$TMP/w/s.fxt"
	out=$("$check" --sched "$TMP/w/s.fxt") || fail "fxt-check refused the sample" || return 1
	case $out in
	*": $RECORDS records, 2 providers, $EVENTS events, 1 context switches on 1 CPUs, 1 wakeups, 1 threads and 0 processes named, 0 bytes of padding (0.00 %)") ;;
	*) fail "fxt-check: $out"; return 1 ;;
	esac
	cp "$TMP/w/s.fxt" "$TMP/w/z.fxt"
	printf '\0\0\0\0\0\0\0\0' | dd of="$TMP/w/z.fxt" bs=1 seek="$FIRST" conv=notrunc status=none
	if out=$("$check" "$TMP/w/z.fxt" 2>&1); then
		fail "fxt-check took a zero word for a record"
		return 1
	fi
	[ "$out" = "$TMP/w/z.fxt: offset $FIRST: a zero word" ] || fail "fxt-check: $out"
}

# Strings are UTF-8 in FXT: fxt-check refuses a string record, an inline
# string argument and a provider name that are not, and takes the same
# bytes in a blob argument (type 10) and in a blob record.
fxt_words() {
	python3 -c 'import struct, sys
sys.stdout.buffer.write(struct.pack("<%dQ" % (len(sys.argv) - 1),
				    *(int(a, 0) for a in sys.argv[1:])))' "$@"
}

test_fxt_check_utf8() {
	local check=$HERE/../../../scripts/fxt-check.py out f
	local magic=0x0016547846040010 info=0x0010000000110020 name=0x70	# provider 1, "p"
	# an instant event, inline thread koids 1, 2, one argument of 2 words
	local ev=0x0000000000100064 ts=5 pid=1 tid=2 bytes=0xfeff
	local str_arg=0x0000800200000026 blob_arg=0x000000020000002a

	f=$TMP/w/u.fxt
	mkdir -p "$TMP/w"
	fxt_words $magic $info $name 0x0000000200010022 $bytes >"$f"
	out=$("$check" "$f" 2>&1) && { fail "took a string record of ff fe: $out"; return 1; }
	[ "$out" = "$f: offset 24: string 1 is not UTF-8: byte 0 of 2, fffe" ] ||
		fail "string record: $out" || return 1
	fxt_words $magic $info $name $ev $ts $pid $tid $str_arg $bytes >"$f"
	out=$("$check" "$f" 2>&1) && { fail "took a string argument of ff fe: $out"; return 1; }
	[ "$out" = "$f: offset 24: string argument is not UTF-8: byte 0 of 2, fffe" ] ||
		fail "string argument: $out" || return 1
	fxt_words $magic 0x0010000000110020 0xff >"$f"
	out=$("$check" "$f" 2>&1) && { fail "took a provider named ff: $out"; return 1; }
	[ "$out" = "$f: offset 8: provider name is not UTF-8: byte 0 of 1, ff" ] ||
		fail "provider name: $out" || return 1
	# the same bytes as a blob argument, then a blob record; and UTF-8 text
	fxt_words $magic $info $name $ev $ts $pid $tid $blob_arg $bytes \
		0x0001000280040035 0x61746164 $bytes \
		0x0000000200010022 0xa9c3 >"$f"
	out=$("$check" "$f") || fail "refused blobs and UTF-8: $out" || return 1
	[ "$out" = "$f: 5 records, 1 providers, 1 events, 0 threads and 0 processes named, 0 bytes of padding (0.00 %)" ] ||
		fail "blobs: $out"
}

# A trace holds records, not padding: fxt-check counts the unnamed data
# blobs that fill a gap (1 to 4 words here), refuses a file where they
# are more than 1 % of the bytes (or --max-padding PCT), and takes an
# unnamed data blob whose payload does not fill it, or a named one, as a
# record.
test_fxt_check_padding() {
	local check=$HERE/../../../scripts/fxt-check.py out f
	local magic=0x0016547846040010 info=0x0010000000110020 name=0x70	# provider 1, "p"
	local pad1=0x0001000000000015 pad4=0x0001001800000045
	local short=0x0001001000000045 named=0x0001001800010045
	local strec=0x0000000100010022 sval=0x61	# string 1, "a"
	local recs=() i

	f=$TMP/w/p.fxt
	mkdir -p "$TMP/w"
	# 3 + 2 * 99 words of records, then 1 + 4 words of padding: 2.4 %
	for i in $(seq 99); do recs+=("$strec" "$sval"); done
	fxt_words $magic $info $name "${recs[@]}" $pad1 $pad4 0 0 0 >"$f"
	out=$("$check" "$f" 2>&1) && { fail "took 2.4 % of padding: $out"; return 1; }
	[ "$out" = "$f: offset 1648: 40 bytes of padding, 2.4 % of the file: more than 1 %" ] ||
		fail "padding: $out" || return 1
	out=$("$check" --max-padding 3 "$f") || fail "--max-padding 3 refused it: $out" || return 1
	case $out in
	*", 0 threads and 0 processes named, 40 bytes of padding (2.43 %)") ;;
	*) fail "--max-padding 3: $out"; return 1 ;;
	esac
	# one word of padding in 1608 bytes: 0.5 %
	fxt_words $magic $info $name "${recs[@]}" $pad1 >"$f"
	out=$("$check" "$f") || fail "refused 0.5 % of padding: $out" || return 1
	case $out in
	*", 8 bytes of padding (0.50 %)") ;;
	*) fail "0.5 %: $out"; return 1 ;;
	esac
	# not padding: a payload shorter than the record, a name
	fxt_words $magic $info $name "${recs[@]}" $short 0 0 0 $named 0 0 0 >"$f"
	out=$("$check" "$f") || fail "refused blobs that are not padding: $out" || return 1
	case $out in
	*", 0 bytes of padding (0.00 %)") ;;
	*) fail "blobs: $out"; return 1 ;;
	esac
}

test_report_usage_errors() {
	make_sample || return 1
	t_run report
	expect_error "report: missing FILE (see 'tracebufctl report --help')" || return 1
	t_run report --bogus s.fxt
	expect_error "report: unknown option '--bogus' (see 'tracebufctl report --help')" ||
		return 1
	t_run report -s often s.fxt
	expect_error "report: invalid sort key 'often' (total, count, mean, max or name)" ||
		return 1
	t_run report s.fxt s.fxt
	expect_error "report: unexpected argument 's.fxt'" || return 1
	t_run report nonexistent.fxt
	expect_error "nonexistent.fxt: No such file or directory" || return 1
	[ -z "$OUT" ] || fail "stdout: $OUT" || return 1
	t_run report --help
	[ "$RC" = 0 ] && [[ $OUT == "Usage: tracebufctl report "* ]] && [ -z "$ERR" ] ||
		fail "report --help: $RC $ERR"
}

test_report_sample() {
	make_sample || return 1
	t_run report s.fxt
	[ "$RC" = 0 ] && [ -z "$ERR" ] || fail "report: $RC $ERR" || return 1
	[[ $OUT == "provider 1: app"$'\n'"  thread 101 (pid 100): worker"$'\n'* ]] ||
		fail "report printed: $OUT" || return 1
	[[ $OUT == *$'\n'"    cat:work              1   1.000 us "* ]] ||
		fail "no work slice of 1 us: $OUT" || return 1
	[[ $OUT == *$'\n'"  drops: 0 records in 0 windows (0 ns), 1 buffer overflow"$'\n'* ]] ||
		fail "no buffer overflow: $OUT" || return 1
	# the same from standard input, and as JSON
	RC=0
	(cd "$TMP/w" && "$TBCTL" report - < s.fxt > "$TMP/stdin.txt") || RC=$?
	[ "$RC" = 0 ] && [ "$(cat "$TMP/stdin.txt")" = "$OUT" ] || fail "report -: $RC" || return 1
	t_run -j report s.fxt
	[ "$RC" = 0 ] || fail "-j report: $RC $ERR" || return 1
	if command -v python3 > /dev/null; then
		python3 - "$TMP/out" <<-'EOF' || fail "python3 refused the JSON: $OUT"
		import json, sys
		doc = json.load(open(sys.argv[1], encoding="utf-8"))
		p = {x["id"]: x for x in doc["providers"]}
		assert sorted(p) == [1, 2] and p[1]["name"] == "app"
		t = p[1]["threads"][0]
		assert (t["pid"], t["tid"], t["name"]) == (100, 101, "worker")
		s = {x["name"]: x for x in t["slices"]}
		assert (s["work"]["count"], s["work"]["total_ns"]) == (1, 1000)
		assert (s["cmp"]["p99_ns"], s["cmp"]["max_ns"]) == (2000, 2000)
		assert p[1]["async"][0]["total_ns"] == 2000
		assert p[1]["drops"]["buffer_overflows"] == 1
		EOF
	fi
}

test_report_bad_file() {
	make_sample || return 1
	head -c $((FIRST + 16)) "$TMP/w/s.fxt" > "$TMP/w/cut.fxt"
	t_run report cut.fxt
	expect_error "cut.fxt: " || return 1
	expect_error " at offset $FIRST" || return 1
	[ -z "$OUT" ] || fail "report printed before the damage: $OUT" || return 1
	yes garbage | head -c 4096 > "$TMP/w/garbage.fxt"
	t_run -j report garbage.fxt
	expect_error "garbage.fxt: not an FXT trace: no magic record at offset 0" || return 1
	[ -z "$OUT" ] || fail "stdout: $OUT"
}

# ---------------------------------------------------------------------------

# shellcheck disable=SC2034 # TESTS and NEEDS are for tap_main
TESTS=(
	test_help_everywhere
	test_version
	test_missing_command
	test_unknown_command
	test_ambiguous_command
	test_unknown_options
	test_record_usage_errors_leave_nothing
	test_record_without_module
	test_record_without_module_other_output
	test_record_without_module_runs_no_command
	test_record_missing_device
	test_record_bad_output
	test_record_print_config
	test_record_config_errors
	test_list_and_categories_without_module
	test_monitor_usage_errors
	test_monitor_and_stats_without_module
	test_convert_json_loads
	test_dump_line_count
	test_stdin
	test_truncated_file_fails_both
	test_zero_word_fails_both
	test_fxt_check
	test_fxt_check_utf8
	test_fxt_check_padding
	test_dump_labels_padding
	test_report_usage_errors
	test_report_sample
	test_report_bad_file
)

# shellcheck disable=SC2034
NEEDS=("$TBCTL" "$MKFXT" "$JSONCHECK")
tap_main
