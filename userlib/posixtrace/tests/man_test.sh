#!/bin/bash
# SPDX-License-Identifier: MIT
#
# Description: posix_trace(7) (userlib/man/posix_trace.7) cannot drift from
# what it describes: each limit of trace.h is a row "NAME<TAB>VALUE<TAB>..."
# of its LIMITS table, VALUE as the header expands it; the defaults,
# bounds and sizes it states are those of posixtrace_priv.h; its STATUS
# section lists exactly the functions trace.h declares.  (That it renders
# without a warning is checked by userlib/lib/tests/man_test.sh.)  KTAP output.
set -u

PT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
PAGE=${TB_POSIX_TRACE_7:-$PT/../man/posix_trace.7}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
TAB=$'\t'

# shellcheck source=../../tests/ktap.sh
. "$PT/../tests/ktap.sh"
echo "TAP version 13"
echo "1..3"

# section HEADING: the lines of the page after ".SH HEADING", up to the next .SH
section() {
	awk -v h=".SH $1" '!on && $0 == h { on = 1; next } on && /^\.SH( |$)/ { exit } on' \
		"$PAGE"
}

# expand EXPR...: each C expression as the headers evaluate it, one a line
expand() {
	local e
	{
		echo '#include <stdio.h>'
		echo '#include "posixtrace_priv.h"'
		echo 'int main(void) {'
		for e in "$@"; do
			printf 'printf("%%llu\\n", (unsigned long long)(%s));\n' "$e"
		done
		echo 'return 0; }'
	} > "$TMP/v.c"
	cc -std=c11 -I"$PT/include" -I"$PT" -I"$PT/../lib/include" -I"$PT/../../uapi" \
		"$TMP/v.c" -o "$TMP/v" 2> "$TMP/cc.log" && "$TMP/v"
}

# 1: the limits
st=0
limits=(TRACE_NAME_MAX TRACE_EVENT_NAME_MAX TRACE_SYS_MAX TRACE_USER_EVENT_MAX)
if ! mapfile -t values < <(expand "${limits[@]}") || [ ${#values[@]} != ${#limits[@]} ]; then
	echo "could not evaluate the limits:" | say
	say < "$TMP/cc.log"
	st=1
else
	section LIMITS > "$TMP/limits"
	for i in "${!limits[@]}"; do
		grep -q "^${limits[$i]}$TAB${values[$i]}$TAB" "$TMP/limits" ||
			{ echo "LIMITS lacks a row '${limits[$i]}<TAB>${values[$i]}<TAB>...'" | say; st=1; }
	done
fi
result limits $st

# 2: the defaults, bounds and sizes stated in the page
st=0
exprs=(PT_STREAM_SIZE_DEFAULT PT_STREAM_SIZE_MIN PT_STREAM_SIZE_MAX PT_LOG_SIZE_DEFAULT
	PT_LOG_SIZE_MIN PT_MAX_DATA_SIZE_DEFAULT PT_MAX_DATA_SIZE_MAX PT_EVENT_RECORD_FIXED
	PT_SYSTEM_DATA_MAX
	"pt_system_record_size(sizeof(PT_SYSTEM_LARGEST) - 1, PT_SYSTEM_DATA_MAX)"
	PT_EVENT_ID_MAX)
if ! mapfile -t values < <(expand "${exprs[@]}") || [ ${#values[@]} != ${#exprs[@]} ]; then
	echo "could not evaluate the sizes:" | say
	say < "$TMP/cc.log"
	st=1
else
	for i in "${!exprs[@]}"; do
		grep -qw -- "${values[$i]}" "$PAGE" ||
			{ echo "the page never says ${values[$i]} (${exprs[$i]})" | say; st=1; }
	done
fi
gv=$(sed -n 's/^#define PT_GENVERSION[[:space:]]*"\(.*\)"$/\1/p' "$PT/posixtrace_priv.h")
if [ -z "$gv" ] || ! grep -qF "\"$gv\"" "$PAGE"; then
	echo "the page does not give the generation version \"$gv\"" | say
	st=1
fi
result defaults_and_sizes $st

# 3: STATUS lists the functions trace.h declares, no more, no fewer
st=0
sed -n 's/^[a-z].*[ *]\(posix_trace_[a-z_]*\)(.*/\1/p' "$PT/include/trace.h" | sort -u \
	> "$TMP/declared"
section STATUS | sed -n 's/^\.B \(posix_trace_[a-z_]*\)$/\1/p' | sort > "$TMP/listed"
if [ ! -s "$TMP/declared" ]; then
	echo "no function found in trace.h" | say
	st=1
elif ! diff "$TMP/declared" "$TMP/listed" > "$TMP/diff"; then
	echo "declared in trace.h (<) against listed in STATUS (>):" | say
	grep '^[<>]' "$TMP/diff" | say
	st=1
fi
result status_lists_the_declared_functions $st

ktap_totals
