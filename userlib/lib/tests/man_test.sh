#!/bin/bash
# SPDX-License-Identifier: MIT
#
# Description: the man pages (userlib/man/): tracebufctl(1), libtracebuf(3),
# tracebuf(4) and posix_trace(7) render without a warning, and the first
# three cannot drift from what they describe (posix_trace(7):
# userlib/posixtrace/tests/man_test.sh):
#  - tracebuf.4 names every TRACEBUF_IOC_* of uapi/linux/tracebuf.h, has a
#    ".SS TRACEBUF_IOC_X" for each ioctl that names its argument struct,
#    every TRACEBUF_PKT_* as '.BR NAME " (VALUE)"', every TRACEBUF_MSG_*
#    as a table row "NAME<TAB>VALUE<TAB>...", every TRACEBUF_STATE_* as a
#    row "NAME<TAB>VALUE", and each limit as a row "NAME<TAB>VALUE<TAB>..."
#    of its LIMITS table, VALUE as the header defines it;
#  - its MODULE PARAMETERS entries (".TP" then ".B name") are exactly the
#    module_param_named() and module_param_cb() of module/*.c;
#  - tracebufctl.1 has a ".SS COMMAND" under COMMANDS for exactly the
#    commands "tracebufctl --help" lists, and each command's subsection
#    writes every option its "--help" lists ("-x, --word" as
#    "\-x, \-\-word", a long option alone as "\-\-word"; those of a command
#    whose help is the global one, and the global options, in OPTIONS);
#  - libtracebuf.3 names in its SYNOPSIS every function declared in
#    tracebuf_provider.h and tracebuf_manager.h.
# KTAP output.  The program is $TBCTL (default userlib/ctl/tracebufctl,
# built by "make -C userlib/ctl"); TB_MAN_DIR, TB_UAPI_H, TB_MODULE_DIR and
# TB_INCLUDE_DIR may name other pages and sources (to try a drift).
set -u

USERLIB=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
ROOT=$(cd "$USERLIB/.." && pwd)
MAN=${TB_MAN_DIR:-$USERLIB/man}
UAPI=${TB_UAPI_H:-$ROOT/uapi/linux/tracebuf.h}
MODDIR=${TB_MODULE_DIR:-$ROOT/module}
INCDIR=${TB_INCLUDE_DIR:-$USERLIB/lib/include}
TBCTL=${TBCTL:-$USERLIB/ctl/tracebufctl}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
TAB=$'\t'

PAGES=(tracebufctl.1 libtracebuf.3 tracebuf.4 posix_trace.7)
LIMITS=(TRACEBUF_NAME_MAX TRACEBUF_CATEGORY_MAX TRACEBUF_CATEGORIES_MAX
	TRACEBUF_DESCRIPTION_MAX TRACEBUF_ALERT_NAME_MAX TRACEBUF_ARGS_SIZE_MAX
	TRACEBUF_BUFFER_MIN TRACEBUF_BUFFER_ALIGN TRACEBUF_INBOX_DEPTH
	TRACEBUF_OUTBOX_DEPTH)

# shellcheck source=../../tests/ktap.sh
. "$USERLIB/tests/ktap.sh"
echo "TAP version 13"
echo "1..$((${#PAGES[@]} + 7))"

# section FILE HEADING: the lines after the line HEADING (".SH NAME" or
# ".SS NAME"), up to the next heading of its level or above
section() {
	awk -v h="$2" '
		!on && $0 == h { on = 1; ss = substr(h, 1, 3) == ".SS"; next }
		on && (/^\.SH( |$)/ || (ss && /^\.SS( |$)/)) { exit }
		on' "$1"
}

# define_value NAME: the value the uapi header #defines NAME to
define_value() {
	awk -v n="$1" '$1 == "#define" && $2 == n { print $3; exit }' "$UAPI"
}

# defined PREFIX: every name the uapi header #defines that starts with PREFIX
defined() {
	sed -n "s/^#define[[:space:]]\{1,\}\($1[A-Z0-9_]*\).*/\1/p" "$UAPI"
}

# has_line FILE TEXT: some line of FILE begins with TEXT (no regex)
has_line() {
	awk -v s="$2" 'index($0, s) == 1 { found = 1; exit } END { exit !found }' "$1"
}

# opt_re OPT: an ERE for the option OPT ("-x" or "--word") written in
# groff as \-x or \-\-word, and not as part of a longer option
opt_re() {
	local lit=${1//-/\\-}

	printf '%s([^A-Za-z0-9\\\\]|\\\\[^-]|$)' "${lit//\\/\\\\}"
}

# strip_comments FILE...: C source without its comments
strip_comments() {
	awk '{
		line = $0; out = ""
		while (line != "") {
			if (incomment) {
				i = index(line, "*/")
				if (!i)
					break
				line = substr(line, i + 2); incomment = 0
				continue
			}
			i = index(line, "/*"); j = index(line, "//")
			if (j && (!i || j < i)) {
				out = out substr(line, 1, j - 1)
				break
			}
			if (!i) {
				out = out line
				break
			}
			out = out substr(line, 1, i - 1) " "
			line = substr(line, i + 2); incomment = 1
		}
		print out
	}' "$@"
}

# ---------------------------------------------------------------------------
# 1..N: each page renders without a warning

have_groff=1
command -v groff > /dev/null || have_groff=0
for page in "${PAGES[@]}"; do
	p=$MAN/$page
	st=0
	if [ ! -f "$p" ]; then
		echo "missing $p" | say
		st=1
	elif [ $have_groff = 0 ]; then
		echo "groff not found (apt-get install groff-base; scripts/install-deps.sh)" | say
		st=1
	else
		groff -ww -z -t -man "$p" > "$TMP/out" 2> "$TMP/err" || st=1
		if [ -s "$TMP/err" ] || [ -s "$TMP/out" ]; then
			echo "groff -ww -z -t -man $page:" | say
			cat "$TMP/out" "$TMP/err" | say
			st=1
		fi
		if command -v man > /dev/null; then
			LC_ALL=C.UTF-8 MANOPT='' MANWIDTH=80 man -l -Tutf8 "$p" > /dev/null 2> "$TMP/err" || {
				echo "man -l -Tutf8 $page failed" | say
				st=1
			}
			if [ -s "$TMP/err" ]; then
				echo "man -l -Tutf8 $page:" | say
				say < "$TMP/err"
				st=1
			fi
		fi
	fi
	result "renders_${page/./_}" $st
done

T4=$MAN/tracebuf.4
T1=$MAN/tracebufctl.1
L3=$MAN/libtracebuf.3

# ---------------------------------------------------------------------------
# 4: tracebuf.4 names every TRACEBUF_IOC_*; each ioctl has its .SS, which
# names the ioctl's argument struct

st=0
names=$(defined TRACEBUF_IOC_)
[ -n "$names" ] || { echo "no TRACEBUF_IOC_* in $UAPI" | say; st=1; }
for name in $names; do
	grep -qw -- "$name" "$T4" 2> /dev/null ||
		{ echo "$name is not in tracebuf.4" | say; st=1; }
done
# NAME STRUCT for every ioctl command (STRUCT "-" for _IO())
awk '/^#define[ \t]+TRACEBUF_IOC_/ {
	name = $2; line = $0
	while (line ~ /\\$/ && (getline nxt) > 0)
		line = line " " nxt
	if (line !~ /_IO(R|W|WR)?\(/)
		next
	if (match(line, /struct [a-z0-9_]+/))
		print name, substr(line, RSTART + 7, RLENGTH - 7)
	else
		print name, "-"
}' "$UAPI" > "$TMP/ioctls"
[ -s "$TMP/ioctls" ] || { echo "no ioctl command in $UAPI" | say; st=1; }
while read -r name struct; do
	if ! grep -qx -- ".SS $name" "$T4" 2> /dev/null; then
		echo "tracebuf.4 has no '.SS $name'" | say
		st=1
	elif [ "$struct" != - ] && ! section "$T4" ".SS $name" | grep -qw -- "$struct"; then
		echo "tracebuf.4: '.SS $name' does not name struct $struct" | say
		st=1
	fi
done < "$TMP/ioctls"
result tracebuf4_ioctls $st

# ---------------------------------------------------------------------------
# 5: every TRACEBUF_PKT_*, TRACEBUF_MSG_* and TRACEBUF_STATE_*, with its value

st=0
nconsts=0
for name in $(defined TRACEBUF_PKT_); do
	nconsts=$((nconsts + 1))
	v=$(define_value "$name")
	has_line "$T4" ".BR $name \" ($v)\"" ||
		{ echo "tracebuf.4 lacks '.BR $name \" ($v)\"'" | say; st=1; }
done
for name in $(defined TRACEBUF_MSG_); do
	nconsts=$((nconsts + 1))
	v=$(define_value "$name")
	has_line "$T4" "$name$TAB$v$TAB" ||
		{ echo "tracebuf.4 lacks a row '$name<TAB>$v<TAB>...'" | say; st=1; }
done
for name in $(defined TRACEBUF_STATE_); do
	nconsts=$((nconsts + 1))
	v=$(define_value "$name")
	grep -qxF -- "$name$TAB$v" "$T4" 2> /dev/null ||
		{ echo "tracebuf.4 lacks a row '$name<TAB>$v'" | say; st=1; }
done
[ $nconsts -gt 0 ] || { echo "no TRACEBUF_PKT_*, _MSG_*, _STATE_* in $UAPI" | say; st=1; }
result tracebuf4_packets_messages_states $st

# ---------------------------------------------------------------------------
# 6: every limit, with its value, as a row of the LIMITS table

st=0
section "$T4" ".SH LIMITS" > "$TMP/limits" 2> /dev/null
for name in "${LIMITS[@]}"; do
	v=$(define_value "$name")
	if [ -z "$v" ]; then
		echo "$name is not defined in $UAPI" | say
		st=1
	elif ! [[ $v =~ ^([0-9]+|0x[0-9a-fA-F]+)$ ]]; then
		echo "$name is '$v' in $UAPI, not a plain number: update the test and the page" | say
		st=1
	elif ! has_line "$TMP/limits" "$name$TAB$v$TAB"; then
		echo "tracebuf.4 LIMITS lacks a row '$name<TAB>$v<TAB>...'" | say
		st=1
	fi
done
result tracebuf4_limits $st

# ---------------------------------------------------------------------------
# 7, 8: tracebufctl.1 against the program's --help

built=1
if [ ! -x "$TBCTL" ]; then
	built=0
elif ! "$TBCTL" --help > "$TMP/help" 2>&1; then
	echo "'$TBCTL --help' failed" | say
	say < "$TMP/help"
	built=0
fi
cmds=""
if [ $built = 1 ]; then
	cmds=$(awk '/^Commands/ { on = 1; next } on && /^$/ { exit } on { print $1 }' "$TMP/help")
fi

st=0
if [ $built = 0 ]; then
	echo "not built: $TBCTL (make -C userlib/ctl)" | say
	st=1
elif [ -z "$cmds" ]; then
	echo "'tracebufctl --help' lists no command" | say
	st=1
else
	section "$T1" ".SH COMMANDS" 2> /dev/null | sed -n 's/^\.SS //p' > "$TMP/sections"
	for c in $cmds; do
		grep -qxF -- "$c" "$TMP/sections" ||
			{ echo "tracebufctl.1 has no '.SS $c' under COMMANDS" | say; st=1; }
		grep -qx -- ".B $c" "$T1" ||
			{ echo "tracebufctl.1 never writes the command as '.B $c'" | say; st=1; }
	done
	while read -r s; do
		grep -qxF -- "$s" <<< "$cmds" ||
			{ echo "tracebufctl.1 describes '$s', which 'tracebufctl --help' does not list" | say; st=1; }
	done < "$TMP/sections"
fi
result tracebufctl1_commands $st

# check_opts HELPFILE SECTIONFILE WHAT: every option of HELPFILE is in
# SECTIONFILE: "-x, --word" as \-x, \-\-word, and every other --word as
# \-\-word; 0 if all are
check_opts() {
	local st=0 o pairs longs

	pairs=$(sed -nE 's/^ +(-[A-Za-z]), (--[a-z][a-z0-9-]*).*/\1, \2/p' "$1" | sort -u)
	longs=$(grep -oE -- '--[a-z][a-z0-9-]*' "$1" | sort -u)
	[ -n "$longs" ] || { echo "$3: no option in its --help" | say; st=1; }
	while read -r o; do
		[ -n "$o" ] || continue
		grep -qE -- "$(opt_re "$o")" "$2" ||
			{ echo "tracebufctl.1 ($3) lacks '${o//-/\\-}'" | say; st=1; }
		longs=$(grep -vxF -- "${o#*, }" <<< "$longs")
	done <<< "$pairs"
	for o in $longs; do
		grep -qE -- "$(opt_re "$o")" "$2" ||
			{ echo "tracebufctl.1 ($3) lacks '${o//-/\\-}'" | say; st=1; }
	done
	return $st
}

st=0
if [ $built = 0 ]; then
	echo "not built: $TBCTL (make -C userlib/ctl)" | say
	st=1
else
	section "$T1" ".SH OPTIONS" > "$TMP/global" 2> /dev/null
	check_opts "$TMP/help" "$TMP/global" "OPTIONS" || st=1
	for c in $cmds; do
		if ! "$TBCTL" "$c" --help > "$TMP/chelp" 2>&1; then
			echo "'tracebufctl $c --help' failed" | say
			st=1
			continue
		fi
		if cmp -s "$TMP/chelp" "$TMP/help"; then
			check_opts "$TMP/chelp" "$TMP/global" "$c, in OPTIONS" || st=1
		else
			section "$T1" ".SS $c" > "$TMP/cmd" 2> /dev/null
			check_opts "$TMP/chelp" "$TMP/cmd" ".SS $c" || st=1
		fi
	done
fi
result tracebufctl1_options $st

# ---------------------------------------------------------------------------
# 9: the module parameters of tracebuf.4 are those of the module

st=0
sed -n 's/.*module_param_\(named\|cb\)([[:space:]]*\([A-Za-z0-9_]*\)[[:space:]]*,.*/\2/p' \
	"$MODDIR"/*.c 2> /dev/null | sort -u > "$TMP/params"
section "$T4" ".SH MODULE PARAMETERS" 2> /dev/null |
	awk 'prev == ".TP" && $1 == ".B" && NF == 2 { print $2 } { prev = $0 }' |
	sort > "$TMP/documented"
if [ ! -s "$TMP/params" ]; then
	echo "no module_param_named() or _cb() in $MODDIR/*.c" | say
	st=1
elif ! diff -u "$TMP/params" "$TMP/documented" > "$TMP/diff"; then
	echo "module_param_named() and _cb() (-) against tracebuf.4 MODULE PARAMETERS (+):" | say
	tail -n +3 "$TMP/diff" | grep '^[-+]' | say
	st=1
elif [ "$(sort -u "$TMP/documented" | wc -l)" != "$(wc -l < "$TMP/documented")" ]; then
	echo "tracebuf.4 MODULE PARAMETERS has an entry twice" | say
	st=1
fi
result tracebuf4_module_parameters $st

# ---------------------------------------------------------------------------
# 10: libtracebuf.3 names every function of the provider and manager headers

st=0
strip_comments "$INCDIR/tracebuf_provider.h" "$INCDIR/tracebuf_manager.h" 2> /dev/null |
	grep -v '^[[:space:]]*#' |
	grep -oE '(^|[^A-Za-z0-9_*])tracebuf_[a-z0-9_]+[[:space:]]*\(' |
	sed -E 's/^[^a-z]*//; s/[[:space:]]*\($//' | sort -u > "$TMP/functions"
section "$L3" ".SH SYNOPSIS" > "$TMP/synopsis" 2> /dev/null
if [ ! -s "$TMP/functions" ]; then
	echo "no function found in $INCDIR/tracebuf_{provider,manager}.h" | say
	st=1
fi
while read -r f; do
	grep -qw -- "$f" "$TMP/synopsis" ||
		{ echo "libtracebuf.3 SYNOPSIS lacks $f()" | say; st=1; }
done < "$TMP/functions"
echo "$(wc -l < "$TMP/functions") functions declared" | say
result libtracebuf3_functions $st

ktap_totals
