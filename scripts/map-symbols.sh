#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# map-symbols.sh MAP: the symbols a linker version script exports, one
# "name@@NODE" line each, sorted (comments dropped; "local:" ignored).
# Used by "make lint" (against the built library) and by debian/rules
# (libtracebuf1's symbols file), so that userlib/lib/libtracebuf.map stays
# the one list of the library's ABI.
set -euo pipefail
[ $# = 1 ] || { echo "usage: $0 MAP" >&2; exit 2; }
sed -e 's|/\*.*\*/||g' "$1" | tr -d '\t ' | awk '
	/^[A-Za-z0-9_.]+\{$/ { node = substr($0, 1, length($0) - 1); next }
	/^global:$/ { global = 1; next }
	/^local:$/ { global = 0; next }
	/^}/ { node = ""; global = 0; next }
	global && node != "" && /^[A-Za-z_][A-Za-z0-9_]*;$/ {
		print substr($0, 1, length($0) - 1) "@@" node
	}' | sort
