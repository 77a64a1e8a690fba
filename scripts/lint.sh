#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The body of "make lint":
#   1. a W=1 build of the module; any compiler or modpost warning fails,
#   2. sparse over every module source (C=2); any sparse warning or error
#      fails,
#   (1 and 2 for the kernel of every target in lib.sh's TB_TARGETS: x86-64
#   6.1, 6.12 and 6.1 PREEMPT_RT, arm64 6.1 and 6.12 16k and 32-bit ARM
#   6.1 cross-compiled)
#   3. checkpatch.pl --strict over every source file (.c, .h, Kbuild) in
#      module/ and uapi/; any ERROR, WARNING or CHECK fails,
#   4. libtracebuf's exported symbols: what libtracebuf.so exports (nm -D
#      --defined-only) must be exactly what userlib/lib/libtracebuf.map lists,
#      each in its version node, and exactly what the sources mark for
#      export (TRACEBUF_API, TRACEBUF_HOT_API: the default-visibility
#      globals of libtracebuf.a); any difference fails.  The same for
#      libposixtrace (userlib/posixtrace/libposixtrace.map, POSIXTRACE_API),
#      whose build (-Werror) must succeed.
#   5. no function private to libtracebuf is named tracebuf_*: every
#      tracebuf_* symbol of its objects (at -O0, static ones too) is in
#      the map, the public headers' inline API or the uapi header's; any
#      other fails (the private ones are tb_*).
#   6. the selftests build (-Werror) with the cross compilers of those
#      targets (aarch64 and its 32-bit ARM programs): each compiler warns
#      about other things, and "make check" builds only the native ones.
# Builds happen in .build/lint/ (a copy of the sources), never in the tree.
#
#   lint.sh [--kdir DIR]     only against the build tree DIR (a native one)
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
# "NAME KDIR MAKEARGS..." per line: what the module is built against.
trees=()
ccs=()	# "CC CC32" of each cross target, once each
if [ -n "$KDIR" ]; then
	trees=("$(basename "$(dirname "$KDIR")") $KDIR")
else
	for t in $TB_TARGETS; do
		tb_target "$t"
		"$TB_ROOT/scripts/install-deps.sh" --target "$t" >&2 ||
			tb_die "missing packages for target $t (see above)"
		kinfo=$(tb_find_kernel "$TB_SERIES" "$TB_FLAVOUR" "$TB_KROOT")
		read -r _ kdir _ <<< "$kinfo"
		trees+=("$t $kdir ${TB_KMAKE[*]}")
		[ "$TB_CC" = gcc ] || printf '%s\n' "${ccs[@]}" | grep -qxF "$TB_CC $TB_CC32" ||
			ccs+=("$TB_CC $TB_CC32")
	done
fi

LINT=$TB_BUILD/lint
WORK=$LINT
mkdir -p "$LINT"
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

for tree in "${trees[@]}"; do
	read -r name KDIR kmake <<< "$tree"
	# shellcheck disable=SC2206 # kmake: make arguments, one per word
	kmake=($kmake)
	WORK=$LINT/$name

	# 1. W=1.  Capture everything; kbuild's own chatter has no "warning:".
	echo "lint: W=1 build against $KDIR${kmake[*]:+ (${kmake[*]})}"
	if ! (tb_build_module "$KDIR" "$WORK" W=1 "${kmake[@]}") > /dev/null 2> "$WORK.w1.log"; then
		cat "$WORK.w1.log"
		echo "lint: the W=1 build failed"
		status=1
	fi
	report "$name: W=1 build" "$WORK.w1.log" '[Ww][Aa][Rr][Nn][Ii][Nn][Gg]:|[Ee][Rr][Rr][Oo][Rr]:'

	# 2. sparse, on top of the W=1 objects so only the checker runs.
	if [ -f "$WORK/src/module/tracebuf.ko" ]; then
		command -v sparse > /dev/null || tb_die "sparse not found (scripts/install-deps.sh)"
		echo "lint: $name: sparse (C=2)"
		{ make -C "$KDIR" M="$WORK/src" W=1 C=2 "${kmake[@]}" modules &&
		  make -C "$KDIR" M="$WORK/src/module/examples" W=1 C=2 "${kmake[@]}" \
			KBUILD_EXTRA_SYMBOLS="$WORK/src/Module.symvers" modules
		} > "$WORK.sparse.log" 2>&1 || {
			cat "$WORK.sparse.log"
			status=1
		}
		report "$name: sparse" "$WORK.sparse.log" ': (warning|error):'
	fi
done

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
cproot=$LINT/checkpatch-root
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
# the kernel's sources, not the module's udev rule and modprobe.d file
mapfile -t files < <(printf '%s\n' "${files[@]}" | grep -E '(\.[ch]|/Kbuild)$')
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
		-f "${paths[@]}") | sed 's|^include/uapi/|uapi/|' > "$LINT/checkpatch.log" || true
	report checkpatch "$LINT/checkpatch.log" ': (ERROR|WARNING|CHECK):'
fi

# 4. The libraries' ABI: the map, name by name, against the built library.
# check_abi NAME DIR MARK: NAME.so and NAME.a built in userlib/DIR (O=),
# against userlib/DIR/NAME.map and what the sources mark MARK.
check_abi() {
	local lib=$1 dir=$2 mark=$3
	local sodir=$LINT/$lib out=$LINT/$lib rel=userlib/$dir/$lib.map map

	map=$TB_ROOT/$rel
	echo "lint: $lib's exported symbols against $rel"
	if ! make -s -C "$TB_ROOT/userlib/$dir" O="$sodir" "$lib.so" "$lib.a" \
		> "$out.so.log" 2>&1; then
		cat "$out.so.log"
		echo "lint: $lib.so did not build"
		status=1
		return
	fi
	# "name@@VERSION" lines, from the map (comments dropped) and the library
	"$TB_ROOT/scripts/map-symbols.sh" "$map" > "$out.map.syms"
	nm -D --defined-only "$sodir/$lib.so" | awk '$2 != "A" { print $3 }' |
		sort > "$out.so.syms"
	comm -3 "$out.map.syms" "$out.so.syms" | sed -e 's/^\t/exported, not in the map: /' \
		-e '/^exported/!s/^/in the map, not exported: /' > "$out.abi.log"
	readelf -sW "$sodir/$lib.a" |
		awk '$5 == "GLOBAL" && $6 == "DEFAULT" && $7 != "UND" { print $8 }' |
		sort > "$out.api.syms"
	sed 's/@@.*//' "$out.map.syms" | comm -3 - "$out.api.syms" |
		sed -e "s/^\t/marked $mark, not in the map: /" \
		    -e "/^marked/!s/^/in the map, not marked $mark: /" >> "$out.abi.log"
	[ -s "$out.map.syms" ] || echo "the map lists no symbols" >> "$out.abi.log"
	if [ -s "$out.abi.log" ]; then
		cat "$out.abi.log"
		echo "lint: $lib.map and $lib.so disagree"
		status=1
	else
		echo "lint: $lib: $(wc -l < "$out.map.syms") symbols, as the map lists them"
	fi
}
check_abi libtracebuf lib "TRACEBUF_API"

# 5. The prefix says the side: every tracebuf_* that libtracebuf's objects
# define (built at -O0, so that the static inline functions of its
# private headers are there too, with any binding) is one the map
# exports, the inline API of its public headers (their macros expanded)
# or the uapi header's; a function private to the library is tb_*.
check_prefix() {
	local lib=$TB_ROOT/userlib/lib out=$LINT/prefix h
	echo "lint: libtracebuf's private functions against the public prefix tracebuf_"
	if ! make -s -C "$lib" O="$out" CFLAGS="-O0 -g" libtracebuf.a > "$out.log" 2>&1; then
		cat "$out.log"
		echo "lint: libtracebuf.a (-O0) did not build"
		status=1
		return
	fi
	nm --defined-only "$out/libtracebuf.a" | awk 'NF == 3 && $3 ~ /^tracebuf_/ { print $3 }' |
		sort -u > "$out.defined"
	{
		"$TB_ROOT/scripts/map-symbols.sh" "$lib/libtracebuf.map" | sed 's/@@.*//'
		for h in "$lib"/include/*.h; do
			${CC:-cc} -E -P -D_GNU_SOURCE -I"$lib/include" -I"$TB_ROOT/uapi" "$h"
		done | grep -ow 'tracebuf_[a-z0-9_]*'
		grep -ow 'tracebuf_[a-z0-9_]*' "$TB_ROOT/uapi/linux/tracebuf.h"
	} | sort -u > "$out.public"
	comm -23 "$out.defined" "$out.public" | sed 's/^/private, named tracebuf_*: /' > "$out.bad"
	if [ -s "$out.bad" ]; then
		cat "$out.bad"
		echo "lint: rename them tb_* (or export them in libtracebuf.map)"
		status=1
	else
		echo "lint: libtracebuf: $(wc -l < "$out.defined") tracebuf_* symbols, all public"
	fi
}
check_prefix
# libposixtrace (userlib/posixtrace): also its -Werror build
check_abi libposixtrace posixtrace "POSIXTRACE_API"

# 6. The selftests with each cross target's compilers.
for cc in "${ccs[@]}"; do
	read -r cc cc32 <<< "$cc"
	out=$LINT/selftests-$cc
	mkdir -p "$out"
	echo "lint: the selftests with $cc${cc32:+ and $cc32}"
	if ! make -s -C "$TB_ROOT/selftests/tracebuf" OUTPUT="$out" CC="$cc" CC32="$cc32" \
		> "$out.log" 2>&1; then
		grep -E 'error|warning' "$out.log" | head -n 20
		echo "lint: the selftests did not build with $cc (see $out.log)"
		status=1
	fi
done

if [ $status = 0 ]; then
	echo "lint: all clean"
else
	echo "lint: FAILED"
fi
exit $status
