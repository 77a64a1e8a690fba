#!/bin/bash
# SPDX-License-Identifier: MIT
#
# Compressed traces on the reading side (compress.c): dump, convert (and
# anything else that opens a trace with tbctl_reader_open()) read gzip and
# zstd files by their content, whatever their name, through the gzip and
# zstd programs; a damaged file or a missing program fails in words.
# KTAP; exit status 0 iff every test passed.
#
#   TBCTL=path/to/tracebufctl tests/compress_test.sh   (default: ./tracebufctl)
set -u

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
TOP=$(cd "$HERE/.." && pwd)
TBCTL=${TBCTL:-$TOP/tracebufctl}
MKFXT=${TBCTL_BUILD:-$TOP/build}/tests/mkfxt
# shellcheck source=lib.sh
. "$HERE/lib.sh"

# sample FILE: the sample trace, and its dump in $TMP/plain.dump
sample() {
	"$MKFXT" "$TMP/w/$1" > /dev/null || fail "mkfxt failed" || return 1
	t_run dump "$1"
	[ "$RC" = 0 ] && [ -n "$OUT" ] || fail "dump of the plain sample: $RC $ERR" || return 1
	printf '%s\n' "$OUT" > "$TMP/plain.dump"
}

# same_dump FILE: dump FILE gives the plain sample's dump, nothing on stderr
same_dump() {
	t_run dump "$1"
	[ "$RC" = 0 ] || fail "dump $1: exit $RC: $ERR" || return 1
	[ -z "$ERR" ] || fail "dump $1: stderr: $ERR" || return 1
	printf '%s\n' "$OUT" | cmp -s - "$TMP/plain.dump" || fail "dump $1 differs" || return 1
}

test_gzip_dump_same_records() {
	sample t.fxt || return 1
	gzip -c "$TMP/w/t.fxt" > "$TMP/w/t.fxt.gz" || return 1
	same_dump t.fxt.gz
}

test_zstd_dump_same_records() {
	sample t.fxt || return 1
	zstd -q -c "$TMP/w/t.fxt" > "$TMP/w/t.fxt.zst" || return 1
	same_dump t.fxt.zst
}

# by content, not by name: a gzip file named .fxt, a plain one named .gz
test_format_by_content_not_name() {
	sample t.fxt || return 1
	gzip -c "$TMP/w/t.fxt" > "$TMP/w/z.fxt" || return 1
	cp "$TMP/w/t.fxt" "$TMP/w/plain.gz"
	same_dump z.fxt && same_dump plain.gz
}

test_convert_gzip_default_name() {
	sample t.fxt || return 1
	gzip "$TMP/w/t.fxt" || return 1
	t_run convert t.fxt.gz
	[ "$RC" = 0 ] || fail "convert: $RC $ERR" || return 1
	[ -s "$TMP/w/t.json" ] || fail "no t.json: $(ls "$TMP/w")" || return 1
}

test_truncated_gzip_fails() {
	sample t.fxt || return 1
	gzip -c "$TMP/w/t.fxt" | head -c 300 > "$TMP/w/t.fxt.gz"
	t_run dump t.fxt.gz
	[ "$RC" != 0 ] || fail "exit 0 for a truncated file" || return 1
	[ -z "$OUT" ] || fail "records printed from a truncated file" || return 1
	# one line, with gzip's own reason
	[ "$ERR" = "tracebufctl: t.fxt.gz: gzip: stdin: unexpected end of file" ] ||
		fail "stderr: $ERR" || return 1
	# cut where gzip has written whole records before it fails (the
	# reader opened them), for every command that reads it: convert
	# closed that reader twice
	for _ in $(seq 300); do cat "$TMP/w/t.fxt"; done | gzip -c | head -c 2000 \
		> "$TMP/w/big.fxt.gz"
	for cmd in dump convert report; do
		t_run $cmd big.fxt.gz
		[ "$RC" = 1 ] || fail "$cmd: exit $RC for a truncated file: $ERR" || return 1
		[ "$ERR" = "tracebufctl: big.fxt.gz: gzip: stdin: unexpected end of file" ] ||
			fail "$cmd: stderr: $ERR" || return 1
	done
	[ ! -e "$TMP/w/big.json" ] || fail "convert left big.json"
}

test_missing_program_named() {
	sample t.fxt || return 1
	zstd -q -c "$TMP/w/t.fxt" > "$TMP/w/t.fxt.zst" || return 1
	RC=0
	(cd "$TMP/w" && PATH=/nonexistent exec "$TBCTL" dump t.fxt.zst) \
		> "$TMP/out" 2> "$TMP/err" < /dev/null || RC=$?
	ERR=$(cat "$TMP/err")
	expect_error "t.fxt.zst: zstd is needed for this file and is not installed (PATH)"
}

# garbage that begins like gzip: gzip refuses it, one more line of ours
test_not_gzip_after_magic() {
	printf '\037\213garbage that is not deflate' > "$TMP/w/bad.gz"
	t_run dump bad.gz
	[ "$RC" != 0 ] && [ "$ERR" = "tracebufctl: bad.gz: gzip: stdin: unknown method 103 -- not supported" ] ||
		fail "exit $RC, stderr: $ERR"
}

# standard input is read as it is: zcat first
test_stdin_plain() {
	sample t.fxt || return 1
	RC=0
	(cd "$TMP/w" && exec "$TBCTL" dump - < t.fxt) > "$TMP/out" 2> "$TMP/err" || RC=$?
	[ "$RC" = 0 ] && cmp -s "$TMP/out" "$TMP/plain.dump" || fail "dump -: $RC $(cat "$TMP/err")"
}

NEEDS=("$TBCTL" "$MKFXT")
TESTS=(
	test_gzip_dump_same_records
	test_zstd_dump_same_records
	test_format_by_content_not_name
	test_convert_gzip_default_name
	test_truncated_gzip_fails
	test_missing_program_named
	test_not_gzip_after_magic
	test_stdin_plain
)
for p in gzip zstd; do
	command -v $p > /dev/null || { echo "compress_test.sh: needs $p (scripts/install-deps.sh)" >&2; exit 1; }
done
tap_main
