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

# ktap_has FILE REGEX...: whether every REGEX (extended) matches a line of
# FILE; if not, the ones that do not and FILE as diagnostics, status 1.
ktap_has() {
	local file=$1 re missing=()
	shift
	for re in "$@"; do
		grep -qE -- "$re" "$file" || missing+=("$re")
	done
	[ ${#missing[@]} = 0 ] && return 0
	{ printf 'no line matches: %s\n' "${missing[@]}"
	  echo "$file:"; cat "$file"; } | say
	return 1
}

# ktap_totals: the totals line; the exit status is 0 only if all passed.
ktap_totals() {
	echo "# Totals: pass:$passed fail:$failed xfail:0 xpass:0 skip:0 error:0"
	[ "$failed" = 0 ]
}
