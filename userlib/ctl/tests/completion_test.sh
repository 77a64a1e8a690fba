#!/bin/bash
# SPDX-License-Identifier: MIT
#
# The bash completion (tracebufctl.bash): commands, prefixes, options,
# modes, sort keys, provider names and categories from the program being completed
# (TBCTL_FAKE, whose providers are "app" and "db" and whose categories
# are "net" and "io"), sizes, files, the command line after "record --",
# and every option of every command's --help offered.  Run plainly and,
# when the bash-completion package is there, with it (_init_completion).
# KTAP on stdout.
#
#   TBCTL_FAKE=build/tests/tracebufctl-fake tests/completion_test.sh
set -u

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
TOP=$(cd "$HERE/.." && pwd)
TBCTL=${TBCTL_FAKE:-$TOP/build/tests/tracebufctl-fake}
# shellcheck source=lib.sh
. "$HERE/lib.sh"
BASH_COMPLETION=/usr/share/bash-completion/bash_completion

# complete WORD...: what completing the last WORD (the one the cursor is
# in) offers, sorted, one line, in a fresh bash that sourced the
# completion (and bash-completion itself with WITH_BC=1), in $TMP/w.
complete() {
	(cd "$TMP/w" && WITH_BC=${WITH_BC:-0} bash --norc --noprofile -c '
		[ "$WITH_BC" = 0 ] || . "$1"
		. "$2"
		shift 2
		COMP_WORDS=("$@")
		COMP_CWORD=$(($# - 1))
		COMP_LINE="$*"
		COMP_POINT=${#COMP_LINE}
		_tracebufctl tracebufctl "${COMP_WORDS[COMP_CWORD]}" \
			"${COMP_WORDS[COMP_CWORD - 1]}"
		printf "%s\n" "${COMPREPLY[@]}" | LC_ALL=C sort -u | tr "\n" " " | sed "s/ $//"
	' complete "$BASH_COMPLETION" "$HERE/../tracebufctl.bash" "$TBCTL" "$@" 2>/dev/null)
}

# expect WANT WORD...: complete WORD... offers exactly WANT.
expect() {
	local want=$1 got
	shift
	got=$(complete "$@")
	[ "$got" = "$want" ] || fail "'$*': offered '$got', expected '$want'"
}

test_commands_and_prefixes() {
	expect "alert categories convert dump help list monitor record report snapshot stats status stop" \
		"" || return 1
	expect "snapshot" help sn || return 1
	expect "record report" re || return 1
	expect "categories convert" c || return 1
	expect "stats status stop" help st || return 1
	expect "stats status" help stat || return 1
	expect "--device --help --json --version -D -V -h -j" - || return 1
	# a prefix selects the command; an ambiguous one offers nothing
	expect "circular oneshot streaming" rec -m "" || return 1
	expect "" c - || return 1
}

test_modes_providers_categories() {
	expect "streaming" record -m s || return 1
	expect "--rotate" record -m streaming --max-size 1M --ro || return 1
	expect "max mean" report -s m || return 1
	expect "count max mean name total" rep --sort "" || return 1
	expect "app db" record -p "" || return 1
	expect "net" record -c n || return 1
	expect "app db" stats "" || return 1
	expect "db" -j stats d || return 1
}

test_buffer_sizes() {
	expect "app:" record -b a || return 1
	expect "app:16M app:1M" record -b app:1 || return 1
	expect "16M 1M" record -b 1 || return 1
}

test_files() {
	touch "$TMP/w/a.fxt" "$TMP/w/b.json" "$TMP/w/c.fxt.gz" "$TMP/w/d.fxt.zst" "$TMP/w/e.gz"
	mkdir "$TMP/w/dir"
	expect "a.fxt c.fxt.gz d.fxt.zst dir" dump "" || return 1
	expect "a.fxt c.fxt.gz d.fxt.zst dir" convert "" || return 1
	expect "a.fxt c.fxt.gz d.fxt.zst dir" report "" || return 1
	expect "a.fxt c.fxt.gz d.fxt.zst dir" -j report -s max "" || return 1
	expect "a.fxt b.json c.fxt.gz d.fxt.zst dir e.gz" convert a.fxt -o "" || return 1
	expect "a.fxt b.json c.fxt.gz d.fxt.zst dir e.gz" record -o "" || return 1
	expect "a.fxt b.json c.fxt.gz d.fxt.zst dir e.gz" record -m streaming --config "" || return 1
	expect "--config" record --con
}

test_command_after_dashdash() {
	expect "bashbug" record -m streaming -- bashb || return 1
	# not an option of record's any more
	expect "" record -- --mo
}

# Every option a command's --help lists is offered after "-", and nothing
# else: the completion cannot drift from the program.
test_every_option_of_every_command() {
	local c help offered
	for c in record list stats monitor categories dump convert report status stop alert; do
		help=$("$TBCTL" "$c" --help | grep -oE '(^|[ ,])--?[a-z][a-z-]*' |
			tr -d ' ,' | LC_ALL=C sort -u | tr '\n' ' ' | sed 's/ $//')
		[ -n "$help" ] || fail "$c --help lists no option" || return 1
		offered=$(complete "$c" - | tr ' ' '\n' | grep -vx -- -- | LC_ALL=C sort -u |
			tr '\n' ' ' | sed 's/ $//')
		[ "$offered" = "$help" ] ||
			fail "$c: offered '$offered', --help lists '$help'" || return 1
	done
}

# the ids of the sessions running, from "tracebufctl -j status"
test_session_ids() {
	local id st=0
	export TRACEBUF_RUNTIME_DIR=$TMP/run
	id=$(cd "$TMP/w" && "$TBCTL" record --detach -q -o s.fxt) ||
		fail "record --detach failed" || return 1
	expect "$id" stop "" || st=1
	expect "$id" status "" || st=1
	expect "$id" alert halt "" || st=1
	expect "" alert "" || st=1
	(cd "$TMP/w" && "$TBCTL" stop "$id") > /dev/null 2>&1
	unset TRACEBUF_RUNTIME_DIR
	return $st
}

TESTS=(
	test_commands_and_prefixes
	test_modes_providers_categories
	test_buffer_sizes
	test_files
	test_command_after_dashdash
	test_every_option_of_every_command
	test_session_ids
)
if [ -f "$BASH_COMPLETION" ] && [ "${WITH_BC:-}" != 0 ]; then
	for t in "${TESTS[@]}"; do
		eval "${t}_with_bash_completion() { WITH_BC=1 $t; }"
		TESTS+=("${t}_with_bash_completion")
	done
fi

# shellcheck disable=SC2034
NEEDS=("$TBCTL")
tap_main
