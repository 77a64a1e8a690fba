#!/bin/bash
# SPDX-License-Identifier: MIT
#
# Description: <trace.h> with every compiler a user may bring.  Alone, it
# compiles without a warning (-Wall -Wextra -Werror -pedantic) as C11 (gcc,
# clang) and as C++17 and C++20 (g++, clang++), and says that the four
# trace options are there (200809L); so it does with <unistd.h> (whose
# glibc copy defines them as -1) included before it and after it.  Every
# function it declares is exported by libposixtrace.map: the header never
# declares a function the library does not have.  KTAP output.
set -u

PT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
INC=(-I"$PT/include")
WARN=(-Wall -Wextra -Werror -pedantic)

C_COMPILERS=(gcc clang)
CXX_COMPILERS=(g++ clang++)

# shellcheck source=../../tests/ktap.sh
. "$PT/../tests/ktap.sh"
echo "TAP version 13"
echo "1..4"

for cc in "${C_COMPILERS[@]}" "${CXX_COMPILERS[@]}"; do
	command -v "$cc" > /dev/null || { echo "Bail out! no $cc (scripts/install-deps.sh)"; exit 1; }
done

# every_mode FILE: FILE compiles cleanly in every language, standard and
# compiler; 0 if it did
every_mode() {
	local st=0 cc std
	for cc in "${C_COMPILERS[@]}"; do
		if ! "$cc" -x c -std=c11 "${WARN[@]}" "${INC[@]}" -fsyntax-only "$1" \
			> "$TMP/log" 2>&1; then
			echo "$cc -std=c11 $(basename "$1"):" | say; say < "$TMP/log"; st=1
		fi
	done
	for cc in "${CXX_COMPILERS[@]}"; do
		for std in c++17 c++20; do
			if ! "$cc" -x c++ -std="$std" "${WARN[@]}" "${INC[@]}" -fsyntax-only "$1" \
				> "$TMP/log" 2>&1; then
				echo "$cc -std=$std $(basename "$1"):" | say; say < "$TMP/log"; st=1
			fi
		done
	done
	return $st
}

# What each program ends with: the options as trace.h defines them, and a
# use of every type.
check='
#if _POSIX_TRACE != 200809L || _POSIX_TRACE_EVENT_FILTER != 200809L || \
	_POSIX_TRACE_LOG != 200809L || _POSIX_TRACE_INHERIT != 200809L
#error the trace options are not 200809L
#endif
int pt_use(void);
int pt_use(void)
{
	trace_attr_t a;
	trace_event_set_t s;
	trace_id_t t = 0;
	trace_event_id_t e = POSIX_TRACE_START;
	struct posix_trace_event_info ei;
	struct posix_trace_status_info si;

	ei.posix_event_id = e;
	si.posix_stream_status = POSIX_TRACE_RUNNING;
	return posix_trace_attr_init(&a) + posix_trace_eventset_empty(&s) +
	       posix_trace_eventid_equal(t, ei.posix_event_id, POSIX_TRACE_STOP) +
	       si.posix_stream_status;
}
'

printf '#include <trace.h>\n%s' "$check" > "$TMP/alone.c"
every_mode "$TMP/alone.c"
result alone $?

printf '#include <unistd.h>\n#include <trace.h>\n%s' "$check" > "$TMP/before.c"
every_mode "$TMP/before.c"
result unistd_before $?

printf '#include <trace.h>\n#include <unistd.h>\n%s' "$check" > "$TMP/after.c"
every_mode "$TMP/after.c"
result unistd_after $?

# every posix_trace_* function declared is in the map
st=0
sed -n 's/^[a-z].*[ *]\(posix_trace_[a-z_]*\)(.*/\1/p' "$PT/include/trace.h" | sort -u \
	> "$TMP/declared"
sed -e 's|/\*.*\*/||g' "$PT/libposixtrace.map" | tr -d '\t ;' | grep '^posix_trace_' | sort -u \
	> "$TMP/mapped"
if [ ! -s "$TMP/declared" ]; then
	echo "no function found in trace.h" | say
	st=1
elif ! diff "$TMP/declared" "$TMP/mapped" > "$TMP/diff"; then
	echo "declared in trace.h (<) against exported by libposixtrace.map (>):" | say
	grep '^[<>]' "$TMP/diff" | say
	st=1
fi
echo "$(wc -l < "$TMP/declared") functions declared" | say
result declared_functions_are_exported $st

ktap_totals
