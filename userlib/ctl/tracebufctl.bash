# SPDX-License-Identifier: MIT
#
# bash completion for tracebufctl(1): installed as
# share/bash-completion/completions/tracebufctl.
#
# Commands, their options, record's modes, report's sort keys, provider
# names (record -p, -b NAME:SIZE, stats) and categories (record -c) from
# the running module, through the tracebufctl being completed
# ("tracebufctl -j list", "tracebufctl -j categories": nothing when the
# module is not loaded), the ids of the recording sessions (status, stop,
# snapshot, alert: "tracebufctl -j status"), files where a file is wanted,
# and the command line after "record --".

# _tracebufctl_json FIELD COMMAND...: the string values of FIELD in the
# JSON that "tracebufctl -j COMMAND..." prints, one per line, unescaped
# but for \" and \\ (enough for names as people type them).
_tracebufctl_json()
{
	local field=$1
	shift
	"${_tracebufctl_prog:-tracebufctl}" -j "$@" 2>/dev/null |
		grep -o "\"$field\":\"\\([^\"\\\\]\\|\\\\.\\)*\"" |
		sed -e "s/^\"$field\":\"//" -e 's/"$//' -e 's/\\\(.\)/\1/g' | sort -u
}

# _tracebufctl_sessions: the ids of the recording sessions running.
_tracebufctl_sessions()
{
	"${_tracebufctl_prog:-tracebufctl}" -j status 2>/dev/null |
		grep -o '"id":[0-9]*' | sed 's/^"id"://' | sort -u
}

# _tracebufctl_files [-X PATTERN]: files for $cur (those PATTERN keeps,
# and every directory).
_tracebufctl_files()
{
	compopt -o filenames 2>/dev/null
	mapfile -t COMPREPLY < <({ compgen -f "$@" -- "$cur"; compgen -d -- "$cur"; } | sort -u)
}

# _tracebufctl_traces: the traces for $cur, compressed ones too (.fxt,
# .fxt.gz, .fxt.zst), and every directory.
_tracebufctl_traces()
{
	local x

	compopt -o filenames 2>/dev/null
	mapfile -t COMPREPLY < <({
		for x in fxt fxt.gz fxt.zst; do
			compgen -f -X "!*.$x" -- "$cur"
		done
		compgen -d -- "$cur"
	} | sort -u)
}

_tracebufctl()
{
	local cur prev words cword i cmd='' dashdash=0
	local commands='record list stats monitor categories dump convert report status stop
		snapshot alert help'
	local globals='-D --device -j --json -V --version -h --help'

	if declare -F _init_completion > /dev/null; then
		_init_completion -n = || return
	else
		cur=${COMP_WORDS[COMP_CWORD]}
		prev=${COMP_WORDS[COMP_CWORD - 1]}
		words=("${COMP_WORDS[@]}")
		cword=$COMP_CWORD
	fi
	local _tracebufctl_prog=${words[0]}

	# the command, past the global options; after "record --", COMMAND
	for ((i = 1; i < cword; i++)); do
		case ${words[i]} in
		-D | --device)
			[ -n "$cmd" ] || ((i++)) ;;
		--)
			if [ "$cmd" = record ]; then
				dashdash=$i
				break
			fi ;;
		-*) ;;
		*)
			[ -n "$cmd" ] || cmd=${words[i]} ;;
		esac
	done
	if ((dashdash)); then
		if declare -F _command_offset > /dev/null; then
			_command_offset $((dashdash + 1))
		else
			mapfile -t COMPREPLY < <(compgen -c -- "$cur" | sort -u)
		fi
		return
	fi

	if [ -z "$cmd" ]; then
		case $prev in
		-D | --device)
			_tracebufctl_files
			return ;;
		esac
		if [[ $cur == -* ]]; then
			mapfile -t COMPREPLY < <(compgen -W "$globals" -- "$cur")
		else
			mapfile -t COMPREPLY < <(compgen -W "$commands" -- "$cur")
		fi
		return
	fi

	# any unique prefix of a command will do, as for tracebufctl itself
	local c full=''
	for c in $commands; do
		if [[ $c == "$cmd"* ]]; then
			[ -z "$full" ] || return
			full=$c
		fi
	done
	case $full in
	record)
		case $prev in
		-m | --mode)
			mapfile -t COMPREPLY < <(compgen -W 'oneshot circular streaming' -- "$cur")
			return ;;
		-p | --provider)
			mapfile -t COMPREPLY < <(compgen -W "$(_tracebufctl_json name list)" -- "$cur")
			return ;;
		-c | --categories)
			mapfile -t COMPREPLY < <(compgen -W "$(_tracebufctl_json category categories)" -- "$cur")
			return ;;
		-b | --buffer-size)
			if [[ $cur == *:* ]]; then
				mapfile -t COMPREPLY < <(compgen -P "${cur%%:*}:" \
					-W '64K 256K 1M 4M 16M 64M' -- "${cur#*:}")
			else
				mapfile -t COMPREPLY < <(compgen -W '64K 256K 1M 4M 16M 64M' -- "$cur"
					compgen -S : -W "$(_tracebufctl_json name list)" -- "$cur")
				compopt -o nospace 2>/dev/null
			fi
			return ;;
		-o | --output | --config)
			_tracebufctl_files
			return ;;
		-d | --duration | --trigger | --max-size)
			return ;;
		esac
		mapfile -t COMPREPLY < <(compgen -W '-c --categories -m --mode -b --buffer-size
			-d --duration --max-size --rotate -p --provider --trigger -o --output -q --quiet
			--detach --best-effort --config --print-config -h --help --' -- "$cur") ;;
	list | monitor | categories)
		mapfile -t COMPREPLY < <(compgen -W '-j --json -h --help' -- "$cur") ;;
	stats)
		if [[ $cur == -* ]]; then
			mapfile -t COMPREPLY < <(compgen -W '-j --json -h --help' -- "$cur")
		else
			mapfile -t COMPREPLY < <(compgen -W "$(_tracebufctl_json name list)" -- "$cur")
		fi ;;
	dump)
		if [[ $cur == -* ]]; then
			mapfile -t COMPREPLY < <(compgen -W '-h --help' -- "$cur")
		else
			_tracebufctl_traces
		fi ;;
	convert)
		case $prev in
		-o | --output)
			_tracebufctl_files
			return ;;
		esac
		if [[ $cur == -* ]]; then
			mapfile -t COMPREPLY < <(compgen -W '-o --output -h --help' -- "$cur")
		else
			_tracebufctl_traces
		fi ;;
	report)
		case $prev in
		-s | --sort)
			mapfile -t COMPREPLY < <(compgen -W 'total count mean max name' -- "$cur")
			return ;;
		esac
		if [[ $cur == -* ]]; then
			mapfile -t COMPREPLY < <(compgen -W '-s --sort -j --json -h --help' -- "$cur")
		else
			_tracebufctl_traces
		fi ;;
	status | stop)
		if [[ $cur == -* ]]; then
			if [ "$full" = status ]; then
				mapfile -t COMPREPLY < <(compgen -W '-j --json -h --help' -- "$cur")
			else
				mapfile -t COMPREPLY < <(compgen -W '-h --help' -- "$cur")
			fi
		else
			mapfile -t COMPREPLY < <(compgen -W "$(_tracebufctl_sessions)" -- "$cur")
		fi ;;
	snapshot)
		case $prev in
		-o | --output)
			_tracebufctl_files
			return ;;
		esac
		if [[ $cur == -* ]]; then
			mapfile -t COMPREPLY < <(compgen -W '-o --output -h --help' -- "$cur")
		else
			mapfile -t COMPREPLY < <(compgen -W "$(_tracebufctl_sessions)" -- "$cur")
		fi ;;
	alert)
		# NAME first (any word), then session ids
		if [[ $cur == -* ]]; then
			mapfile -t COMPREPLY < <(compgen -W '-h --help' -- "$cur")
		elif [ "$prev" != "$cmd" ]; then
			mapfile -t COMPREPLY < <(compgen -W "$(_tracebufctl_sessions)" -- "$cur")
		fi ;;
	help)
		mapfile -t COMPREPLY < <(compgen -W "$commands" -- "$cur") ;;
	esac
}

complete -F _tracebufctl tracebufctl
