#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The body of "make lint":
#   1. a W=1 build of the module; any compiler or modpost warning fails,
#   2. sparse over every module source (C=2); any sparse warning or error
#      fails,
#   3. checkpatch.pl --strict over every file in module/ and uapi/; any
#      ERROR, WARNING or CHECK fails.
# Builds happen in .build/lint/ (a copy of the sources), never in the tree.
#
#   lint.sh [--kdir DIR]     default: the newest Debian 6.1 headers installed
#
# checkpatch.pl comes from Debian's linux-source-6.1 tarball (extracted once
# into .build/checkpatch/), or from $CHECKPATCH if set.
set -euo pipefail

. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

KDIR=
while [ $# -gt 0 ]; do
	case $1 in
	--kdir) KDIR=$2; shift ;;
	*) tb_die "unknown argument '$1'" ;;
	esac
	shift
done
if [ -z "$KDIR" ]; then
	kinfo=$(tb_find_kernel 6.1)
	read -r _ KDIR _ <<< "$kinfo"
fi

WORK=$TB_BUILD/lint
mkdir -p "$WORK"
status=0

# report NAME LOG PATTERN: print the matching lines of LOG; fail if any.
report() {
	local name=$1 log=$2 pattern=$3 n
	n=$(grep -cE -- "$pattern" "$log" || true)
	if [ "$n" -gt 0 ]; then
		echo "lint: $name: $n problem(s):"
		grep -E -- "$pattern" "$log" | sed "s|$WORK/src/||g; s/^/    /"
		status=1
	else
		echo "lint: $name: clean"
	fi
}

# 1. W=1.  Capture everything; kbuild's own chatter has no "warning:".
echo "lint: W=1 build against $KDIR"
if ! (tb_build_module "$KDIR" "$WORK" W=1) > /dev/null 2> "$WORK/w1.log"; then
	cat "$WORK/w1.log"
	echo "lint: the W=1 build failed"
	status=1
fi
report "W=1 build" "$WORK/w1.log" '[Ww][Aa][Rr][Nn][Ii][Nn][Gg]:|[Ee][Rr][Rr][Oo][Rr]:'

# 2. sparse, on top of the W=1 objects so only the checker runs.
if [ $status = 0 ] || [ -f "$WORK/src/module/tracebuf.ko" ]; then
	command -v sparse > /dev/null || tb_die "sparse not found (scripts/install-deps.sh)"
	echo "lint: sparse (C=2)"
	make -C "$KDIR" M="$WORK/src" W=1 C=2 modules > "$WORK/sparse.log" 2>&1 || {
		cat "$WORK/sparse.log"
		status=1
	}
	report sparse "$WORK/sparse.log" ': (warning|error):'
fi

# 3. checkpatch.
CHECKPATCH=${CHECKPATCH:-}
if [ -z "$CHECKPATCH" ]; then
	src=/usr/src/linux-source-6.1.tar.xz
	[ -f "$src" ] || tb_die "no /usr/src/linux-source-6.1.tar.xz (apt-get install linux-source-6.1) and no CHECKPATCH="
	cpdir=$TB_BUILD/checkpatch
	stamp="$(stat -c '%s %Y' "$src")"
	if [ "$(cat "$cpdir/.extracted" 2>/dev/null || true)" != "$stamp" ]; then
		echo "lint: extracting checkpatch.pl from $src"
		rm -rf "$cpdir"
		mkdir -p "$cpdir"
		tar -xJf "$src" -C "$cpdir" --strip-components=2 \
			linux-source-6.1/scripts/checkpatch.pl \
			linux-source-6.1/scripts/spelling.txt \
			linux-source-6.1/scripts/const_structs.checkpatch
		echo "$stamp" > "$cpdir/.extracted"
	fi
	CHECKPATCH=$cpdir/checkpatch.pl
fi

# checkpatch applies its uapi rules (no BIT(), C99 types allowed, ...) to
# paths under include/uapi/, so it sees uapi/ through such a path.
cproot=$WORK/checkpatch-root
rm -rf "$cproot"
mkdir -p "$cproot/include"
ln -s "$TB_ROOT/uapi" "$cproot/include/uapi"
ln -s "$TB_ROOT/module" "$cproot/module"
if git -C "$TB_ROOT" rev-parse --git-dir > /dev/null 2>&1; then
	mapfile -t files < <(git -C "$TB_ROOT" ls-files -co --exclude-standard -- module uapi)
else
	mapfile -t files < <(cd "$TB_ROOT" && find module uapi -type f \
		! -name '*.o' ! -name '*.ko' ! -name '*.mod' ! -name '*.mod.c' \
		! -name '.*.cmd' ! -name modules.order | sort)
fi
if [ ${#files[@]} -eq 0 ]; then
	echo "lint: checkpatch: no files in module/ or uapi/"
	status=1
else
	echo "lint: checkpatch --strict over ${#files[@]} file(s)"
	paths=()
	for f in "${files[@]}"; do
		case $f in uapi/*) paths+=("include/$f") ;; *) paths+=("$f") ;; esac
	done
	(cd "$cproot" && perl "$CHECKPATCH" --strict --no-tree --terse --show-types \
		-f "${paths[@]}") | sed 's|^include/uapi/|uapi/|' > "$WORK/checkpatch.log" || true
	report checkpatch "$WORK/checkpatch.log" ': (ERROR|WARNING|CHECK):'
fi

if [ $status = 0 ]; then
	echo "lint: all clean"
else
	echo "lint: FAILED"
fi
exit $status
