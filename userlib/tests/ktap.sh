# SPDX-License-Identifier: MIT
# KTAP output for the shell tests of libtracebuf (tests/*_test.sh);
# sourced, not run.  A test script prints the plan ("1..N") itself, then
# one result() per subtest and ktap_totals at the end.
# shellcheck shell=bash

n=0
failed=0
passed=0

# result NAME STATUS [WHY]: one KTAP line.
result() {
	n=$((n + 1))
	if [ "$2" = 0 ]; then
		echo "ok $n $1"
		passed=$((passed + 1))
	else
		echo "not ok $n $1${3:+ # $3}"
		failed=$((failed + 1))
	fi
}

# say < LINES: KTAP diagnostics.
say() { sed 's/^/# /'; }

# ktap_totals: the totals line; the exit status is 0 only if all passed.
ktap_totals() {
	echo "# Totals: pass:$passed fail:$failed xfail:0 xpass:0 skip:0 error:0"
	[ "$failed" = 0 ]
}
