#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Description: lib.sh's tb_copy_tree, the copy "make deb", deb-test.sh
# and install-test.sh build from, holds what git tracks and nothing else.
# In a git checkout with an untracked scratch directory and trace, a
# tracked file edited, one deleted and one whose name has a space: the
# copy has the tracked files as the work tree has them (the edit in, the
# deleted one out, the name with a space whole), and neither untracked
# file; ignored files and .build stay out.  Outside a checkout (a copy
# with no .git, as an unpacked tarball): every file no .gitignore names.
# KTAP output.
set -u

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
TREE=$TMP/tree

# shellcheck source=../../userlib/tests/ktap.sh
. "$ROOT/userlib/tests/ktap.sh"
echo "TAP version 13"
echo "1..2"

mkdir -p "$TREE/scripts" "$TREE/module" "$TREE/doc"
cp "$ROOT/scripts/lib.sh" "$TREE/scripts/"
echo 'int x;' > "$TREE/module/main.c"
echo 'int y;' > "$TREE/module/gone.c"
echo 'PACKAGE_NAME=tracebuf' > "$TREE/dkms.conf"
echo 'a space' > "$TREE/doc/a b.txt"
printf '%s\n' '*.o' '/.build/' > "$TREE/.gitignore"
git -C "$TREE" init -q
git -C "$TREE" add -A
git -C "$TREE" -c user.name=t -c user.email=t@t commit -q -m tree
# what a user leaves in a checkout: none of it is the project's
mkdir -p "$TREE/my" "$TREE/.build/x"
echo 'scratch' > "$TREE/my/notes.c"
echo 'trace' > "$TREE/run1.fxt"
echo 'obj' > "$TREE/module/main.o"
echo 'built' > "$TREE/.build/x/y"
echo 'PACKAGE_NAME=tracebuf-edited' > "$TREE/dkms.conf"
rm "$TREE/module/gone.c"

# copied DIR WANT...: DIR holds exactly the files WANT (sorted), and
# dkms.conf has the edit
copied() {
	local dir=$1 have want
	shift
	have=$(cd "$dir" && find . -type f | sed 's|^\./||' | LC_ALL=C sort)
	want=$(printf '%s\n' "$@" | LC_ALL=C sort)
	[ "$have" = "$want" ] && grep -qx 'PACKAGE_NAME=tracebuf-edited' "$dir/dkms.conf" &&
		return 0
	{ echo "the copy holds:"; echo "$have"; echo "expected:"; echo "$want"; } | say
	return 1
}

# shellcheck source=../lib.sh
(. "$TREE/scripts/lib.sh" && tb_copy_tree "$TMP/copy") 2>&1 | say
copied "$TMP/copy" .gitignore dkms.conf "doc/a b.txt" module/main.c scripts/lib.sh
result git_checkout_copies_what_git_tracks $?

# the copy itself has no .git: a copy of it takes every file not ignored
# shellcheck source=/dev/null
(. "$TMP/copy/scripts/lib.sh" && tb_copy_tree "$TMP/copy2") 2>&1 | say
copied "$TMP/copy2" .gitignore dkms.conf "doc/a b.txt" module/main.c scripts/lib.sh
result copy_without_git_copies_what_is_not_ignored $?

ktap_totals
