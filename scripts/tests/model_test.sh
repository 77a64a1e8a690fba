#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Description: the model of the provider protocol takes its state table
# from the uapi header (scripts/model-uapi.sh), and a change of the table
# reaches the model: the table of uapi/linux/tracebuf.h reads into its 16
# requests with the right states, errnos and effects; a header whose
# START goes elsewhere makes a small run of the model (spin, a few
# seconds) end on a UAPI_CHECK, where the real header's run holds; a
# header without the table fails the generator; a request added to the
# table is listed, for "make model" to find it unanswered.  The C table
# of the state-directed fuzzer (--c) compiles and says, for every state
# and request, what the model's macros say, and has the refusals of an
# unmatched answer, of SAVE_BUFFER outside streaming mode, of another
# manager's provider and of one the manager cannot see; the changed
# header changes its START row.
# KTAP output.
set -u

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
GEN=$ROOT/scripts/model-uapi.sh
HDR=$ROOT/uapi/linux/tracebuf.h

# shellcheck source=../../userlib/tests/ktap.sh
. "$ROOT/userlib/tests/ktap.sh"
echo "TAP version 13"
echo "1..8"

# the real table
"$GEN" > "$TMP/uapi.pml" 2> "$TMP/err"
rc=$?
nreq=$("$GEN" --requests | wc -l)
if [ $rc = 0 ] && [ "$nreq" = 16 ] &&
   grep -q '^#define UAPI_NEXT_mgr_START(s).*-> STARTING : 0)$' "$TMP/uapi.pml" &&
   grep -q '^#define UAPI_ERR_mgr_START(s).*EALREADY.*EBUSY.*EINVAL' "$TMP/uapi.pml" &&
   grep -q '^#define UAPI_NEXT_pkt_STOPPED(s).*-> STOPPED : .*-> (s) : 0))$' "$TMP/uapi.pml" &&
   grep -q '^#define STARTED	4$' "$TMP/uapi.pml"; then
	result table_reads 0
else
	{ echo "exit $rc, $nreq requests"; cat "$TMP/err"; head -n 30 "$TMP/uapi.pml"; } | say
	result table_reads 1
fi

# model RESULT INCLUDE: a small run of the model with INCLUDE as uapi.pml
model() {
	local dir=$TMP/$1
	mkdir -p "$dir"
	cp "$ROOT/scripts/model/tracebuf.pml" "$dir/"
	cp "$2" "$dir/uapi.pml"
	(cd "$dir" && spin -a -DMODE=3 -DMGR_OPS=3 -DFILLS=1 -DMGR_LIVES=1 tracebuf.pml > spin.log 2>&1 &&
	 gcc -O0 -w -DSAFETY -o pan pan.c && ./pan > pan.log 2>&1 &&
	 spin -t -p -DMODE=3 -DMGR_OPS=3 -DFILLS=1 -DMGR_LIVES=1 tracebuf.pml > replay.log 2>&1)
	cat "$dir/pan.log" "$dir/spin.log" > "$TMP/$1.log" 2> /dev/null
	cat "$dir/replay.log" >> "$TMP/$1.log" 2> /dev/null
}

if ! command -v spin > /dev/null; then
	echo "# spin not found (scripts/install-deps.sh)"
	for t in real_table_holds changed_start_fails; do
		result $t 1
	done
else
	model real "$TMP/uapi.pml"
	if grep -q 'errors: 0$' "$TMP/real.log" && ! grep -q 'Search not completed' "$TMP/real.log"; then
		result real_table_holds 0
	else
		grep -E 'error|violated' "$TMP/real.log" | head -n 5 | say
		result real_table_holds 1
	fi
	sed 's/provider told,-> STARTING/provider told,-> STARTED/' "$HDR" > "$TMP/changed.h"
	"$GEN" "$TMP/changed.h" > "$TMP/changed.pml"
	model changed "$TMP/changed.pml"
	line=$(sed -n 's/^spin: tracebuf.pml:\([0-9]*\), Error: assertion violated.*/\1/p' \
		"$TMP/changed.log" | head -n 1)
	if ! cmp -s "$TMP/uapi.pml" "$TMP/changed.pml" && [ -n "$line" ] &&
	   sed -n "${line}p" "$ROOT/scripts/model/tracebuf.pml" | grep -q 'UAPI_CHECK(mgr_START'; then
		result changed_start_fails 0
	else
		{ echo "violated line: ${line:-none}"; grep -E 'errors|violated' "$TMP/changed.log"; } | say
		result changed_start_fails 1
	fi
fi

# no table: the generator fails, and says so
sed '/^ \*   request  /,/^ \*$/d' "$HDR" > "$TMP/notable.h"
"$GEN" "$TMP/notable.h" > /dev/null 2> "$TMP/err"
rc=$?
if [ $rc = 2 ] && grep -q 'no state table' "$TMP/err"; then
	result no_table_fails 0
else
	{ echo "exit $rc"; cat "$TMP/err"; } | say
	result no_table_fails 1
fi

# a new request of the table is listed (make model finds it unanswered)
sed 's/^\( \*   mgr TERMINATE  .*\)$/ *   mgr FREEZE                 STARTED              provider told\n\1/' \
	"$HDR" > "$TMP/added.h"
if "$GEN" --requests "$TMP/added.h" | grep -qx mgr_FREEZE &&
   ! grep -q 'UAPI_CHECK(mgr_FREEZE' "$ROOT/scripts/model/tracebuf.pml" &&
   "$GEN" "$TMP/added.h" | grep -q '^#define UAPI_LEGAL_mgr_FREEZE(s)	UAPI_IN(s, 16)$'; then
	result added_request_listed 0
else
	"$GEN" --requests "$TMP/added.h" | say
	result added_request_listed 1
fi

# the states are the header's
sed 's/^#define TRACEBUF_STATE_STARTED		4$/#define TRACEBUF_STATE_STARTED		9/' \
	"$HDR" > "$TMP/renum.h"
if "$GEN" "$TMP/renum.h" | grep -q '^#define STARTED	9$'; then
	result states_from_header 0
else
	result states_from_header 1
fi

# the C table (--c) against the model's macros, state by state: a C
# program holding both (the macros' "c -> a : b" as "c ? a : b")
ctable() {
	local hdr=$1 dir=$2
	mkdir -p "$dir"
	"$GEN" --c "$hdr" > "$dir/tb_uapi_table.h" &&
	"$GEN" "$hdr" | sed 's/ -> / ? /g' > "$dir/uapi_pml.h" &&
	{
		printf '#include <stdio.h>\n#include "tb_uapi_table.h"\n#include "uapi_pml.h"\n'
		printf '#define E_NONE 0\n'
		printf 'static int bad;\n'
		printf 'static void one(int r, int s, int legal, int next, int err)\n{\n'
		printf '\tconst struct tb_uapi_row *w = &tb_uapi_table[r];\n'
		printf '\tint l = (w->legal >> s) & 1, n = 0, e = 0, i;\n'
		printf '\tfor (i = TB_UAPI_RULES_MAX - 1; i >= 0; i--)\n'
		printf '\t\tif ((w->ok[i].states >> s) & 1)\n\t\t\tn = w->ok[i].next ? w->ok[i].next : s;\n'
		printf '\tfor (i = TB_UAPI_RULES_MAX - 1; i >= 0; i--)\n'
		printf '\t\tif ((w->refused[i].states >> s) & 1)\n\t\t\te = w->refused[i].err;\n'
		printf '\tif (l != legal || (l && n != next) || (!l && e != err)) {\n'
		printf '\t\tprintf("%%s in %%d: C %%d %%d %%d, model %%d %%d %%d\\n", w->name, s, l, n, e, legal, next, err);\n'
		printf '\t\tbad++;\n\t}\n}\n'
		printf '#define ONE(req) one(TB_UAPI_##req, s, UAPI_LEGAL_##req(s), UAPI_NEXT_##req(s), UAPI_ERR_##req(s))\n'
		printf 'int main(void)\n{\n\tfor (int s = STATE_MIN; s <= STATE_MAX; s++) {\n'
		"$GEN" --requests "$hdr" | sed 's/.*/\t\tONE(&);/'
		printf '\t}\n\tprintf("%%d requests, %%d disagree\\n", TB_UAPI_NREQ, bad);\n\treturn bad != 0;\n}\n'
	} > "$dir/t.c" &&
	gcc -Wall -Wextra -Werror -o "$dir/t" "$dir/t.c" > "$dir/log" 2>&1 &&
	"$dir/t" >> "$dir/log" 2>&1
}

if ctable "$HDR" "$TMP/c" && grep -qx '16 requests, 0 disagree' "$TMP/c/log" &&
   grep -A2 '\[TB_UAPI_mgr_START\]' "$TMP/c/tb_uapi_table.h" | grep -q '{ 0x44, 3, 1 }' &&
   grep -A1 '\[TB_UAPI_mgr_BUFFER_SAVED\]' "$TMP/c/tb_uapi_table.h" | grep -q ', EINVAL, 0,$' &&
   grep -A1 '\[TB_UAPI_pkt_SAVE_BUFFER\]' "$TMP/c/tb_uapi_table.h" | grep -q ', 0, EPROTO,$' &&
   grep -qx '#define TB_UAPI_ERR_NOT_OWNER	EPERM' "$TMP/c/tb_uapi_table.h" &&
   grep -qx '#define TB_UAPI_ERR_UNSEEN	ESRCH' "$TMP/c/tb_uapi_table.h"; then
	result c_table_as_model 0
else
	say < "$TMP/c/log"
	result c_table_as_model 1
fi

sed 's/provider told,-> STARTING/provider told,-> STARTED/' "$HDR" > "$TMP/changed.h"
if ctable "$TMP/changed.h" "$TMP/cc" && grep -A2 '\[TB_UAPI_mgr_START\]' "$TMP/cc/tb_uapi_table.h" |
   grep -q '{ 0x44, 4, 1 }' && ! cmp -s "$TMP/c/tb_uapi_table.h" "$TMP/cc/tb_uapi_table.h"; then
	result c_table_changes 0
else
	say < "$TMP/cc/log"
	result c_table_changes 1
fi

ktap_totals
