# SPDX-License-Identifier: MIT
# Helpers of the shell tests (tests/*_test.sh); sourced, not run.
# shellcheck shell=bash
#
# A test script sets TBCTL (the program t_run runs), defines test_*
# functions, lists them in TESTS and calls tap_main.  Each test runs in a
# fresh empty directory $TMP/w and returns non-zero to fail; fail()
# prints the reason as a KTAP diagnostic.

TBCTL=$(realpath -m "$TBCTL")	# the tests cd
TMP=$(mktemp -d /tmp/tbctl-sh-XXXXXX)
trap 'rm -rf "$TMP"' EXIT

# t_run ARGS...: run tracebufctl in $TMP/w; sets RC, OUT, ERR.
t_run() {
	RC=0
	(cd "$TMP/w" && exec "$TBCTL" "$@") > "$TMP/out" 2> "$TMP/err" < /dev/null || RC=$?
	OUT=$(cat "$TMP/out")
	ERR=$(cat "$TMP/err")
}

# fail MESSAGE: say why the current test fails (a KTAP diagnostic).
fail() {
	printf '# %s\n' "$*"
	return 1
}

# expect_error TEXT: the last run failed with one line "tracebufctl: ..."
# on stderr containing TEXT.
expect_error() {
	[ "$RC" != 0 ] || fail "exit status 0 for a failure (stderr: $ERR)" || return 1
	[ "$(wc -l < "$TMP/err")" = 1 ] || fail "stderr is not one line: $ERR" || return 1
	[[ $ERR == "tracebufctl: "* ]] || fail "stderr lacks the prefix: $ERR" || return 1
	[[ $ERR == *"$1"* ]] || fail "stderr '$ERR' does not say '$1'" || return 1
}

# expect_usage ARGS...: --help-like: exit 0, usage on stdout, empty stderr.
expect_usage() {
	t_run "$@"
	[ "$RC" = 0 ] || fail "'$*': exit status $RC" || return 1
	[[ $OUT == "Usage: tracebufctl"* ]] || fail "'$*': no usage on stdout" || return 1
	[ -z "$ERR" ] || fail "'$*': stderr: $ERR" || return 1
}

# expect_empty_dir DIR: nothing at all in DIR (dot files included).
expect_empty_dir() {
	local left
	left=$(ls -A "$1")
	[ -z "$left" ] || fail "left behind in $1: $left"
}

# tap_main: run every function named in TESTS, print KTAP, exit 0 iff
# all passed.  NEEDS lists the programs that must exist.
tap_main() {
	local pass=0 failed=0 i=0 t p missing=''

	for p in "${NEEDS[@]}"; do
		[ -x "$p" ] || missing="$missing $p"
	done
	echo "TAP version 13"
	echo "1..${#TESTS[@]}"
	for t in "${TESTS[@]}"; do
		i=$((i + 1))
		rm -rf "$TMP/w"
		mkdir "$TMP/w"
		if [ -n "$missing" ]; then
			echo "# not built:$missing (make -C userlib/ctl tests)"
			echo "not ok $i ${t#test_}"
			failed=$((failed + 1))
		elif "$t"; then
			echo "ok $i ${t#test_}"
			pass=$((pass + 1))
		else
			echo "not ok $i ${t#test_}"
			failed=$((failed + 1))
		fi
	done
	echo "# Totals: pass:$pass fail:$failed xfail:0 xpass:0 skip:0 error:0"
	[ "$failed" = 0 ]
}
