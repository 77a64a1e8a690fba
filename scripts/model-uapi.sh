#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The one home of the provider state machine is the comment at the top of
# uapi/linux/tracebuf.h: its state table ("request / legal in / effect"),
# its refusals ("Refusals (nothing changes)") and the TRACEBUF_STATE_*
# values.  This script turns them into a Promela include for the model
# (scripts/model/tracebuf.pml), so that the model has no state table of
# its own: it asserts that every answer of its kernel matches these
# macros, in every state it reaches.
#
#   model-uapi.sh [HEADER]   the include, on standard output
#   model-uapi.sh --requests [HEADER]
#                            the table's requests, one a line (the names
#                            the model's UAPI_CHECK() uses)
#   model-uapi.sh --c [HEADER]
#                            the same table as a C header, for the
#                            state-directed fuzzer (selftests/tracebuf/
#                            fuzz_states.c): the build generates it, it is
#                            never committed
#
# Per request of the table (e.g. "mgr START" is mgr_START, "pkt STOPPED"
# pkt_STOPPED, "provider closes its file" provider_closes_its_file):
#   UAPI_LEGAL_<req>(s)  state s is in its "legal in" column
#   UAPI_NEXT_<req>(s)   the state after it succeeds in s: the "-> STATE"
#                        of its effect, or s itself for a row without one
#   UAPI_ERR_<req>(s)    the refusal of it in a state it is not legal in
#                        (the "REQ in STATES ERRNO" rows), or E_NONE
# The C header has one struct tb_uapi_row per request, tb_uapi_table[]
# indexed by enum tb_uapi_req (TB_UAPI_<req>): the same masks (bit s for
# state s), the next state and the errno of each, which sides a success
# tells ("provider told", "gets MANAGER_GONE"; "manager told"), and the
# refusal of a request that answers something outstanding when nothing
# outstanding matches (the "REQ without ... ERRNO" rows), and of one
# legal in streaming mode only ("REQ outside streaming mode ERRNO"); and
# TB_UAPI_ERR_NOT_OWNER and TB_UAPI_ERR_UNSEEN, the refusals of a
# manager's request on a provider another manager owns, and on one it
# cannot see.
# A header whose table cannot be read this way fails (status 2).
set -euo pipefail

. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

MODE=include
case ${1:-} in
--requests) MODE=requests; shift ;;
--c) MODE=c; shift ;;
esac
HDR=${1:-$TB_ROOT/uapi/linux/tracebuf.h}
[ -r "$HDR" ] || tb_die "cannot read $HDR"

awk -v mode="$MODE" -v hdr="${HDR#"$TB_ROOT"/}" '
function die(msg) { print "model-uapi.sh: error: " hdr ": " msg > "/dev/stderr"; bad = 1; exit 2 }
# mawk has no bit operations: masks of at most 16 bits, by hand
function bit(m, b) { return int(m / 2 ^ b) % 2 }
function or(a, b,    i, r) { r = 0; for (i = 0; i < 16; i++) if (bit(a, i) || bit(b, i)) r += 2 ^ i; return r }
function and(a, b,    i, r) { r = 0; for (i = 0; i < 16; i++) if (bit(a, i) && bit(b, i)) r += 2 ^ i; return r }
function compl(a,    i, r) { r = 0; for (i = 0; i < 16; i++) if (!bit(a, i)) r += 2 ^ i; return r }
function lshift(a, b) { return a * 2 ^ b }
function trim(s) { sub(/^[ \t]+/, "", s); sub(/[ \t]+$/, "", s); return s }
# the bit mask of the states named in s: NAME, NAME..NAME, "any"
function states_of(s,    m, n, i, w, a, b, k) {
	m = 0
	if (s ~ /(^|[^A-Za-z])any([^A-Za-z]|$)/)
		return all
	n = split(s, w, /[^A-Z_.]+/)
	for (i = 1; i <= n; i++) {
		if (w[i] ~ /^[A-Z_]+\.\.[A-Z_]+$/) {
			split(w[i], k, /\.\./)
			if (!(k[1] in val) || !(k[2] in val))
				continue
			for (a = val[k[1]]; a <= val[k[2]]; a++)
				m = or(m, lshift(1, a))
		} else if (w[i] in val) {
			m = or(m, lshift(1, val[w[i]]))
		}
	}
	return m
}
function key_of(s) {
	sub(/\(.*\)/, "", s)
	s = trim(s)
	gsub(/[^A-Za-z0-9]+/, "_", s)
	return s
}
# the table key for a refusal name: START -> mgr_START, STARTED -> pkt_STARTED
function key_for(name,    k) {
	gsub(/ /, "_", name)
	for (k in legal)
		if (substr(k, index(k, "_") + 1) == name)
			return k
	return ""
}

# first pass: the state values (defined after the comment that uses them)
NR == FNR {
	if ($0 ~ /^#define TRACEBUF_STATE_[A-Z_]+[ \t]+[0-9]+/) {
		name = $2; sub(/^TRACEBUF_STATE_/, "", name)
		val[name] = $3 + 0; order[++nstates] = name
		all = or(all, lshift(1, $3 + 0))
	}
	next
}

# the state table: fixed columns, as its dashes line draws them
/^ \*   request +legal in +effect$/ { intable = 1; next }
intable && /^ \*   -+  -+  -+$/ {
	c1 = index($0, "-"); rest = substr($0, c1)
	w1 = index(rest, "  -") - 1; c2 = c1 + w1 + 2
	rest = substr($0, c2); w2 = index(rest, "  -") - 1
	next
}
intable && /^ \*$/ { intable = 0; table_done = 1; next }
intable {
	f1 = trim(substr($0, c1, w1))
	# a word may run past its column ("INITIALIZED..STOPPED provider")
	e2 = w2
	while (substr($0, c2 + e2, 1) ~ /[^ ]/)
		e2++
	f2 = trim(substr($0, c2, e2)); f3 = trim(substr($0, c2 + e2))
	if (f1 != "") {
		key = key_of(f1); keys[++nkeys] = key; sub_n[key] = 0
		newsub = 1
	} else {
		# a continuation that names states and has an effect of its
		# own is another row of the same request
		newsub = (states_of(f2) != 0 && f3 != "" && f2 !~ /^any$/)
	}
	if (key == "")
		die("state table row before any request: " $0)
	if (newsub) {
		sub_n[key]++
		sub_mask[key, sub_n[key]] = 0
		sub_eff[key, sub_n[key]] = ""
	}
	n = sub_n[key]
	sub_mask[key, n] = or(sub_mask[key, n], states_of(f2))
	sub_eff[key, n] = sub_eff[key, n] " " f3
	legal[key] = or(legal[key], states_of(f2))
	next
}

# the refusals: each ends with its errno
/^ \* Refusals/ { inref = 1; next }
inref && /^ \*$/ { inref = 0; next }
inref {
	line = trim(substr($0, 3))
	acc = acc == "" ? line : acc " " line
	if (acc !~ / E[A-Z0-9]+$/)
		next
	err = acc; sub(/.* /, "", err)
	text = acc; acc = ""
	sub(/ +E[A-Z0-9]+$/, "", text)
	# a manager request on a provider another manager owns, or gone
	if (text ~ /owned by another manager/) {
		not_owner = err
		next
	}
	if (text ~ /provider the manager cannot see/) {
		unseen = err
		next
	}
	# legal in streaming mode only
	if (text ~ / outside streaming mode$/) {
		nn = split(substr(text, 1, length(text) - length(" outside streaming mode")), names, "/")
		for (i = 1; i <= nn; i++) {
			k = key_for(names[i])
			if (k != "")
				unstreamed[k] = err
		}
		next
	}
	# an answer without the outstanding thing it answers
	if (match(text, / without /)) {
		nn = split(substr(text, 1, RSTART - 1), names, "/")
		for (i = 1; i <= nn; i++) {
			k = key_for(names[i])
			if (k != "")
				unmatched[k] = err
		}
		next
	}
	if (match(text, / (in|outside|not) /) == 0)
		next
	name = substr(text, 1, RSTART - 1)
	how = substr(text, RSTART + 1, RLENGTH - 2)
	what = substr(text, RSTART + RLENGTH)
	sub(/,? or .*/, "", what)
	nn = split(name, names, "/")
	for (i = 1; i <= nn; i++) {
		k = key_for(names[i])
		if (k == "")
			continue
		if (what ~ /^the wrong state/)
			m = and(all, compl(legal[k]))
		else if (what ~ /^another state than /)
			m = and(all, compl(states_of(what)))
		else if ((how == "outside" || how == "not") && states_of(what))
			m = and(all, compl(states_of(what)))
		else if (how == "outside" || how == "not")
			m = 0
		else
			m = states_of(what)
		if (m == 0)
			continue
		nerr[k]++
		err_mask[k, nerr[k]] = m
		err_name[k, nerr[k]] = err
	}
	next
}

# the state an effect goes to: its "-> STATE", or 0 (it stays)
function effect_to(k, eff,    to) {
	if (!match(eff, /-> *[A-Z_]+/))
		return 0
	to = substr(eff, RSTART, RLENGTH); sub(/-> */, "", to)
	if (!(to in val))
		die(k ": effect goes to an unknown state " to)
	return val[to]
}
function c_header(    i, j, k, eff, tells) {
	print "/* Generated from " hdr " by scripts/model-uapi.sh --c: do not edit. */"
	print "#ifndef TB_UAPI_TABLE_H\n#define TB_UAPI_TABLE_H\n"
	print "#include <errno.h>\n"
	printf "#define TB_UAPI_STATE_MIN\t%d\n#define TB_UAPI_STATE_MAX\t%d\n", val[order[1]], val[order[nstates]]
	print "#define TB_UAPI_RULES_MAX\t4"
	print "#define TB_UAPI_TELLS_PROVIDER\t1\n#define TB_UAPI_TELLS_MANAGER\t2"
	printf "/* a manager request on a provider another manager owns */\n"
	printf "#define TB_UAPI_ERR_NOT_OWNER\t%s\n", not_owner == "" ? "0" : not_owner
	printf "/* a manager request on a provider it cannot see (one gone) */\n"
	printf "#define TB_UAPI_ERR_UNSEEN\t%s\n\n", unseen == "" ? "0" : unseen
	printf "static const char *const tb_uapi_state_names[TB_UAPI_STATE_MAX + 1] = {\n"
	for (i = 1; i <= nstates; i++)
		printf "\t[%d] = \"%s\",\n", val[order[i]], order[i]
	print "};\n\nenum tb_uapi_req {"
	for (i = 1; i <= nkeys; i++)
		printf "\tTB_UAPI_%s,\n", keys[i]
	print "\tTB_UAPI_NREQ\n};\n"
	print "/* masks: bit s for state s; next 0: the state stays */"
	print "struct tb_uapi_row {"
	print "\tconst char *name;"
	print "\tunsigned int legal;"
	print "\tint unmatched_err;\t/* nothing outstanding matches: refused so */"
	print "\tint unstreamed_err;\t/* not in streaming mode: refused so */"
	print "\tstruct { unsigned int states; int next; unsigned int tells; } ok[TB_UAPI_RULES_MAX];"
	print "\tstruct { unsigned int states; int err; } refused[TB_UAPI_RULES_MAX];"
	print "};\n"
	print "static const struct tb_uapi_row tb_uapi_table[TB_UAPI_NREQ] = {"
	for (i = 1; i <= nkeys; i++) {
		k = keys[i]
		if (sub_n[k] > 4 || nerr[k] > 4)
			die(k ": more than 4 effects or refusals")
		printf "\t[TB_UAPI_%s] = {\n\t\t\"%s\", %#x, %s, %s,\n\t\t{", k, k, legal[k],
		       k in unmatched ? unmatched[k] : "0", k in unstreamed ? unstreamed[k] : "0"
		for (j = 1; j <= sub_n[k]; j++) {
			eff = sub_eff[k, j]
			tells = (eff ~ /provider told|gets MANAGER_GONE/ ? 1 : 0) + (eff ~ /manager told/ ? 2 : 0)
			printf " { %#x, %d, %d },", sub_mask[k, j], effect_to(k, eff), tells
		}
		printf " },\n\t\t{"
		for (j = 1; j <= nerr[k]; j++)
			printf " { %#x, %s },", err_mask[k, j], err_name[k, j]
		printf "%s },\n\t},\n", nerr[k] ? "" : " { 0 }"
	}
	print "};\n\n#endif"
}

END {
	if (bad)
		exit 2
	if (nstates < 2)
		die("no TRACEBUF_STATE_* values")
	if (!table_done || nkeys < 2)
		die("no state table (request / legal in / effect)")
	if (mode == "requests") {
		for (i = 1; i <= nkeys; i++)
			print keys[i]
		exit 0
	}
	# legal by what is outstanding, not by the state: in any
	for (i = 1; i <= nkeys; i++) {
		k = keys[i]
		if (legal[k] != 0)
			continue
		legal[k] = all
		for (j = 1; j <= sub_n[k]; j++)
			sub_mask[k, j] = all
	}
	if (mode == "c") {
		c_header()
		exit 0
	}
	print "/* Generated from " hdr " by scripts/model-uapi.sh: do not edit. */"
	for (i = 1; i <= nstates; i++)
		printf "#define %s\t%d\n", order[i], val[order[i]]
	printf "#define NSTATES\t%d\n", nstates
	printf "#define STATE_MIN\t%d\n#define STATE_MAX\t%d\n", val[order[1]], val[order[nstates]]
	print "#define UAPI_IN(s, mask)\t(((1 << (s)) & (mask)) != 0)"
	for (i = 1; i <= nkeys; i++) {
		k = keys[i]
		printf "\n/* %s */\n", k
		printf "#define UAPI_LEGAL_%s(s)\tUAPI_IN(s, %d)\n", k, legal[k]
		nx = ""
		for (j = 1; j <= sub_n[k]; j++) {
			eff = sub_eff[k, j]
			if (match(eff, /-> *[A-Z_]+/)) {
				to = substr(eff, RSTART, RLENGTH); sub(/-> */, "", to)
				if (!(to in val))
					die(k ": effect goes to an unknown state " to)
			} else {
				to = "(s)"
			}
			nx = nx sprintf("(UAPI_IN(s, %d) -> %s : ", sub_mask[k, j], to)
		}
		cl = ""
		for (j = 1; j <= sub_n[k]; j++)
			cl = cl ")"
		printf "#define UAPI_NEXT_%s(s)\t%s0%s\n", k, nx, cl
		nx = ""; cl = ""
		for (j = 1; j <= nerr[k]; j++) {
			nx = nx sprintf("(UAPI_IN(s, %d) -> %s : ", err_mask[k, j], err_name[k, j])
			cl = cl ")"
		}
		printf "#define UAPI_ERR_%s(s)\t%sE_NONE%s\n", k, nx, cl
	}
}
' "$HDR" "$HDR"
