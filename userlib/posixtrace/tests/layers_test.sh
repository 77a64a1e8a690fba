#!/bin/bash
# SPDX-License-Identifier: MIT
#
# Description: libposixtrace's files call each other down the layers that
# the comment at the top of posixtrace_priv.h lays out, one line
# " *   layer N: FILE.c ..." per layer.  Every *.c of the library is on one
# layer, and every file listed is there; a file calls (or takes the
# address of) a function of another file only if that file is on a lower
# layer, never one on its own layer or above, but for the one upward call
# the comment may name on a line " *   upward: FILE.c calls FUNCTION()",
# which must then be there.  The calls are read from the objects: each
# file is compiled alone, and nm says what it defines and what it needs
# (pt_* and posix_trace_* alike; an inline function of the header is no
# file's).  The diagnostics draw the graph, file by file.  KTAP output.
set -u

PT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
PRIV=$PT/posixtrace_priv.h
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
CC=${CC:-cc}

# shellcheck source=../../tests/ktap.sh
. "$PT/../tests/ktap.sh"
echo "TAP version 13"
echo "1..3"

command -v nm > /dev/null || { echo "Bail out! no nm (binutils)"; exit 1; }

# The layers: "N FILE.c" lines, from the "layer N:" lines of the comment
sed -n 's/^ \*[[:space:]]*layer \([0-9][0-9]*\):\(.*\)$/\1 \2/p' "$PRIV" |
	while read -r n files; do
		for f in $files; do
			case $f in *.c) echo "$n $f" ;; esac
		done
	done > "$TMP/layers"
# The upward calls allowed: "FILE.c FUNCTION" lines
sed -n 's/^ \*[[:space:]]*upward: \([A-Za-z0-9_]*\.c\) calls \([A-Za-z0-9_]*\)().*$/\1 \2/p' \
	"$PRIV" > "$TMP/upward"

declare -A layer_of=()
while read -r n f; do
	layer_of[$f]=$n
done < "$TMP/layers"

# 1: each file on one layer, each file listed there
st=0
if [ ! -s "$TMP/layers" ]; then
	echo "posixtrace_priv.h has no \" *   layer N: FILE.c ...\" line" | say
	st=1
fi
(cd "$PT" && ls -- *.c) > "$TMP/files"
awk '{ print $2 }' "$TMP/layers" | sort | uniq -d | sed 's/^/on more than one layer: /' | say
[ -z "$(awk '{ print $2 }' "$TMP/layers" | sort | uniq -d)" ] || st=1
while read -r f; do
	[ -n "${layer_of[$f]:-}" ] || { echo "$f is on no layer" | say; st=1; }
done < "$TMP/files"
while read -r _ f; do
	grep -qxF "$f" "$TMP/files" || { echo "$f is on a layer, and is no file" | say; st=1; }
done < "$TMP/layers"
result every_file_is_on_one_layer $st

# What each file defines and needs: "def FILE.c SYMBOL", "use FILE.c SYMBOL"
while read -r f; do
	o=$TMP/${f%.c}.o
	if ! (cd "$PT" && "$CC" -std=c11 -O0 -Iinclude -I../lib/include -I../../uapi \
		-D_FILE_OFFSET_BITS=64 -fvisibility=hidden -c "$f" -o "$o") > "$TMP/cc.log" 2>&1; then
		echo "Bail out! $f does not compile"
		say < "$TMP/cc.log"
		exit 1
	fi
	nm -P "$o" | awk -v f="$f" '$2 ~ /^[TDBRV]$/ { print "def", f, $1 }
				      $2 == "U" { print "use", f, $1 }'
done < "$TMP/files" > "$TMP/syms"
# the calls between files: "CALLER.c CALLEE.c FUNCTION"
awk '$1 == "def" { def[$3] = $2 } $1 == "use" { use[n++] = $2 " " $3 }
     END {
	for (i = 0; i < n; i++) {
		split(use[i], u, " ")
		if ((u[2] in def) && def[u[2]] != u[1])
			print u[1], def[u[2]], u[2]
	}
     }' "$TMP/syms" | sort -u > "$TMP/calls"

# 2: every call goes down
st=0
used_upward=
while read -r from to fn; do
	lf=${layer_of[$from]:-} lt=${layer_of[$to]:-}
	# on no layer: test 1 says so
	if [ -z "$lf" ] || [ -z "$lt" ] || [ "$lf" -gt "$lt" ]; then
		continue
	fi
	if grep -qxF "$from $fn" "$TMP/upward"; then
		used_upward="$from $fn"
		continue
	fi
	echo "$from (layer $lf) calls $fn() of $to (layer $lt)" | say
	st=1
done < "$TMP/calls"
# the graph, from the top: "layer N FILE.c -> FILE.c ..."
sort -k1,1nr -k2 "$TMP/layers" | while read -r n f; do
	echo "layer $n $f ->$(awk -v f="$f" '$1 == f && !seen[$2]++ { printf " %s", $2 }' "$TMP/calls")"
done | say
result every_call_goes_down $st

# 3: the upward call the header names, if any: one at most, and made
st=0
if [ "$(wc -l < "$TMP/upward")" -gt 1 ]; then
	echo "posixtrace_priv.h names more than one upward call:" | say
	say < "$TMP/upward"
	st=1
elif [ -s "$TMP/upward" ] && [ "$used_upward" != "$(cat "$TMP/upward")" ]; then
	echo "posixtrace_priv.h names an upward call no file makes: $(cat "$TMP/upward")" | say
	st=1
fi
echo "upward calls named: $(wc -l < "$TMP/upward")" | say
result at_most_one_upward_call_named $st

ktap_totals
