#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Description: a checkout whose path has a space, which make and kbuild
# cannot build in, is refused up front in one line: by the top-level
# Makefile for every target but userlib and tracebufctl (which work
# there), and by the scripts that build there when run themselves
# (scripts/check.sh, scripts/deb.sh, scripts/run.sh, lib.sh's
# tb_build_module).  The tree
# is the Makefile and those scripts copied under a directory "a b", with
# userlib's and tracebufctl's Makefiles replaced by stubs.
# KTAP output.
set -u

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
TREE="$TMP/a b/tracebuf"

# shellcheck source=../../userlib/tests/ktap.sh
. "$ROOT/userlib/tests/ktap.sh"
GOALS=("" all module selftests libposixtrace deb run demo check lint install install-user clean)
echo "TAP version 13"
echo "1..$((${#GOALS[@]} + 5))"

mkdir -p "$TREE/scripts" "$TREE/debian" "$TREE/userlib/lib" "$TREE/userlib/ctl"
cp "$ROOT/Makefile" "$TREE/"
cp "$ROOT/debian/changelog" "$ROOT/debian/control" "$TREE/debian/"
cp "$ROOT/scripts/lib.sh" "$ROOT/scripts/check.sh" "$ROOT/scripts/deb.sh" "$ROOT/scripts/run.sh" \
	"$TREE/scripts/"
printf '%s\n' 'all:' '	@echo built userlib' > "$TREE/userlib/lib/Makefile"
printf '%s\n' 'all:' '	@echo built tracebufctl' > "$TREE/userlib/ctl/Makefile"

# refused NAME COMMAND...: COMMAND, in the tree, fails and says only one
# line, on standard error, that names the tree's path (or one in it) and
# its space; nothing on standard output, but for check.sh: there, as when
# anything stops it, its FAIL line with that reason and "0 passed, 1
# failed"
refused() {
	local name=$1 rc why
	shift
	(cd "$TREE" && "$@") > "$TMP/out" 2> "$TMP/err"
	rc=$?
	why="'${TREE}[^']*' has a space: make and kbuild cannot build in such a path"
	if [ $rc != 0 ] && [ "$(wc -l < "$TMP/err")" = 1 ] && grep -q "$why" "$TMP/err" &&
	   if [ "$name" = check_sh_is_refused ]; then
		[ "$(wc -l < "$TMP/out")" = 2 ] &&
		grep -q "^  FAIL  check.sh stopped before the guest suite: $why" "$TMP/out" &&
		[ "$(tail -n 1 "$TMP/out")" = "0 passed, 1 failed" ]
	   else
		[ ! -s "$TMP/out" ]
	   fi; then
		result "$name" 0
		return
	fi
	{ echo "exit status $rc; standard output:"; cat "$TMP/out"
	  echo "standard error:"; cat "$TMP/err"; } | head -n 20 | say
	result "$name" 1
}

# 1..N: make GOAL
for goal in "${GOALS[@]}"; do
	# shellcheck disable=SC2086 # no goal: make alone
	refused "make_${goal:-without_a_goal}_is_refused" make --no-print-directory $goal
done

# N+1: make userlib tracebufctl build
(cd "$TREE" && make --no-print-directory userlib tracebufctl) > "$TMP/out" 2>&1
st=$?
if [ $st != 0 ] || ! grep -qx 'built userlib' "$TMP/out" ||
   ! grep -qx 'built tracebufctl' "$TMP/out"; then
	say < "$TMP/out"
	st=1
fi
result make_userlib_and_tracebufctl_build $st

# N+2..N+5: the scripts, run themselves
refused check_sh_is_refused env NO_DEPS=1 scripts/check.sh
refused deb_sh_is_refused scripts/deb.sh --out "$TMP"
refused run_sh_is_refused scripts/run.sh --dest "$TMP" --cmd true
# shellcheck disable=SC2016 # expanded by that shell
refused tb_build_module_is_refused \
	bash -c '. scripts/lib.sh && tb_build_module /lib/modules/none/build "$TB_BUILD/x"'

ktap_totals
