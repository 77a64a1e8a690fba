#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Description: scripts/check.sh reports every step and goes on.  It runs
# in a tree of stubs (its own lib.sh; host-tests.sh, install-test.sh,
# deb-test.sh, run-test.sh and vm-run.sh that print what a test asks for;
# Makefiles that build nothing; a fake kernel build tree), so that it
# takes a second and boots nothing:
#  - with every step passing, a PASS line each and "N passed, 0 failed";
#  - a step that stops before its summary (deb-test.sh after a tb_die),
#    one that reports a failed check, and one that exits non-zero after
#    "N passed, 0 failed" each print a FAIL line with the reason (the
#    script's last lines, the "not ok" line with its diagnostics, the exit
#    status), the steps after them still run (run-test.sh, the runner's
#    self-check, the guest suite), and the last line counts the failure;
#  - a build that fails stops the run with a FAIL line that says why.
# KTAP output.  TB_CHECK_SH may name another check.sh (to try an older one).
# shellcheck disable=SC2016 # make's variables and the stubs': single quotes
set -u

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
CHECK_SH=${TB_CHECK_SH:-$ROOT/scripts/check.sh}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
TREE=$TMP/tree

# shellcheck source=../../userlib/tests/ktap.sh
. "$ROOT/userlib/tests/ktap.sh"
echo "TAP version 13"
echo "1..5"

# --- the tree of stubs --------------------------------------------------------
mkdir -p "$TREE/scripts" "$TREE/selftests/tracebuf" "$TREE/userlib/lib" "$TREE/userlib/ctl" \
	"$TREE/userlib/posixtrace" "$TMP/kdir/include/generated"
cp "$CHECK_SH" "$TREE/scripts/check.sh"
cp "$ROOT/scripts/lib.sh" "$TREE/scripts/lib.sh"
: > "$TREE/Kbuild"
: > "$TMP/vmlinuz"
echo '#define UTS_RELEASE "6.1.0-fake-amd64"' > "$TMP/kdir/include/generated/utsrelease.h"
printf '%s\n' 'modules:' '	@mkdir -p $(M)/module && touch $(M)/module/tracebuf.ko' \
	> "$TMP/kdir/Makefile"
# FAKE_SELFTESTS=fail: the selftests do not build
printf '%s\n' 'all:' \
	'	@[ "$(FAKE_SELFTESTS)" != fail ] && mkdir -p $(OUTPUT) && touch $(OUTPUT)/abi_test_32 && chmod +x $(OUTPUT)/abi_test_32' \
	'list list-debug:' '	@echo abi_test' > "$TREE/selftests/tracebuf/Makefile"
for d in userlib/lib userlib/ctl userlib/posixtrace; do
	printf '%s\n' 'vmtests list-vmtests unit-tests list-unit-tests:' '	@:' \
		> "$TREE/$d/Makefile"
done
# stub NAME BODY: scripts/NAME runs BODY (with FAKE_* from the test)
stub() {
	printf '#!/bin/bash\n%s\n' "$2" > "$TREE/scripts/$1"
	chmod +x "$TREE/scripts/$1"
}
stub host-tests.sh 'echo "  PASS  fake_test                    2 passed"; echo "2 passed, 0 failed"'
stub install-test.sh 'printf "ok %s\n" 1 2 3; echo "3 passed, 0 failed"'
# FAKE_DEB=die: a tb_die before any summary; fail: a failed check (of the
# native packages: "--arch ARCH", the cross-built ones, pass)
stub deb-test.sh '
[ "${1:-}" != --arch ] || { echo "ok 1 make_deb_builds_every_package_for_$2"
			    echo "1 passed, 0 failed"; exit 0; }
case ${FAKE_DEB:-} in
die) echo "ok 1 make_deb_builds_every_package"
     echo "deb-test.sh: error: the throw-away root went away" >&2; exit 2 ;;
fail) echo "# tracebufctl_1.0_amd64.deb 99K"; echo "ok 1 make_deb_builds_every_package"
      echo "# make deb said a lot"; echo "# W: the-reason-it-failed"
      echo "not ok 2 lintian_no_error_no_warning"; echo "1 passed, 1 failed"; exit 1 ;;
*) echo "# tracebufctl_1.0_amd64.deb 99K"; echo "ok 1 make_deb_builds_every_package"
   echo "1 passed, 0 failed" ;;
esac'
# FAKE_RUN=N: exit status N after a summary without a failure
stub run-test.sh 'echo "ok 1 make_run"; echo "1 passed, 0 failed"; exit "${FAKE_RUN:-0}"'
stub vm-run.sh '
case " $* " in
*" --fail-first-boot "*) echo "note: the first boot failed before the module was loaded" ;;
*) echo "  PASS  abi_test                     1 passed"; echo "1 passed, 0 failed" ;;
esac'

# check NAME [VAR=VALUE...]: run check.sh in the tree with these settings;
# its standard output in $TMP/NAME.out, its status in $rc
check() {
	local name=$1
	shift
	env -u TB_BUILD -u VM_ARGS NO_DEPS=1 "$@" bash "$TREE/scripts/check.sh" \
		--kernel "$TMP/vmlinuz" --kdir "$TMP/kdir" > "$TMP/$name.out" 2> "$TMP/$name.err"
	rc=$?
}
# has NAME REGEX...: every REGEX matches a line of NAME's output
# (ktap_has); the end of its standard error too as diagnostics otherwise
has() {
	local name=$1
	shift
	ktap_has "$TMP/$name.out" "$@" && return 0
	{ echo "standard error (end):"; tail -n 5 "$TMP/$name.err"; } | say
	return 1
}
# last NAME LINE: NAME's last line of output is LINE
last() {
	[ "$(tail -n 1 "$TMP/$1.out")" = "$2" ] && return 0
	echo "last line: '$(tail -n 1 "$TMP/$1.out")', expected '$2'" | say
	return 1
}
# every step after deb-test.sh ran
LATER=('^  PASS  deb-test-arm64 +1 passed$' '^  PASS  deb-test-armhf +1 passed$'
	'^  PASS  run-test\.sh ' '^  PASS  runner retries a failed boot$'
	'^vm: 1 passed, 0 failed$')

# 1. every step passes
check pass
has pass '^host: 2 passed, 0 failed$' '^  PASS  install-test\.sh +3 passed$' \
	'^  PASS  deb-test\.sh +1 passed$' '^        tracebufctl_1\.0_amd64\.deb 99K$' \
	"${LATER[@]}" && last pass "11 passed, 0 failed" && [ $rc = 0 ]
result every_step_passes $? "exit status $rc"

# 2. deb-test.sh stops before its summary: FAIL, its status and last
# lines, and the run goes on
check die FAKE_DEB=die
has die '^  FAIL  deb-test\.sh +0 passed, 1 failed: stopped \(exit status 2\) before its summary \(see ' \
	'^          \| deb-test\.sh: error: the throw-away root went away$' "${LATER[@]}" &&
	last die "10 passed, 1 failed" && [ $rc != 0 ]
result a_step_that_stops_is_reported_and_the_run_goes_on $? "exit status $rc"

# 3. deb-test.sh fails a check: FAIL, the "not ok" with its reason
check fail FAKE_DEB=fail
has fail '^  FAIL  deb-test\.sh +1 passed, 1 failed \(see ' \
	'^          \| # W: the-reason-it-failed$' '^          \| not ok 2 lintian_no_error_no_warning$' \
	"${LATER[@]}" && last fail "11 passed, 1 failed" && [ $rc != 0 ]
result a_failed_check_is_reported_with_its_reason $? "exit status $rc"

# 4. run-test.sh exits 3 after "1 passed, 0 failed": a failure
check status FAKE_RUN=3
has status '^  FAIL  run-test\.sh +1 passed, 1 failed: exit status 3 \(see ' \
	'^  PASS  runner retries a failed boot$' '^vm: 1 passed, 0 failed$' &&
	last status "11 passed, 1 failed" && [ $rc != 0 ]
result a_failing_exit_status_is_a_failure $? "exit status $rc"

# 5. a build that fails stops the run, with a FAIL line that says why
check build FAKE_SELFTESTS=fail
has build '^  FAIL  check\.sh stopped before the guest suite: the selftests did not build$' &&
	last build "2 passed, 1 failed" && [ $rc != 0 ]
result a_failed_build_says_why_it_stopped $? "exit status $rc"

ktap_totals
