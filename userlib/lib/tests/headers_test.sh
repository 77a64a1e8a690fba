#!/bin/bash
# SPDX-License-Identifier: MIT
#
# Description: the public headers with every compiler a user may bring.
# Each header alone, and the programs that use every macro (cxx_test.cpp,
# event_test.c), compile without a warning as C11 (gcc, clang) and as
# C++17 and C++20 (g++, clang++), C11 with -pedantic too (a macro with no
# event argument must not need a GNU extension).  Misuse fails to compile, with a message
# that says why: an argument name that is not a string literal, more than
# 15 arguments, and (in C) a scoped duration as the body of an unbraced
# if.  KTAP output.
set -u

# the library's folder (userlib/lib) and the shared test helpers
LIB=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
TESTLIB=$(cd "$LIB/../tests" && pwd)
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
INC=(-I"$LIB/include" -I"$LIB/../../uapi")
WARN=(-Wall -Wextra -Werror)

C_COMPILERS=(gcc clang)
CXX_COMPILERS=(g++ clang++)
HEADERS=$(cd "$LIB/include" && ls tracebuf*.h)

# shellcheck source=../../tests/ktap.sh
. "$TESTLIB/ktap.sh"
nheaders=$(echo "$HEADERS" | wc -w)
echo "TAP version 13"
echo "1..$((nheaders + 6))"

# compile LANG STD COMPILER FILE [ARGS...]: 0 if it compiled cleanly
compile() {
	local lang=$1 std=$2 cc=$3 file=$4
	shift 4
	"$cc" -x "$lang" -std="$std" "${WARN[@]}" "${INC[@]}" -fsyntax-only "$@" "$file" \
		> "$TMP/log" 2>&1
}

# every_mode FILE_C FILE_CXX: each in every language and compiler; 0 if all did
every_mode() {
	local st=0 cc std
	for cc in "${C_COMPILERS[@]}"; do
		if [ -n "$1" ] && ! compile c c11 "$cc" "$1"; then
			echo "$cc -std=c11 $(basename "$1"):" | say; say < "$TMP/log"; st=1
		fi
		if [ -n "$1" ] && ! compile c c11 "$cc" "$1" -pedantic; then
			echo "$cc -std=c11 -pedantic $(basename "$1"):" | say; say < "$TMP/log"; st=1
		fi
	done
	for cc in "${CXX_COMPILERS[@]}"; do
		for std in c++17 c++20; do
			if [ -n "$2" ] && ! compile c++ "$std" "$cc" "$2"; then
				echo "$cc -std=$std $(basename "$2"):" | say; say < "$TMP/log"; st=1
			fi
		done
	done
	return $st
}

for cc in "${C_COMPILERS[@]}" "${CXX_COMPILERS[@]}"; do
	command -v "$cc" > /dev/null || { echo "Bail out! no $cc (scripts/install-deps.sh)"; exit 1; }
done

# 1..N: each header alone
for h in $HEADERS; do
	printf '#include <%s>\nint tb_unused;\n' "$h" > "$TMP/one.c"
	every_mode "$TMP/one.c" "$TMP/one.c"
	result "alone_${h%.h}" $?
done

# the programs that use every macro, in every mode
every_mode "$LIB/tests/event_test.c" "$LIB/tests/cxx_test.cpp" -D_GNU_SOURCE \
	-I"$LIB" -I"$TESTLIB"
result every_macro_every_compiler $?

# fails_with NAME MESSAGE LANG STD CC SNIPPET: SNIPPET must not compile, and
# the compiler must say MESSAGE
fails_with() {
	local msg=$2 lang=$3 std=$4 cc=$5
	printf '#define TRACEBUF_LIB_SHORT_NAMES\n#include <tracebuf.h>\nvoid f(int x);\n%s\n' "$6" \
		> "$TMP/bad.c"
	if compile "$lang" "$std" "$cc" "$TMP/bad.c"; then
		echo "$1: $cc -std=$std compiled it" | say
		return 1
	fi
	if ! grep -q "$msg" "$TMP/log"; then
		echo "$1: $cc -std=$std did not say '$msg':" | say
		say < "$TMP/log"
		return 1
	fi
	return 0
}

# a name that is not a string literal: a pointer, or an array variable (C)
st=0
for cc in "${C_COMPILERS[@]}"; do
	fails_with pointer "argument names must be string literals" c c11 "$cc" \
		'void f(int x) { const char *n = "n"; TRACE_INSTANT("c", "e", TA_I32(n, x)); }' || st=1
	fails_with array "argument names must be string literals" c c11 "$cc" \
		'void f(int x) { char n[8] = "n"; TRACE_INSTANT("c", "e", TA_I32(n, x)); }' || st=1
done
for cc in "${CXX_COMPILERS[@]}"; do
	fails_with pointer "argument names must be string literals" c++ c++17 "$cc" \
		'void f(int x) { const char *n = "n"; TRACE_INSTANT("c", "e", TA_I32(n, x)); }' || st=1
done
result name_not_a_literal_refused $st

st=0
sixteen='TA_I32("a", x), TA_I32("b", x), TA_I32("c", x), TA_I32("d", x), TA_I32("e", x),
	 TA_I32("f", x), TA_I32("g", x), TA_I32("h", x), TA_I32("i", x), TA_I32("j", x),
	 TA_I32("k", x), TA_I32("l", x), TA_I32("m", x), TA_I32("n", x), TA_I32("o", x),
	 TA_I32("p", x)'
for cc in "${C_COMPILERS[@]}"; do
	fails_with sixteen "at most 15 arguments" c c11 "$cc" \
		"void f(int x) { TRACE_INSTANT(\"c\", \"e\", $sixteen); }" || st=1
done
for cc in "${CXX_COMPILERS[@]}"; do
	fails_with sixteen "at most 15 arguments" c++ c++17 "$cc" \
		"void f(int x) { TRACE_DURATION(\"c\", \"e\", $sixteen); }" || st=1
done
result sixteen_arguments_refused $st

# C: a scoped duration is a declaration, not a statement
st=0
for cc in "${C_COMPILERS[@]}"; do
	fails_with if_body "tracebuf_duration_needs_a_block" c c11 "$cc" \
		'void f(int x) { if (x) TRACE_DURATION("c", "e"); }' || st=1
done
result c_duration_as_if_body_refused $st

# C++: it may be one, and several may share a line
printf '#define TRACEBUF_LIB_SHORT_NAMES\n#include <tracebuf.h>\nvoid f(int x)\n{\n\tif (x)\n\t\tTRACE_DURATION("c", "e", TA_I32("x", x));\n\tTRACE_DURATION("c", "a"); TRACE_DURATION("c", "b");\n}\n' \
	> "$TMP/ok.cpp"
printf '#define TRACEBUF_LIB_SHORT_NAMES\n#include <tracebuf.h>\nvoid f(int x)\n{\n\tif (x) {\n\t\tTRACE_DURATION("c", "a"); TRACE_DURATION("c", "b", TA_STR("s", "v"));\n\t}\n}\n' \
	> "$TMP/ok.c"
every_mode "$TMP/ok.c" "$TMP/ok.cpp"
result duration_forms_that_compile $?

# The short names are opt-in: another tracer's TRACE_* and TA_* (Perfetto's,
# Fuchsia's) may be defined beside the headers, before or after them.
printf '#define TRACE_INSTANT(c, n, ...) other_tracer(c, n)\n#define TA_I32(n, v) (v)\n#include <tracebuf.h>\nint other_tracer(const char *c, const char *n);\nvoid f(int x)\n{\n\tTRACE_INSTANT("c", "e", TA_I32("x", x));\n\tTRACEBUF_LIB_INSTANT("c", "e", TRACEBUF_LIB_ARG_INT32("x", x));\n}\n' \
	> "$TMP/other.c"
printf '#include <tracebuf.h>\n#if defined(TRACE_INSTANT) || defined(TA_I32)\n#error short names without TRACEBUF_LIB_SHORT_NAMES\n#endif\n#define TRACE_INSTANT(c, n, ...) 0\nint tb_unused;\n' \
	> "$TMP/other.cpp"
every_mode "$TMP/other.c" "$TMP/other.cpp"
result short_names_only_when_asked $?

ktap_totals
